// A carrier's pushed update (a webhook naming one parcel by its tracking code), applied to the
// shipments of that parcel the connector looks after (its shop's only, with a shop_pk), as
// polling would: events stored, the order action applied, counted in the run.
import type { TrackedShipment, TrackingResult } from '../../../src/tracking/tracking.schemas.ts';
import type { ReceiverContext } from '../contract.ts';

export interface PushedUpdate {
  trackingCode: string;
  result: TrackingResult;
  /** Keeps only the shipments this update is for (e.g. AfterShip's slug); default all. */
  matches?: (s: TrackedShipment) => boolean;
}

export async function applyPushed(
  ctx: ReceiverContext<{ carriers: string[]; follow_delivered_days: number }>,
  u: PushedUpdate,
): Promise<{ shipments: number; actions: string[] }> {
  const o = ctx.options;
  const shipments = (await ctx.tracking.byTrackingCode(o.carriers, ctx.shopPk, u.trackingCode)).filter((s) => u.matches?.(s) ?? true);
  const actions: string[] = [];
  for (const s of shipments) {
    const outcome = await ctx.tracking.record(s, u.result, { followDeliveredDays: o.follow_delivered_days });
    ctx.report.count('webhook_updates');
    if (outcome.newEvents > 0) ctx.report.count('events_new', outcome.newEvents);
    if (outcome.outOfOrder > 0) {
      ctx.report.count('events_out_of_order', outcome.outOfOrder);
      ctx.log.warn(
        { shipment: s.id, trackingCode: u.trackingCode, events: outcome.outOfOrder },
        'the carrier dated events before events they follow; kept as dated, with a warning',
      );
    }
    if (outcome.applied) {
      ctx.report.count(`action_${outcome.action}`);
      actions.push(outcome.action!);
    }
    if (outcome.refused) ctx.report.count('actions_refused');
  }
  return { shipments: shipments.length, actions };
}
