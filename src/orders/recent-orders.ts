// The orders this process acted on lately, as its last write left them: an action on one of
// them plans from here and writes in one round trip instead of reading first. Never trusted
// beyond that: the write applies only if the order's version (and the shop's having a webhook)
// are still the ones planned from, and a refusal (404, 400, 409) or a no-op is never answered
// from here, only from a fresh read. So a stale entry (another process acted on the order)
// costs one write that finds nothing, then the usual read.
import type { OrderItemRow, ShipmentData } from './orders.repository.ts';

/** An order as an action reads it: one row per item (see readOrderItems). */
export type OrderRows = readonly OrderItemRow[];

/** What a write did, as applyChanges was given it, and the id of the shipment it created. */
export interface Written {
  version: number;
  orderStatus: string;
  items: readonly { id: number; status: string; new_shipment: boolean }[];
  shipment: ShipmentData | null;
  shipmentUpdates: readonly (ShipmentData & { id: number })[];
  shipmentId: number | null;
}

/** The order's rows after `w` was written over `rows` (the rows it was planned from). */
export function afterWrite(rows: OrderRows, w: Written): OrderItemRow[] {
  const moved = new Map(w.items.map((u) => [u.id, u]));
  const rewritten = new Map(w.shipmentUpdates.map((s) => [s.id, s]));
  return rows.map((row) => {
    const next: OrderItemRow = { ...row, version: w.version + 1, order_status: w.orderStatus };
    const u = moved.get(row.id);
    if (u !== undefined) {
      next.status = u.status;
      if (u.new_shipment && w.shipment !== null) Object.assign(next, shipmentOf(w.shipment), { shipment_id: w.shipmentId });
    }
    const s = next.shipment_id === null ? undefined : rewritten.get(next.shipment_id);
    if (s !== undefined) Object.assign(next, shipmentOf(s));
    return next;
  });
}

const shipmentOf = (s: ShipmentData): ShipmentData =>
  ({ carrier: s.carrier, tracking_code: s.tracking_code, delivery_time: s.delivery_time, comments: s.comments });

/** At most `max` orders, the least recently used dropped first (about 1 KB each). */
export class RecentOrders {
  readonly #max: number;
  readonly #orders = new Map<string, OrderRows>();

  constructor(max: number) {
    this.#max = max;
  }

  static key(shopPk: number, marketplacePk: number, orderPk: number): string {
    return `${shopPk}/${marketplacePk}/${orderPk}`;
  }

  get(key: string): OrderRows | undefined {
    return this.#orders.get(key);
  }

  set(key: string, rows: OrderRows): void {
    if (this.#max === 0) return;
    this.#orders.delete(key);
    this.#orders.set(key, rows);
    if (this.#orders.size > this.#max) this.#orders.delete(this.#orders.keys().next().value!);
  }

  delete(key: string): void {
    this.#orders.delete(key);
  }
}
