// Webhooks: every delivery to shops' webhook URLs, the latest first, each with its attempts
// (status, time taken, the start of the receiver's answer, why it failed) in a full-width row
// under it. One attempt is one POST and one try of the delivery's webhook.deliver job, so this
// page and the Jobs page count the same attempts.
import { queueSettings } from '../../jobs/job-map.ts';
import type { WebhookDelivery } from '../../webhooks/webhooks.schemas.ts';
import { at, html, qs, shopName, shopPicker, type Html, type ShopNames } from './html.ts';

export interface DeliveryFilters {
  shop?: number;
  event?: string;
  pk?: string;
  state?: WebhookDelivery['state'];
  /** One delivery, by its webhook-id (the Jobs page links here). */
  delivery?: string;
}

const STATES: WebhookDelivery['state'][] = ['delivered', 'failing', 'refused'];

/** Attempts a delivery gets before it waits in webhook.deliver.dead (the job's retry limit + 1). */
export const WEBHOOK_ATTEMPTS = queueSettings['webhook.deliver'].retryLimit + 1;

/** Where the delivery's resource is on the dashboard: the feed's page, or the order search. */
const resourceLink = (d: WebhookDelivery): Html | string => {
  if (d.pk === null) return '–';
  if (d.type === 'feed.completed') return html`<a href="/admin/feeds/${encodeURIComponent(d.pk)}">feed ${d.pk.slice(0, 8)}</a>`;
  if (d.type.startsWith('order.')) return html`<a href="/admin/orders/search${qs({ order: d.pk })}">order ${d.pk}</a>`;
  return d.pk;
};

/** "3 of 15": attempts so far, of those the job gets; a delivery retried by hand from the dead-letter queue counts on. */
const attemptsText = (d: WebhookDelivery): string => `${d.attempts.length} of ${Math.max(WEBHOOK_ATTEMPTS, d.attempts.length)}`;

const attemptsTable = (
  d: WebhookDelivery,
): Html => html`<table class="attempts"><thead><tr><th class="num">#</th><th>At</th><th class="num">Status</th><th>Outcome</th><th class="num">ms</th><th>Error</th><th>Answer</th></tr></thead>
<tbody>${d.attempts.map(
  (a) => html`<tr data-attempt="${a.attempt}"><td class="num">${a.attempt}</td><td class="nowrap">${at(a.at)}</td>
<td class="num">${a.status ?? '–'}</td><td><span class="badge ${a.outcome === 'failed' ? 'failing' : a.outcome}">${a.outcome}</span></td><td class="num">${a.duration_ms}</td>
<td class="wrap">${a.error ?? ''}</td><td class="wrap">${a.response_excerpt === null ? html`<span class="muted">none</span>` : html`<pre class="excerpt">${a.response_excerpt}</pre>`}</td></tr>`,
)}</tbody></table>
<p class="small muted">POST ${d.attempts.at(-1)?.url ?? ''}${d.location === null ? '' : html` · Location <code>${d.location}</code>`}</p>`;

export function webhooksFragment(list: WebhookDelivery[], names: ShopNames): Html {
  if (list.length === 0)
    return html`<p class="muted" id="no-deliveries">No deliveries yet: they appear when a shop with a webhook URL has an event.</p>`;
  return html`<table class="deliveries"><thead><tr><th>Delivery</th><th>Shop</th><th>Event</th><th>Resource</th><th>State</th><th class="num" title="One attempt is one POST and one try of its webhook.deliver job (the Jobs page counts the same)">Attempts</th><th>Last answer</th><th>Last attempt</th></tr></thead>
<tbody>${list.map((d) => {
    const last = d.attempts.at(-1)!;
    return html`<tr data-delivery="${d.delivery_id}" class="${d.state === 'delivered' ? '' : 'bad'}">
<td><code title="${d.delivery_id}">${d.delivery_id.slice(0, 16)}</code></td>
<td>${shopName(names, d.shop_pk)}</td>
<td class="event"><code>${d.type}</code><br><small class="muted" title="The X-Madkting-Event header and the body's event: existing clients use the order's created event for every order update">sent as <code>${d.event}</code></small></td><td>${resourceLink(d)}</td>
<td><span class="badge delivery-state ${d.state}">${d.state}</span></td><td class="num nowrap">${attemptsText(d)}</td>
<td>${last.status ?? html`<span class="muted">no answer</span>`}${last.error === null ? '' : html`<br><small class="error">${last.error}</small>`}</td>
<td>${at(last.at)}</td></tr>
<tr class="sub" data-attempts-of="${d.delivery_id}"><td colspan="8"><details><summary>${d.attempts.length === 1 ? '1 attempt' : `${d.attempts.length} attempts`}: each with its time, status, error and answer</summary>${attemptsTable(d)}</details></td></tr>`;
  })}</tbody></table>`;
}

export function webhooksBody(f: DeliveryFilters, list: WebhookDelivery[], names: ShopNames): Html {
  return html`<h1>Webhooks</h1>
<form class="filters card" method="get" action="/admin/webhooks">
${shopPicker(names, f.shop)}
<label>Event <input name="event" value="${f.event ?? ''}" placeholder="order.status_changed or product_feed:order:created" size="30"></label>
<label>Resource pk <input name="pk" value="${f.pk ?? ''}" size="20"></label>
<label>State <select name="state"><option value="">any</option>${STATES.map((s) => html`<option${f.state === s ? html` selected` : ''}>${s}</option>`)}</select></label>
${f.delivery === undefined ? '' : html`<input type="hidden" name="delivery" value="${f.delivery}">`}
<button type="submit">Filter</button>${f.delivery === undefined ? '' : html` <a href="/admin/webhooks" class="button secondary">every delivery</a>`}</form>
<p class="muted" id="attempts-note"><small>Each attempt is one POST, and one try of the delivery's <code>webhook.deliver</code> job: the Jobs page counts the same attempts.
A failing delivery is tried ${WEBHOOK_ATTEMPTS} times with growing waits (seconds at first, doubling up to an hour apart; given up 3-4 h after the first attempt), then waits in
<a href="/admin/jobs?queue=webhook.deliver.dead">webhook.deliver.dead</a>, where it can be retried (its attempts count on); a refused one (410 Gone, an internal address) is not retried.</small></p>
<section id="deliveries" data-live="/admin/webhooks${qs({ ...f, fragment: '1' })}" data-every="3000">${webhooksFragment(list, names)}</section>`;
}
