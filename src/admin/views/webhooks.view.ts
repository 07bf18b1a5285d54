// Webhooks: every delivery to shops' webhook URLs, the latest first, each with its attempts
// (status, time taken, the start of the receiver's answer, why it failed).
import type { WebhookDelivery } from '../../webhooks/webhooks.schemas.ts';
import { at, html, qs, shopName, type Html, type ShopNames } from './html.ts';

export interface DeliveryFilters {
  shop?: number;
  event?: string;
  pk?: string;
  state?: WebhookDelivery['state'];
}

const STATES: WebhookDelivery['state'][] = ['delivered', 'failing', 'refused'];

/** Where the delivery's resource is on the dashboard: the feed's page, or the order search. */
const resourceLink = (d: WebhookDelivery): Html | string => {
  if (d.pk === null) return '–';
  if (d.type === 'feed.completed') return html`<a href="/admin/feeds/${encodeURIComponent(d.pk)}">feed ${d.pk.slice(0, 8)}</a>`;
  if (d.type.startsWith('order.')) return html`<a href="/admin/orders/search${qs({ order: d.pk })}">order ${d.pk}</a>`;
  return d.pk;
};

const attemptsTable = (d: WebhookDelivery): Html => html`<table class="attempts"><thead><tr><th class="num">#</th><th>At</th><th>Status</th><th>Outcome</th><th class="num">ms</th><th>Error</th><th>Answer</th></tr></thead>
<tbody>${d.attempts.map((a) => html`<tr data-attempt="${a.attempt}"><td class="num">${a.attempt}</td><td class="nowrap">${at(a.at)}</td>
<td class="num">${a.status ?? '–'}</td><td><span class="badge ${a.outcome === 'failed' ? 'failing' : a.outcome}">${a.outcome}</span></td><td class="num">${a.duration_ms}</td>
<td class="wrap">${a.error ?? ''}</td><td class="wrap">${a.response_excerpt === null ? html`<span class="muted">none</span>` : html`<pre class="excerpt">${a.response_excerpt}</pre>`}</td></tr>`)}</tbody></table>
<p><small class="muted">to ${d.attempts.at(-1)?.url ?? ''}${d.location === null ? '' : html` · Location <code>${d.location}</code>`}</small></p>`;

export function webhooksFragment(list: WebhookDelivery[], names: ShopNames): Html {
  if (list.length === 0) return html`<p class="muted" id="no-deliveries">No deliveries yet: they appear when a shop with a webhook URL has an event.</p>`;
  return html`<table class="deliveries"><thead><tr><th>Delivery</th><th>Shop</th><th>Event</th><th>Resource</th><th>State</th><th class="num">Attempts</th><th>Last answer</th><th>Last attempt</th></tr></thead>
<tbody>${list.map((d) => {
    const last = d.attempts.at(-1)!;
    return html`<tr data-delivery="${d.delivery_id}" class="${d.state === 'delivered' ? '' : 'bad'}">
<td><code title="${d.delivery_id}">${d.delivery_id.slice(0, 16)}</code>
<details><summary>attempts</summary>${attemptsTable(d)}</details></td>
<td>${shopName(names, d.shop_pk)}</td><td><code>${d.event}</code><br><small class="muted">${d.type}</small></td><td>${resourceLink(d)}</td>
<td><span class="badge delivery-state ${d.state}">${d.state}</span></td><td class="num">${d.attempts.length}</td>
<td>${last.status ?? html`<span class="muted">no answer</span>`}${last.error === null ? '' : html`<br><small class="error">${last.error}</small>`}</td>
<td>${at(last.at)}</td></tr>`;
  })}</tbody></table>`;
}

export function webhooksBody(f: DeliveryFilters, list: WebhookDelivery[], names: ShopNames): Html {
  return html`<h1>Webhooks</h1>
<form class="filters card" method="get" action="/admin/webhooks">
<label>Shop <input name="shop" inputmode="numeric" value="${f.shop ?? ''}" size="6"></label>
<label>Event <input name="event" value="${f.event ?? ''}" placeholder="product_feed:order:created or order.status_changed" size="30"></label>
<label>Resource pk <input name="pk" value="${f.pk ?? ''}" size="20"></label>
<label>State <select name="state"><option value="">any</option>${STATES.map((s) => html`<option${f.state === s ? html` selected` : ''}>${s}</option>`)}</select></label>
<button type="submit">Filter</button></form>
<p class="muted"><small>A failing delivery is retried with backoff (then lands in <a href="/admin/jobs?queue=webhook.deliver.dead">webhook.deliver.dead</a>, where it can be retried); a refused one (410 Gone, an internal address) is not retried.</small></p>
<section id="deliveries" data-live="/admin/webhooks${qs({ ...f, fragment: '1' })}" data-every="3000">${webhooksFragment(list, names)}</section>`;
}
