// Orders: every shop's orders with filters (shop, marketplace, status, date) and paging; one
// order with its items, shipments and their tracking events, what the shop's systems recorded
// (module integrations) and its history as a timeline.
import type { HistoryEntry, Order, OrderSummary, Shipment } from '../../orders/orders.schemas.ts';
import { ORDER_STATUSES } from '../../orders/order-state.ts';
import { at, html, qs, shopName, shopPicker, type Html, type ShopNames } from './html.ts';

export const ORDERS_PAGE_SIZE = 50;

export interface OrderFilters {
  shop?: number;
  marketplace?: number;
  status?: string;
  /** Created on or after / before this day (YYYY-MM-DD, UTC). */
  from?: string;
  to?: string;
  page: number;
}

export interface Lookups {
  shops: ShopNames;
  marketplaces: ReadonlyMap<number, string>;
}

export const orderUrl = (o: { shop_pk: number; marketplace_pk: number; order_pk: number }): string =>
  `/admin/orders/${o.shop_pk}/${o.marketplace_pk}/${o.order_pk}`;

const marketplaceName = (l: Lookups, pk: number): Html =>
  html`${l.marketplaces.get(pk) ?? `Marketplace ${pk}`} <small class="muted">#${pk}</small>`;

export function ordersFragment(list: { count: number; results: OrderSummary[] }, f: OrderFilters, l: Lookups): Html {
  const pages = Math.max(1, Math.ceil(list.count / ORDERS_PAGE_SIZE));
  if (list.count === 0) return html`<p class="muted" id="no-orders">No order matches.</p>`;
  return html`<p class="muted small">${list.count} order${list.count === 1 ? '' : 's'}</p>
<table class="orders"><thead><tr><th>Order</th><th>Shop</th><th>Marketplace</th><th>Reference</th><th>Status</th><th class="num">Items</th><th>Next</th><th>Created</th></tr></thead>
<tbody>${list.results.map(
    (o) => html`<tr data-order="${o.order_pk}">
<td><a href="${orderUrl(o)}">${o.order_pk}</a></td><td>${shopName(l.shops, o.shop_pk)}</td><td>${marketplaceName(l, o.marketplace_pk)}</td><td>${o.reference ?? '–'}</td>
<td><span class="badge ${o.status}">${o.status}</span></td><td class="num">${o.items.length}</td><td>${o.actions.join(', ') || '–'}</td><td class="nowrap">${at(o.created_at)}</td></tr>`,
  )}</tbody></table>
${
  pages <= 1
    ? ''
    : html`<nav class="filters" id="order-pages">${f.page > 1 ? html`<a href="/admin/orders${qs({ ...f, page: f.page - 1 })}">← newer</a>` : ''}
<span class="muted">page ${f.page} of ${pages}</span>${f.page < pages ? html`<a href="/admin/orders${qs({ ...f, page: f.page + 1 })}">older →</a>` : ''}</nav>`
}`;
}

export function ordersBody(list: { count: number; results: OrderSummary[] }, f: OrderFilters, l: Lookups): Html {
  const opt = (pairs: [string, string][], chosen: string | undefined) =>
    pairs.map(([v, label]) => html`<option value="${v}"${chosen === v ? html` selected` : ''}>${label}</option>`);
  return html`<h1>Orders</h1>
<form class="filters" method="get" action="/admin/orders" id="order-filters">
${shopPicker(l.shops, f.shop)}
<label>Marketplace <select name="marketplace"><option value="">any</option>${opt(
    [...l.marketplaces].map(([pk, name]) => [String(pk), name]),
    f.marketplace === undefined ? undefined : String(f.marketplace),
  )}</select></label>
<label>Status <select name="status"><option value="">any</option>${opt(
    ORDER_STATUSES.map((s) => [s, s]),
    f.status,
  )}</select></label>
<label>Created from (UTC day) <input name="from" type="date" value="${f.from ?? ''}"></label>
<label>to <input name="to" type="date" value="${f.to ?? ''}"></label>
<button type="submit">Filter</button></form>
<form class="filters" method="get" action="/admin/orders/search"><label>Order pk, reference or tracking code <input name="order" size="24" required></label><button type="submit" class="secondary">Find</button></form>
<section id="orders" data-live="/admin/orders${qs({ ...f, page: f.page === 1 ? undefined : f.page, fragment: '1' })}" data-every="5000">${ordersFragment(list, f, l)}</section>`;
}

/** One history row: a status move, or a module integration recorded (nothing moved). */
const historyRow = (h: HistoryEntry): Html => {
  if (h.action === 'module_integration') {
    const d = (h.details ?? {}) as Record<string, string | null>;
    return html`<li class="${d.status === 'error' || d.status === 'failed' ? 'failed' : ''}" data-history="module_integration">
<b>${d.module_name}</b> ${d.change} <small class="muted">${d.type ?? ''}</small> ${d.status === null || d.status === undefined ? '' : html`<span class="badge">${d.status}</span>`}
${d.message === null || d.message === undefined ? '' : html`<br><small>${d.message}</small>`}<br><small>${at(h.at)} · ${h.source}</small></li>`;
  }
  const feedback =
    h.action === 'cancel' && h.details !== null
      ? Object.entries(h.details)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(' · ')
      : '';
  return html`<li class="${h.to === 'cancelled' || h.to === 'not_delivered' ? 'failed' : h.to === 'delivered' ? 'done' : ''}" data-history="${h.action}">
<b>${h.action}</b> ${h.from === null ? '' : html`${h.from} → `}<span class="badge ${h.to}">${h.to}</span> <small class="muted">items ${h.item_pks.join(', ')}</small>
${feedback === '' ? '' : html`<br><small>${feedback}</small>`}<br><small>${at(h.at)} · ${h.source}</small></li>`;
};

const modulesTable = (o: Order): Html =>
  o.module_integrations.length === 0
    ? html`<p class="muted">None recorded.</p>`
    : html`<table data-modules><thead><tr><th>Module</th><th>Type</th><th>Status</th><th>Reference</th><th>Message</th><th>Updated</th></tr></thead>
<tbody>${o.module_integrations.map(
        (m) => html`<tr><td>${m.module_name}</td><td>${m.type ?? '–'}</td><td>${m.status ?? '–'}</td><td>${m.reference ?? '–'}</td>
<td>${m.message ?? ''}</td><td>${at(m.updated_at)}</td></tr>`,
      )}</tbody></table>`;

const shipmentCard = (
  s: Shipment,
): Html => html`<div class="card shipment" data-shipment="${s.id}"><b>${s.carrier ?? 'no carrier'}</b> <code>${s.tracking_code ?? ''}</code>
<small class="muted">items ${s.item_pks.join(', ')} · shipped ${at(s.shipped_at)}</small>
${
  s.events.length === 0
    ? html`<p class="muted small">No tracking events yet.</p>`
    : html`<ol class="timeline events">${s.events.map(
        (e) => html`<li class="${e.status === 'delivered' ? 'done' : e.warning === null ? '' : 'failed'}" data-event="${e.status}">
<span class="badge ${e.status}">${e.status}</span> ${e.carrier_text ?? e.carrier_code ?? ''}${e.location === null ? '' : html` · ${e.location}`}
${e.warning === null ? '' : html`<br><small class="error">${e.warning}</small>`}<br><small>${at(e.occurred_at)} · ${e.source}</small></li>`,
      )}</ol>`
}</div>`;

/**
 * An amount as the order carries it: two decimals, no currency symbol. Orders carry no currency
 * (the documented API has none): amounts are in the marketplace's currency, which the page says.
 */
export const money = (n: number | null): string =>
  n === null ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** The buyer as the order names them: name, then the address to write to. */
const customerOf = (o: Order): Html => {
  const name = [o.customer.first_name, o.customer.last_name].filter((p) => p !== null && p !== '').join(' ');
  if (name === '' && o.customer.email === null) return html`<span class="muted">not given</span>`;
  return html`<span id="customer-name">${name === '' ? '' : name}</span>${o.customer.email === null ? '' : html`${name === '' ? '' : ' · '}<a id="customer-email" href="mailto:${o.customer.email}">${o.customer.email}</a>`}`;
};

const addressOf = (a: Order['shipping_address']): Html | string => {
  if (a === null) return html`<span class="muted">not given</span>`;
  const parts = Object.values(a).filter((v): v is string => typeof v === 'string' && v !== '');
  return parts.length === 0 ? html`<span class="muted">not given</span>` : parts.join(', ');
};

const itemsTotal = (o: Order): number => o.items.reduce((n, i) => n + i.price * i.quantity, 0);

export const orderBody = (
  o: Order,
  l: Lookups,
): Html => html`<h1>Order ${o.order_pk} <span class="badge ${o.status}">${o.status}</span></h1>
<article class="card" data-order="${o.order_pk}">
<dl class="facts"><dt>Shop</dt><dd>${shopName(l.shops, o.shop_pk)}</dd><dt>Marketplace</dt><dd>${marketplaceName(l, o.marketplace_pk)}</dd><dt>Reference</dt><dd>${o.reference ?? '–'}</dd>
<dt>Customer</dt><dd>${customerOf(o)}</dd><dt>Ship to</dt><dd id="ship-to">${addressOf(o.shipping_address)}</dd>
<dt>Payment</dt><dd>${o.paid ? 'paid' : 'not paid'}${o.payment_method === null ? '' : ` · ${o.payment_method}`}</dd>
<dt>Amounts</dt><dd id="amounts">items ${money(itemsTotal(o))} + shipping ${money(o.shipping_cost)} = <b>${money(itemsTotal(o) + (o.shipping_cost ?? 0))}</b>
<small class="muted">in ${l.marketplaces.get(o.marketplace_pk) ?? 'the marketplace'}'s currency (orders carry no currency)</small></dd>
<dt>Created</dt><dd>${at(o.created_at)}</dd><dt>Updated</dt><dd>${at(o.updated_at)}</dd>
<dt>Fulfilment</dt><dd>${o.ff_type}</dd><dt>Next</dt><dd>${o.actions.length === 0 ? '–' : o.actions.join(', ')}</dd>
<dt>Progress</dt><dd>${
  o.progress
    .filter((p) => p.status === 'done')
    .map((p) => p.name)
    .join(' → ') || '–'
}</dd></dl></article>
<div class="split"><div><h2>Items</h2>
<table class="items"><thead><tr><th class="num">Item</th><th>SKU</th><th class="num">Qty</th><th class="num" title="In the marketplace's currency: orders carry none">Price</th><th>Status</th><th>Shipment</th></tr></thead>
<tbody>${o.items.map(
  (i) => html`<tr><td class="num">${i.item_pk}</td><td>${i.sku}</td><td class="num">${i.quantity}</td><td class="num">${money(i.price)}</td>
<td><span class="badge ${i.status}">${i.status}</span></td><td>${i.shipment === null ? '–' : html`${i.shipment.carrier ?? ''} <code>${i.shipment.tracking_code ?? ''}</code>`}</td></tr>`,
)}</tbody></table>
<h2>Shipments and tracking</h2>${o.shipments.length === 0 ? html`<p class="muted">Not shipped yet.</p>` : o.shipments.map(shipmentCard)}
<h2>Module integrations</h2>${modulesTable(o)}</div>
<div><h2>History</h2><ol class="timeline" id="order-history">${o.history.map(historyRow)}</ol></div></div>`;
