// Orders: search across shops by order_pk, reference or tracking code; each order with its
// items, shipments, what the shop's systems recorded (module integrations) and its history as
// a timeline.
import type { HistoryEntry, Order } from '../../orders/orders.schemas.ts';
import { html, type Html } from './html.ts';

export interface OrderSearch {
  order_pk?: number;
  reference?: string;
  tracking_code?: string;
}

/** One history row: a status move, or a module integration recorded (nothing moved). */
const historyRow = (h: HistoryEntry): Html => {
  if (h.action === 'module_integration') {
    const d = (h.details ?? {}) as Record<string, string | null>;
    return html`<li class="${d.status === 'error' || d.status === 'failed' ? 'failed' : ''}" data-history="module_integration">
<b>${d.module_name}</b> ${d.change} <small class="muted">${d.type ?? ''}</small> ${d.status === null || d.status === undefined ? '' : html`<span class="badge">${d.status}</span>`}
${d.message === null || d.message === undefined ? '' : html`<br><small>${d.message}</small>`}<br><small>${h.at} · ${h.source}</small></li>`;
  }
  const feedback = h.action === 'cancel' && h.details !== null ? Object.entries(h.details).map(([k, v]) => `${k}: ${String(v)}`).join(' · ') : '';
  return html`<li class="${h.to === 'cancelled' || h.to === 'not_delivered' ? 'failed' : h.to === 'delivered' ? 'done' : ''}">
<b>${h.action}</b> ${h.from === null ? '' : html`${h.from} → `}<span class="badge ${h.to}">${h.to}</span> <small class="muted">items ${h.item_pks.join(', ')}</small>
${feedback === '' ? '' : html`<br><small>${feedback}</small>`}<br><small>${h.at} · ${h.source}</small></li>`;
};

const modulesTable = (o: Order): Html => o.module_integrations.length === 0 ? html`<p class="muted">None recorded.</p>`
  : html`<table data-modules><thead><tr><th>Module</th><th>Type</th><th>Status</th><th>Reference</th><th>Message</th><th>Updated</th></tr></thead>
<tbody>${o.module_integrations.map((m) => html`<tr><td>${m.module_name}</td><td>${m.type ?? '–'}</td><td>${m.status ?? '–'}</td><td>${m.reference ?? '–'}</td>
<td>${m.message ?? ''}</td><td>${m.updated_at}</td></tr>`)}</tbody></table>`;

const orderCard = (o: Order): Html => html`<article class="card" data-order="${o.order_pk}" style="margin-bottom:1rem">
<h2 style="margin-top:0">Order ${o.order_pk} <span class="badge ${o.status}">${o.status}</span></h2>
<dl class="facts"><dt>Shop</dt><dd>${o.shop_pk}</dd><dt>Marketplace</dt><dd>${o.marketplace_pk}</dd><dt>Reference</dt><dd>${o.reference ?? '–'}</dd>
<dt>Created</dt><dd>${o.created_at}</dd><dt>Updated</dt><dd>${o.updated_at}</dd>
<dt>Fulfilment</dt><dd>${o.ff_type}</dd><dt>Next</dt><dd>${o.actions.length === 0 ? '–' : o.actions.join(', ')}</dd>
<dt>Progress</dt><dd>${o.progress.filter((p) => p.status === 'done').map((p) => p.name).join(' → ') || '–'}</dd></dl>
<div class="split"><div><h3>Items</h3>
<table><thead><tr><th class="num">Item</th><th>SKU</th><th class="num">Qty</th><th class="num">Price</th><th>Status</th><th>Shipment</th></tr></thead>
<tbody>${o.items.map((i) => html`<tr><td class="num">${i.item_pk}</td><td>${i.sku}</td><td class="num">${i.quantity}</td><td class="num">${i.price}</td>
<td><span class="badge ${i.status}">${i.status}</span></td><td>${i.shipment === null ? '–' : html`${i.shipment.carrier ?? ''} <code>${i.shipment.tracking_code ?? ''}</code>`}</td></tr>`)}</tbody></table></div>
<h3>Module integrations</h3>${modulesTable(o)}</div>
<div><h3>History</h3><ol class="timeline">${o.history.map(historyRow)}</ol></div></div></article>`;

export function ordersBody(q: OrderSearch, orders: Order[] | null): Html {
  return html`<h1>Orders</h1>
<form class="filters card" method="get" action="/admin/orders">
<label>Order pk <input name="order_pk" inputmode="numeric" value="${q.order_pk ?? ''}" size="20"></label>
<label>Reference <input name="reference" value="${q.reference ?? ''}" size="16"></label>
<label>Tracking code <input name="tracking_code" value="${q.tracking_code ?? ''}" size="20"></label>
<button type="submit">Search</button></form>
${orders === null ? html`<p class="muted">Search by any of the three; orders of every shop are searched.</p>`
    : orders.length === 0 ? html`<p class="muted" id="no-orders">No order matches.</p>` : orders.map(orderCard)}`;
}
