// How a feed reads to clients: its URL, the status they read, and the timestamps of the
// marketplace API (the admin API keeps ISO 8601).
import { formatTimestamp } from '../validation/timestamp.ts';
import type { Feed, FeedJson, FeedState, FeedSummaryJson } from './feeds.schemas.ts';

export const statusOf: Record<FeedState, FeedJson['status']> = { queued: 'Wait', processing: 'Wait', done: 'Complete', failed: 'Error' };

export const feedUrl = (baseUrl: string, pk: string): string => `${baseUrl}/feeds/${pk}/`;

/** The public JSON of a feed: adds its URL under `baseUrl` and the status clients read. */
export function present(feed: Feed, baseUrl: string): FeedJson;
export function present(feed: Feed, baseUrl: string, summary: true): FeedSummaryJson;
export function present(feed: Feed, baseUrl: string, summary = false): FeedJson | FeedSummaryJson {
  const { result, ...rest } = feed;
  const base = { ...rest, url: feedUrl(baseUrl, feed.pk), status: statusOf[feed.state] };
  return summary ? base : { ...base, result: result ?? { success: [], errors: [], criticals: [] } };
}

/** A feed as the marketplace API answers it: `present` with its timestamps in the API's form. */
export function presentApi(feed: Feed, baseUrl: string): FeedJson;
export function presentApi(feed: Feed, baseUrl: string, summary: true): FeedSummaryJson;
export function presentApi(feed: Feed, baseUrl: string, summary = false): FeedJson | FeedSummaryJson {
  const at = (t: string | null): string | null => (t === null ? null : formatTimestamp(new Date(t)));
  const shown = { ...feed, created_at: at(feed.created_at)!, started_at: at(feed.started_at), finished_at: at(feed.finished_at) };
  return summary ? present(shown, baseUrl, true) : present(shown, baseUrl);
}
