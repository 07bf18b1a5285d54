// Which order action a carrier's status means (INTERFACE.md, Connectors): delivered ->
// delivered; returned to sender, or a final failure, before delivery -> not_delivered; a return
// after delivery -> returned; every other status is recorded only.
import type { TrackingResult, TrackingStatus } from './tracking.schemas.ts';

/** The order actions tracking applies (names of the order state table's actions). */
export type TrackingAction = 'delivered' | 'not_delivered' | 'returned';

/**
 * How tracking moves orders: the order service, seen through the one method tracking uses
 * (tracking depends on orders; orders read tracking's events, never its rules).
 */
export interface OrderActions {
  applyAction(input: {
    shopPk: number;
    marketplacePk: number;
    orderPk: number;
    action: TrackingAction;
    items: number[];
    source: `connector:${string}`;
  }): Promise<unknown>;
}

export function actionFor(result: Pick<TrackingResult, 'status' | 'finalFailure'>, deliveredBefore: boolean): TrackingAction | null {
  if (result.status === 'delivered') return 'delivered';
  if (result.status === 'returned_to_sender') return deliveredBefore ? 'returned' : 'not_delivered';
  if (result.finalFailure) return deliveredBefore ? null : 'not_delivered';
  return null;
}

/**
 * No more polling once the parcel's story is over: returned to sender, lost, or delivered
 * (unless returns are followed after delivery, see followDeliveredDays).
 */
export const isFinal = (status: TrackingStatus, finalFailure: boolean, followDeliveredDays: number): boolean =>
  status === 'returned_to_sender' || finalFailure || (status === 'delivered' && followDeliveredDays === 0);
