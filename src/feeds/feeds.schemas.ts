// A feed as the API shows it (INTERFACE.md, Feeds): state plus the Wait/Complete/Error status
// existing clients read, counts, and per-item results.
import { Type, type Static } from 'typebox';
import { ItemError, ItemSuccess } from '../catalog/apply/items.ts';
import { FEED_TYPES, type FeedOperationName } from '../catalog/apply/operations.ts';

/**
 * A feed's operation: a name of the table of feed operations (catalog/apply/operations.ts). A
 * union built from a list is typed `never` by TypeBox, hence Unsafe with the names' type.
 */
export const FeedType = Type.Unsafe<FeedOperationName>(Type.Union(FEED_TYPES.map((name) => Type.Literal(name))));
export type FeedType = Static<typeof FeedType>;

export const FeedState = Type.Union([Type.Literal('queued'), Type.Literal('processing'), Type.Literal('done'), Type.Literal('failed')]);
export type FeedState = Static<typeof FeedState>;

/** What clients of the seed read: Wait until finished, then Complete (done) or Error (failed). */
export const FeedStatus = Type.Union([Type.Literal('Wait'), Type.Literal('Complete'), Type.Literal('Error')]);
export type FeedStatus = Static<typeof FeedStatus>;

/** Why a feed as a whole failed. */
export const FeedCritical = Type.Object({ code: Type.String(), message: Type.String() });
export type FeedCritical = Static<typeof FeedCritical>;

export const FeedCounts = Type.Object({
  total: Type.Integer(),
  processed: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  warnings: Type.Integer(),
});
export type FeedCounts = Static<typeof FeedCounts>;

export const FeedResult = Type.Object({
  // What the apply functions report per item (catalog/apply/items.ts).
  success: Type.Array(ItemSuccess),
  errors: Type.Array(ItemError),
  criticals: Type.Array(FeedCritical),
});
export type FeedResult = Static<typeof FeedResult>;

const nullableInt = Type.Union([Type.Integer(), Type.Null()]);

const TIMES = 'YYYY-MM-DDThh:mm:ss, UTC (the admin API: ISO 8601)';

const summaryFields = {
  pk: Type.String({ description: 'feed id: the last segment of the Location URL' }),
  url: Type.String(),
  shop_pk: Type.Integer(),
  type: FeedType,
  state: FeedState,
  status: FeedStatus,
  /** 'key:<prefix>' (API) or 'connector:<name>'. */
  source: Type.String(),
  product_pk: nullableInt,
  variation_pk: nullableInt,
  // The marketplace API: YYYY-MM-DDThh:mm:ss, UTC (presentApi); the admin API: ISO 8601.
  created_at: Type.String({ description: TIMES }),
  started_at: Type.Union([Type.String({ description: TIMES }), Type.Null()]),
  finished_at: Type.Union([Type.String({ description: TIMES }), Type.Null()]),
  counts: FeedCounts,
};

/** A feed in lists: everything but the per-item results. */
export const FeedSummaryJson = Type.Object(summaryFields);
export type FeedSummaryJson = Static<typeof FeedSummaryJson>;

export const FeedJson = Type.Object({ ...summaryFields, result: FeedResult });
export type FeedJson = Static<typeof FeedJson>;

/** A feed as services hand it around; `present()` adds url and status for the API. */
export interface Feed {
  pk: string;
  shop_pk: number;
  type: FeedType;
  state: FeedState;
  source: string;
  product_pk: number | null;
  variation_pk: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  counts: FeedCounts;
  /** Per-item results; absent in lists. */
  result?: FeedResult;
}

export interface FeedFilter {
  shopPk?: number;
  type?: FeedType;
  state?: FeedState;
  /** created_at >= since */
  since?: Date;
  /** created_at < until */
  until?: Date;
  /** Feeds whose items name this sku. */
  sku?: string;
  /** true: only feeds with failed items (the admin's "partial": done with item errors); false: only those without. */
  itemErrors?: boolean;
  limit: number;
  offset: number;
}
