// Feeds across shops: filters, a table whose progress bars move while feeds run, and one feed
// with its counts, why it failed, and its item errors (table and CSV).
import { FEED_TYPES } from '../../catalog/apply/operations.ts';
import type { FeedJson, FeedSummaryJson } from '../../feeds/feeds.schemas.ts';
import { feedOutcome } from '../admin.schemas.ts';
import { csvLine } from '../csv-writer.ts';
import { at, html, qs, shopName, shopPicker, type Html, type ShopNames } from './html.ts';

export interface FeedFilters {
  shop?: number;
  type?: string;
  state?: string;
  sku?: string;
  since?: string;
  /** The browser's offset from UTC when `since` was typed, minutes (getTimezoneOffset); none: UTC. */
  tz?: number;
  page: number;
}

/** Outcomes: a done feed with failed items is partial (the API says done). */
const states = ['queued', 'processing', 'done', 'partial', 'failed'];

/** The feed's outcome as a badge: partial (amber) names how many items failed. */
const outcomeBadge = (f: FeedSummaryJson, id?: string): Html => {
  const outcome = feedOutcome(f);
  const title =
    outcome === 'partial'
      ? `done: ${f.counts.failed} of ${f.counts.total} items failed (the API says state done, status ${f.status})`
      : `status ${f.status}`;
  return html`<span class="badge ${outcome}"${id === undefined ? '' : html` id="${id}"`} title="${title}">${outcome}</span>`;
};
export const PAGE_SIZE = 50;

export function progress(f: FeedSummaryJson): Html {
  const { total, processed, succeeded, failed } = f.counts;
  const pct = (n: number): number => (total === 0 ? 0 : Math.round((n / total) * 1000) / 10);
  const okPct = total === 0 && f.state === 'done' ? 100 : pct(succeeded);
  return html`<div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="${total}" aria-valuenow="${processed}" data-state="${f.state}">
<span class="${f.state === 'done' ? 'ok' : ''}" style="width:${okPct}%"></span><span class="err" style="left:${okPct}%;width:${pct(failed)}%"></span>
<em>${processed}/${total}${failed > 0 ? ` · ${failed} failed` : ''}</em></div>`;
}

/** A feed waiting or running this long without finishing is probably stuck (its worker died). */
const STUCK_MS = 15 * 60_000;

const retryButton = (f: FeedSummaryJson): Html => {
  const stuck = (f.state === 'queued' || f.state === 'processing') && Date.now() - Date.parse(f.created_at) > STUCK_MS;
  return f.state === 'failed' || stuck
    ? html`<button data-action="/admin/api/feeds/${f.pk}/retry" data-confirm="Queue feed ${f.pk.slice(0, 8)} again? Processing resumes after its last committed chunk.">${stuck ? 'Retry (stuck?)' : 'Retry'}</button>`
    : html``;
};

export function feedsFragment(list: { count: number; results: FeedSummaryJson[] }, f: FeedFilters, names: ShopNames): Html {
  const pages = Math.max(1, Math.ceil(list.count / PAGE_SIZE));
  return html`<p class="muted small">${list.count} feed${list.count === 1 ? '' : 's'}</p>
<table class="feeds"><thead><tr><th>Feed</th><th>Shop</th><th>Type</th><th>State</th><th>Progress</th><th>Source</th><th>Created</th><th>Took</th><th></th></tr></thead>
<tbody>${list.results.map(
    (feed) => html`<tr data-feed="${feed.pk}" class="${feed.state === 'failed' ? 'bad' : feedOutcome(feed) === 'partial' ? 'warn' : ''}">
<td><a href="/admin/feeds/${feed.pk}"><code>${feed.pk.slice(0, 8)}</code></a></td><td>${shopName(names, feed.shop_pk)}</td><td>${feed.type}</td>
<td>${outcomeBadge(feed)}</td><td>${progress(feed)}</td><td>${feed.source}</td><td>${at(feed.created_at)}</td>
<td>${feed.finished_at === null || feed.started_at === null ? '–' : `${((Date.parse(feed.finished_at) - Date.parse(feed.started_at)) / 1000).toFixed(1)} s`}</td>
<td>${retryButton(feed)}</td></tr>`,
  )}</tbody></table>
${
  pages <= 1
    ? ''
    : html`<nav class="filters">${f.page > 1 ? html`<a href="/admin/feeds${qs({ ...f, page: f.page - 1 })}">← newer</a>` : ''}
<span class="muted">page ${f.page} of ${pages}</span>${f.page < pages ? html`<a href="/admin/feeds${qs({ ...f, page: f.page + 1 })}">older →</a>` : ''}</nav>`
}`;
}

export function feedsBody(list: { count: number; results: FeedSummaryJson[] }, f: FeedFilters, names: ShopNames): Html {
  const opt = (values: string[], chosen: string | undefined) =>
    values.map((v) => html`<option${chosen === v ? html` selected` : ''}>${v}</option>`);
  return html`<h1>Feeds</h1>
<form class="filters" method="get" action="/admin/feeds">
${shopPicker(names, f.shop)}
<label>Type <select name="type"><option value="">any</option>${opt(FEED_TYPES, f.type)}</select></label>
<label>State <select name="state"><option value="">any</option>${opt(states, f.state)}</select></label>
<label>SKU <input name="sku" value="${f.sku ?? ''}" size="14"></label>
<label><span>Since (<span data-zone>UTC</span>)</span> <input name="since" type="datetime-local" data-local-time value="${f.since ?? ''}"></label>
<input type="hidden" name="tz" value="${f.tz ?? ''}">
<button type="submit">Filter</button></form>
<section id="feeds" data-live="/admin/feeds${qs({ ...f, page: f.page === 1 ? undefined : f.page, fragment: '1' })}" data-every="2000" data-every-active="250">${feedsFragment(list, f, names)}</section>`;
}

/** Rows of the error table shown on the page; the CSV has them all. */
const SHOWN_ERRORS = 500;

export function feedFragment(feed: FeedJson, names: ShopNames): Html {
  const errors = feed.result.errors;
  return html`<div class="split"><div class="card"><dl class="facts">
<dt>State</dt><dd>${outcomeBadge(feed, 'feed-state')} <small class="muted">(API: state ${feed.state}, status ${feed.status})</small>${feedOutcome(feed) === 'partial' ? html`<br><small id="feed-partial">${feed.counts.failed} of ${feed.counts.total} items failed: see the item errors below</small>` : ''}</dd>
<dt>Shop</dt><dd>${shopName(names, feed.shop_pk)}</dd><dt>Type</dt><dd>${feed.type}</dd><dt>Source</dt><dd>${feed.source}</dd>
${feed.product_pk === null ? '' : html`<dt>Product</dt><dd>${feed.product_pk}${feed.variation_pk === null ? '' : ` / variation ${feed.variation_pk}`}</dd>`}
<dt>Created</dt><dd>${at(feed.created_at)}</dd><dt>Started</dt><dd>${at(feed.started_at)}</dd><dt>Finished</dt><dd>${at(feed.finished_at)}</dd>
</dl></div>
<div class="card"><h3 style="margin-top:0">Items</h3>${progress(feed)}
<dl class="facts" style="margin-top:.6rem"><dt>Total</dt><dd>${feed.counts.total}</dd><dt>Processed</dt><dd>${feed.counts.processed}</dd>
<dt>Succeeded</dt><dd>${feed.counts.succeeded}</dd><dt>Failed</dt><dd id="feed-failed">${feed.counts.failed}</dd><dt>Warnings</dt><dd>${feed.counts.warnings}</dd></dl>
<p>${retryButton(feed)} <a href="/admin/logs${qs({ feed: feed.pk })}">log lines of this feed</a> · <a href="/admin/api/feeds/${feed.pk}">JSON</a></p></div></div>
${feed.result.criticals.length === 0 ? '' : html`<h2>Why it failed</h2><ul class="card">${feed.result.criticals.map((c) => html`<li class="error"><code>${c.code}</code> ${c.message}</li>`)}</ul>`}
<h2>Item errors (${errors.length}) ${errors.length === 0 ? '' : html`<a class="button" id="errors-csv" href="/admin/api/feeds/${feed.pk}/errors.csv" download>Download CSV</a>`}</h2>
${
  errors.length === 0
    ? html`<p class="muted">No item errors.</p>`
    : html`<table class="errors"><thead><tr><th class="num">Index</th><th>SKU / pk</th><th>Field</th><th>Code</th><th>Message</th></tr></thead>
<tbody>${errors.slice(0, SHOWN_ERRORS).map((e) => html`<tr><td class="num">${e.index}</td><td>${e.sku ?? e.image_pk ?? e.product_pk ?? ''}</td><td><code>${e.pointer}</code></td><td>${e.code}</td><td class="wrap">${e.message}</td></tr>`)}</tbody></table>
${errors.length > SHOWN_ERRORS ? html`<p class="muted">The first ${SHOWN_ERRORS} are shown; the CSV has all ${errors.length}.</p>` : ''}`
}`;
}

export const feedBody = (feed: FeedJson, names: ShopNames): Html => html`<h1>Feed <code>${feed.pk}</code></h1>
<section id="feed" data-live="/admin/feeds/${feed.pk}?fragment=1" data-every="5000" data-every-active="250">${feedFragment(feed, names)}</section>`;

/** CSV of a feed's item errors (CRLF rows; skus and messages made safe for spreadsheets). */
export function errorsCsv(feed: FeedJson): string {
  const lines = [csvLine(['index', 'sku', 'pk', 'pointer', 'code', 'message'])];
  for (const e of feed.result.errors) lines.push(csvLine([e.index, e.sku, e.image_pk ?? e.product_pk, e.pointer, e.code, e.message]));
  return `${lines.join('\r\n')}\r\n`;
}
