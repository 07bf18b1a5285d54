// A tagged template that escapes every interpolated value unless it is already Html, so a
// page cannot be broken (or scripted) by a product name or a log line.

export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | boolean | null | undefined | Value[];

const render = (v: Value): string => {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
};

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup (our own SVG, a pre-rendered fragment). */
export const raw = (s: string): Html => new Html(s);

export const when = (cond: unknown, then: () => Html): Html => (cond ? then() : raw(''));

/** An API time as a Date: order times (YYYY-MM-DDThh:mm:ss) carry no zone and are UTC. */
const instant = (iso: string): Date => new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(iso) ? iso : `${iso}Z`);

/** "2026-11-24 09:30:05 UTC": a time as the page is sent; the script shows it in the browser's zone. */
export const utcText = (iso: string): string => `${instant(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/**
 * Every time on the dashboard: <time datetime> with the UTC text, which admin.js rewrites in the
 * browser's time zone (one Intl format everywhere); hovering shows the UTC time.
 */
export function at(iso: string | null | undefined): Html {
  if (iso === null || iso === undefined || Number.isNaN(instant(iso).getTime())) return html`–`;
  const utc = utcText(iso);
  return html`<time datetime="${instant(iso).toISOString()}" title="${utc}">${utc}</time>`;
}

export const duration = (seconds: number): string =>
  seconds < 60 ? `${Math.round(seconds)} s` : seconds < 3600 ? `${Math.round(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`;

export const qs = (params: Record<string, string | number | undefined | null>): string => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
};

/** Shop names by pk: tables show a shop by its name, its pk beside it. */
export type ShopNames = ReadonlyMap<number, string>;

export const shopName = (names: ShopNames, pk: number | null): Html =>
  pk === null
    ? html`<span class="muted">all shops</span>`
    : html`<a href="/admin/shops#shop-${pk}" class="shop-name">${names.get(pk) ?? `Shop ${pk}`}</a> <small class="muted">#${pk}</small>`;

/** The shop filter of a list: a picker of shops by name (pk beside it), "any" first. */
export const shopPicker = (names: ShopNames, chosen: number | undefined): Html =>
  html`<label>Shop <select name="shop"><option value="">any</option>${[...names].map(
    ([pk, name]) => html`<option value="${pk}"${chosen === pk ? html` selected` : ''}>${name} #${pk}</option>`,
  )}</select></label>`;
