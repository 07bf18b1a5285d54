// The rules of carrier tracking: which shipments a tracking connector checks, storing what the
// carrier said (events deduplicated), and turning it into an order action applied through the
// order service, exactly as an API client would (source `connector:<name>`).
import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { actionFor, isFinal, type OrderActions, type TrackingAction } from './tracking-actions.ts';
import { toStoredEvent } from './tracking-events.ts';
import * as repo from './tracking.repository.ts';
import type {
  RecordOutcome,
  SelectOptions,
  ShipmentTracking,
  TrackedShipment,
  TrackingEvent,
  TrackingResult,
  TrackingStatus,
} from './tracking.schemas.ts';

const toShipment = (r: repo.TrackedRow): TrackedShipment => ({
  id: r.id,
  shopPk: r.shop_pk,
  marketplacePk: r.marketplace_pk,
  orderPk: r.order_pk,
  carrier: r.carrier,
  trackingCode: r.tracking_code,
  itemPks: r.item_pks.map(Number),
  itemsDelivered: r.items_delivered,
  lastAction: r.last_action,
});

/** One key per event content: the same event from a re-poll or a webhook is stored once. */
export const eventKey = (e: TrackingEvent): string =>
  createHash('sha256')
    .update(JSON.stringify([e.occurredAt.toISOString(), e.carrierCode, e.carrierText, e.location, e.status]))
    .digest('hex');

export interface RecordOptions {
  /** The connector's name (the source of actions and events). */
  connector: string;
  followDeliveredDays: number;
}

export class TrackingService {
  readonly #db: Db;
  /** Applies the order actions tracking implies, with the API's rules. */
  readonly #orders: OrderActions;

  constructor(db: Db, orders: OrderActions) {
    this.#db = db;
    this.#orders = orders;
  }

  /** The next shipments to check: of these carriers, not final, never checked or checked longest ago. */
  async due(o: SelectOptions): Promise<TrackedShipment[]> {
    if (o.carriers.length === 0) return [];
    const interval = new Date(Date.now() - o.minIntervalSeconds * 1000);
    const cutoff = interval < o.checkedBefore ? interval : o.checkedBefore;
    const rows = await repo.dueShipments(this.#db, {
      carriers: o.carriers,
      shopPk: o.shopPk,
      cutoff,
      followDeliveredDays: o.followDeliveredDays,
      limit: o.limit,
    });
    return rows.map(toShipment);
  }

  /**
   * The tracked shipments with a tracking code (pushed updates name the parcel only), of one
   * shop: a parcel is one shop's (ship refuses another shop's open parcel). Should older data
   * hold it on several shops' shipments, it is the shop's that claimed it first among the open
   * ones (a copied number comes later than the parcel's own).
   */
  async byTrackingCode(carriers: string[], shopPk: number | null, trackingCode: string): Promise<TrackedShipment[]> {
    if (carriers.length === 0) return [];
    const rows = await repo.byTrackingCode(this.#db, carriers, shopPk, trackingCode);
    const open = rows.filter((r) => !r.final);
    const owner = (open.length > 0 ? open : rows).reduce<repo.TrackedRow | null>((a, r) => (a === null || r.id < a.id ? r : a), null);
    return rows.filter((r) => r.shop_pk === owner?.shop_pk).map(toShipment);
  }

  /**
   * Stores what the carrier said and applies the order action it means. An action is tried
   * once per change of meaning (not on every poll); one the state table refuses (409) becomes
   * a tracking event with a warning, never an error: the carrier will say the same again.
   */
  async record(shipment: TrackedShipment, result: TrackingResult, o: RecordOptions): Promise<RecordOutcome> {
    const source = `connector:${o.connector}` as const;
    const late = outOfOrder(result.events);
    const events = result.events.map((e) => ({
      shipment_id: shipment.id,
      occurred_at: e.occurredAt,
      status: e.status,
      carrier_code: e.carrierCode,
      carrier_text: e.carrierText,
      location: e.location,
      warning: late.has(e) ? OUT_OF_ORDER : null,
      source,
      dedupe_key: eventKey(e),
    }));
    // A status without events (a parcel just announced): the status is the timeline's one
    // event, dated when first seen, stored once per status.
    if (events.length === 0 && result.status !== 'unknown') {
      events.push({
        shipment_id: shipment.id,
        occurred_at: new Date(),
        status: result.status,
        carrier_code: result.carrierStatus,
        carrier_text: null,
        location: null,
        warning: null,
        source,
        dedupe_key: `status:${result.status}:${result.carrierStatus ?? ''}`,
      });
    }
    const final = isFinal(result.status, result.finalFailure, o.followDeliveredDays);
    const newEvents = await repo.saveCheck(
      this.#db,
      {
        shipment_id: shipment.id,
        connector: o.connector,
        status: result.status,
        carrier_status: result.carrierStatus,
        final,
        delivered: result.status === 'delivered',
      },
      dedupeRows(events),
    );
    const deliveredBefore = shipment.itemsDelivered || result.events.some((e) => e.status === 'delivered');
    const action = actionFor(result, deliveredBefore);
    const outcomeBase = { newEvents, outOfOrder: late.size };
    if (action === null || action === shipment.lastAction) return { ...outcomeBase, action, applied: false, refused: false };
    // A delivery and a return both seen in one look (items never marked delivered): the
    // delivery first, so the return is a move the state table allows.
    const steps: TrackingAction[] = action === 'returned' && !shipment.itemsDelivered ? ['delivered', 'returned'] : [action];
    let refused = false;
    for (const step of steps) {
      try {
        await this.#orders.applyAction({
          shopPk: shipment.shopPk,
          marketplacePk: shipment.marketplacePk,
          orderPk: shipment.orderPk,
          action: step,
          items: shipment.itemPks,
          source,
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 409) throw error;
        refused = true;
        await repo.insertEvents(this.#db, [
          {
            shipment_id: shipment.id,
            occurred_at: new Date(),
            status: result.status,
            carrier_code: result.carrierStatus,
            carrier_text: null,
            location: null,
            warning: `order action ${step} refused: ${error.message}`,
            source,
            dedupe_key: `refused:${step}:${result.status}`,
          },
        ]);
        break;
      }
    }
    // A final shipment is never polled again, so nothing can loop on it: no need to remember
    // (a pushed repeat re-applies a no-op, or a refusal whose warning is already stored).
    if (!final) await repo.setLastAction(this.#db, shipment.id, action);
    return { ...outcomeBase, action, applied: !refused, refused };
  }

  /** A check that failed (the carrier refused it, or retries ran out): kept against the shipment. */
  async recordError(shipmentId: number, connector: string, message: string): Promise<void> {
    await repo.saveError(this.#db, shipmentId, connector, message.slice(0, 1000));
  }

  /** A shipment's tracking state and events (null: never checked). */
  async get(shipmentId: number): Promise<ShipmentTracking | null> {
    const state = await repo.getState(this.#db, shipmentId);
    if (state === undefined) return null;
    const events = await repo.listEvents(this.#db, shipmentId);
    return {
      shipment_id: state.shipment_id,
      status: state.status as TrackingStatus,
      carrier_status: state.carrier_status,
      final: state.final,
      checks: state.checks,
      last_checked_at: state.last_checked_at?.toISOString() ?? null,
      last_error: state.last_error,
      error_count: state.error_count,
      events: events.map(toStoredEvent),
    };
  }
}

/** Where a parcel's story puts a status: a later stage never happens before an earlier one. */
const STAGE: Partial<Record<TrackingStatus, number>> = {
  pre_transit: 0,
  in_transit: 1,
  out_for_delivery: 1,
  available_for_pickup: 1,
  failed_attempt: 1,
  delivered: 2,
};

export const OUT_OF_ORDER = "dated before an event it follows (the carrier's clock or sample data); kept as dated";

/**
 * Events dated before an event they logically follow: a delivery dated before the parcel was in
 * transit, a transit scan before its label. Kept as the carrier dated them (lists show time
 * order) and marked, never reordered silently. Returns, exceptions and unknowns have no stage.
 */
export function outOfOrder(events: readonly TrackingEvent[]): Set<TrackingEvent> {
  const out = new Set<TrackingEvent>();
  for (const e of events) {
    const stage = STAGE[e.status];
    if (stage === undefined) continue;
    if (
      events.some((f) => {
        const s = STAGE[f.status];
        return s !== undefined && s < stage && f.occurredAt > e.occurredAt;
      })
    )
      out.add(e);
  }
  return out;
}

/** A carrier listing the same event twice in one answer: one row (a multi-row insert may not hit a key twice). */
const dedupeRows = <T extends { dedupe_key: string }>(rows: T[]): T[] => [...new Map(rows.map((r) => [r.dedupe_key, r])).values()];
