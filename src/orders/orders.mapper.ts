// Rows -> the order as the API shows it. Pure functions, no queries.
import { formatTimestamp } from '../platform/timestamp.ts';
import type { ItemStatus, OrderStatus } from './order-state.ts';
import type { HistoryRow, ItemRow, OrderRow, ShipmentRow } from './orders.repository.ts';
import type { HistoryEntry, Order, OrderItem, OrderSummary, Shipment } from './orders.schemas.ts';

// The marketplace API's one timestamp form (YYYY-MM-DDThh:mm:ss, UTC).
const iso = formatTimestamp;

export const toItem = (r: ItemRow): OrderItem => ({
  item_pk: r.item_pk,
  sku: r.sku,
  quantity: r.quantity,
  price: r.price,
  status: r.status as ItemStatus,
  shipment: r.shipment_id === null || r.shipped_at === null || r.shipment_updated_at === null
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

export const toShipment = (r: ShipmentRow): Shipment => ({
  id: r.id,
  item_pks: r.item_pks.map(Number),
  carrier: r.carrier,
  tracking_code: r.tracking_code,
  delivery_time: r.delivery_time,
  comments: r.comments,
  shipped_at: iso(r.shipped_at),
  updated_at: iso(r.updated_at),
});

export const toHistory = (r: HistoryRow): HistoryEntry => ({
  at: iso(r.at),
  action: r.action as HistoryEntry['action'],
  item_pks: r.item_pks.map(Number),
  from: r.from_status as ItemStatus | null,
  to: r.to_status as ItemStatus,
  source: r.source,
  shipment_id: r.shipment_id,
});

export const toSummary = (o: OrderRow, items: ItemRow[]): OrderSummary => ({
  order_pk: o.order_pk,
  shop_pk: o.shop_pk,
  marketplace_pk: o.marketplace_pk,
  reference: o.reference,
  status: o.status as OrderStatus,
  customer: o.customer,
  shipping_address: o.shipping_address,
  shipping_cost: o.shipping_cost,
  created_at: iso(o.created_at),
  updated_at: iso(o.updated_at),
  items: items.map(toItem),
});

export const toOrder = (o: OrderRow, items: ItemRow[], shipments: ShipmentRow[], history: HistoryRow[]): Order => ({
  ...toSummary(o, items),
  shipments: shipments.map(toShipment),
  history: history.map(toHistory),
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
