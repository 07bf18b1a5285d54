// Rows -> the order as the API shows it. Pure functions, no queries.
import { formatTimestamp } from '../validation/timestamp.ts';
import type { ItemStatus, OrderStatus } from './order-state.ts';
import { actionsOf, addressOf, customerOf, progressOf } from './order-view.ts';
import type { HistoryRow, ItemRow, ModuleIntegrationRow, OrderRow, ShipmentRow } from './orders.repository.ts';
import { toStoredEvent, type TrackingEventRow } from '../tracking/tracking-events.ts';
import type { HistoryEntry, ModuleIntegration, Order, OrderItem, OrderSummary, Shipment } from './orders.schemas.ts';

// The marketplace API's one timestamp form (YYYY-MM-DDThh:mm:ss, UTC).
const iso = formatTimestamp;

export const toItem = (r: ItemRow): OrderItem => ({
  pk: r.item_pk,
  item_pk: r.item_pk,
  sku: r.sku,
  quantity: r.quantity,
  price: r.price,
  ff_type: r.ff_type,
  status: r.status as ItemStatus,
  carrier: r.carrier,
  tracking_code: r.tracking_code,
  shipment:
    r.shipment_id === null || r.shipped_at === null || r.shipment_updated_at === null
      ? null
      : {
          id: r.shipment_id,
          carrier: r.carrier,
          tracking_code: r.tracking_code,
          delivery_time: r.delivery_time,
          comments: r.comments,
          shipped_at: iso(r.shipped_at),
          updated_at: iso(r.shipment_updated_at),
        },
});

export const toShipment = (r: ShipmentRow, events: TrackingEventRow[] = []): Shipment => ({
  id: r.id,
  item_pks: r.item_pks.map(Number),
  carrier: r.carrier,
  tracking_code: r.tracking_code,
  delivery_time: r.delivery_time,
  comments: r.comments,
  shipped_at: iso(r.shipped_at),
  updated_at: iso(r.updated_at),
  events: events.map(toStoredEvent),
});

export const toHistory = (r: HistoryRow): HistoryEntry => ({
  at: iso(r.at),
  action: r.action as HistoryEntry['action'],
  item_pks: r.item_pks.map(Number),
  from: r.from_status as ItemStatus | null,
  to: r.to_status as ItemStatus | null,
  source: r.source,
  shipment_id: r.shipment_id,
  details: r.details,
});

export const toModuleIntegration = (r: ModuleIntegrationRow): ModuleIntegration => ({
  id: r.id,
  module_name: r.module_name,
  status: r.status,
  message: r.message,
  reference: r.reference,
  type: r.type === '' ? null : r.type,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** The order as the list and the single read both carry it. */
export function toSummary(o: OrderRow, rows: ItemRow[]): OrderSummary {
  const items = rows.map(toItem);
  return {
    pk: o.order_pk,
    order_pk: o.order_pk,
    reference: o.reference,
    shop_pk: o.shop_pk,
    marketplace_pk: o.marketplace_pk,
    ff_type: o.ff_type,
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
    status: o.status as OrderStatus,
    shipping_cost: o.shipping_cost,
    payment_method: o.payment_method,
    paid: o.paid,
    customer: customerOf(o.customer),
    shipping_address: addressOf(o.shipping_address),
    billing_address: addressOf(o.billing_address),
    tags: o.tags ?? [],
    actions: actionsOf(items),
    items,
    progress: progressOf({ paid: o.paid, statuses: items.map((i) => i.status) }),
  };
}

/** events: the tracking events of the order's shipments, by shipment id. */
export const toOrder = (
  o: OrderRow,
  items: ItemRow[],
  shipments: ShipmentRow[],
  history: HistoryRow[],
  modules: ModuleIntegrationRow[],
  events: ReadonlyMap<number, TrackingEventRow[]> = new Map(),
): Order => ({
  ...toSummary(o, items),
  shipments: shipments.map((s) => toShipment(s, events.get(s.id))),
  history: history.map(toHistory),
  module_integrations: modules.map(toModuleIntegration),
});

/** Groups rows by their order_id. */
export function byOrder<T extends { order_id: number }>(rows: T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const list = out.get(r.order_id);
    if (list === undefined) out.set(r.order_id, [r]);
    else list.push(r);
  }
  return out;
}
