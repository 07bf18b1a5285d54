// What the catalog connectors need of the feed service (issue 3's `services.feeds`): submit
// a product_create feed, and its public JSON for a Location reply.
import type { Services } from '../../services.ts';

export interface SubmittedFeed {
  pk: string | number;
}

export interface FeedsPort {
  submit(input: { shopPk: number; type: 'product_create'; items: unknown[]; source: string }): Promise<SubmittedFeed>;
  present?(feed: SubmittedFeed, baseUrl: string): unknown;
}

/** The feed service of `services`, seen through the port above. */
export function feedsOf(services: Services): FeedsPort {
  const feeds = (services as unknown as { feeds?: FeedsPort }).feeds;
  if (feeds === undefined) throw new Error('the feed service is not available in this build');
  return feeds;
}

/** `{base_url}/feeds/{feed_id}/`, the feed's Location. */
export const feedUrl = (baseUrl: string, pk: string | number): string => `${baseUrl}/feeds/${pk}/`;
