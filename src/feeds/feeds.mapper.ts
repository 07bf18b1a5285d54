// A feed row -> the feed as services hand it on (results added by the reader). Pure functions, no queries.
import type { FeedRow } from './feeds.repository.ts';
import type { Feed, FeedState, FeedType } from './feeds.schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A feed's pk is a UUID: anything else names no feed (and is never sent to the database). */
export const isFeedPk = (pk: string): boolean => UUID.test(pk);

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export const toFeed = (row: FeedRow): Feed => ({
  pk: row.pk,
  shop_pk: row.shop_pk,
  type: row.type as FeedType,
  state: row.state as FeedState,
  source: row.source,
  product_pk: row.product_pk,
  variation_pk: row.variation_pk,
  created_at: row.created_at.toISOString(),
  started_at: iso(row.started_at),
  finished_at: iso(row.finished_at),
  counts: { total: row.total, processed: row.processed, succeeded: row.succeeded, failed: row.failed, warnings: row.warnings },
});
