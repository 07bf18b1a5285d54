// Inline SVG charts: no script, no library, readable in any browser and in a screenshot.
import { escapeHtml, raw, type Html } from './html.ts';

export interface Point {
  at: string;
  value: number;
}

const W = 480;
const H = 140;
const PAD = { left: 36, right: 8, top: 10, bottom: 20 };

const fmt = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : Number.isInteger(n) ? String(n) : n.toFixed(1));
/** An axis label: HH:MM UTC as sent; admin.js shows it in the browser's zone (data-time). */
const hhmm = (iso: string): string => iso.slice(11, 16);

/** An area chart of one series over time; the y axis starts at 0. */
export function areaChart(title: string, points: Point[], color: string, unit = ''): Html {
  const max = Math.max(1, ...points.map((p) => p.value));
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (i: number): number => PAD.left + (points.length <= 1 ? 0 : (i / (points.length - 1)) * iw);
  const y = (v: number): number => PAD.top + ih - (v / max) * ih;
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const area = points.length === 0 ? '' : `${line} L${x(points.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z`;
  const last = points.at(-1)?.value ?? 0;
  const ticks = [0, max / 2, max]
    .map(
      (v) =>
        `<text x="${PAD.left - 4}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>` +
        `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`,
    )
    .join('');
  const labels =
    points.length === 0
      ? ''
      : [0, Math.floor((points.length - 1) / 2), points.length - 1]
          .map(
            (i, k) =>
              `<text x="${x(i)}" y="${H - 4}" text-anchor="${['start', 'middle', 'end'][k]}" data-time="${points[i]!.at}">${hhmm(points[i]!.at)}</text>`,
          )
          .join('');
  return raw(`<figure class="chart"><figcaption>${escapeHtml(title)} <b>${fmt(last)}${escapeHtml(unit)}</b></figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}">${ticks}
<path d="${area}" fill="${color}" fill-opacity="0.18"/><path d="${line}" fill="none" stroke="${color}" stroke-width="2"/>${labels}</svg></figure>`);
}

/** A horizontal stacked bar of parts (feed states, job states). */
export function stackedBar(parts: { label: string; value: number; color: string }[]): Html {
  const total = parts.reduce((n, p) => n + p.value, 0);
  if (total === 0) return raw('<div class="stack empty">none</div>');
  return raw(
    `<div class="stack">${parts
      .filter((p) => p.value > 0)
      .map(
        (p) =>
          `<span style="flex:${p.value};background:${p.color}" title="${escapeHtml(p.label)}: ${p.value}">${escapeHtml(p.label)} ${p.value}</span>`,
      )
      .join('')}</div>`,
  );
}
