// Shopify Admin GraphQL API: POST {base_url}/admin/api/{version}/graphql.json with the
// X-Shopify-Access-Token header. Products updated after the cursor, sorted by UPDATED_AT, 50 a
// page with cursor pagination (pageInfo.endCursor). Shopify limits by query cost: each answer's
// extensions.cost.throttleStatus says how many points are left and how fast they come back;
// a THROTTLED answer is asked again once the bucket holds the query's cost, and a page that
// would not fit waits for it first, so the shop's limit is never hit twice.
import { setTimeout as sleep } from 'node:timers/promises';
import { joinUrl, userError, type Api } from '../sdk/index.ts';
import type { ShopifyProduct } from './map.ts';

/** Products per page (each brings up to 100 variants and 20 images: about 200-300 points). */
export const PAGE_SIZE = 50;
/** Longest wait for the bucket to refill, ms (a full bucket refills in 20 s at the standard 50 points/s). */
const MAX_REFILL_WAIT_MS = 60_000;

export const PRODUCTS_QUERY = `query Products($first: Int!, $after: String, $query: String) {
  products(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id handle title descriptionHtml vendor productType status updatedAt
      options { name values }
      images(first: 20) { nodes { url } }
      variants(first: 100) { nodes { id sku price inventoryQuantity selectedOptions { name value } image { url } } }
    }
  }
}`;

interface Cost {
  requestedQueryCost?: number;
  throttleStatus?: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
}
interface GraphqlAnswer {
  data?: { products?: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ShopifyProduct[] } };
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions?: { cost?: Cost };
}

export interface ShopifyClient {
  api: Api;
  baseUrl: string;
  apiVersion: string;
  accessToken: string;
  signal: AbortSignal;
  /** Told of each wait for the cost bucket, ms. */
  onWait?(ms: number): void;
}

/** Ms until the bucket holds `needed` points. */
const refillMs = (cost: Cost | undefined, needed: number): number => {
  const t = cost?.throttleStatus;
  if (t === undefined || t.currentlyAvailable >= needed) return 0;
  return Math.min(MAX_REFILL_WAIT_MS, Math.ceil(((needed - t.currentlyAvailable) / t.restoreRate) * 1000));
};

export async function* shopifyProducts(c: ShopifyClient, since: Date | null): AsyncGenerator<ShopifyProduct[]> {
  const url = joinUrl(c.baseUrl, `/admin/api/${c.apiVersion}/graphql.json`);
  const query = since === null ? null : `updated_at:>'${since.toISOString().replace(/\.\d{3}Z$/, 'Z')}'`;
  let after: string | null = null;
  let lastCost: Cost | undefined;
  for (;;) {
    // The last page's cost is the best guess of this one's: wait until it fits.
    const before = refillMs(lastCost, lastCost?.requestedQueryCost ?? 0);
    if (before > 0) {
      c.onWait?.(before);
      await sleep(before, undefined, { signal: c.signal });
    }
    const res = await c.api({
      method: 'POST',
      url,
      headers: { 'x-shopify-access-token': c.accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query: PRODUCTS_QUERY, variables: { first: PAGE_SIZE, after, query } }),
    });
    const answer = res.body as GraphqlAnswer;
    lastCost = answer.extensions?.cost;
    if (answer.errors?.some((e) => e.extensions?.code === 'THROTTLED') === true) {
      // At least a moment, should an answer lack its cost.
      const wait = Math.max(refillMs(lastCost, lastCost?.requestedQueryCost ?? 0), 250);
      c.onWait?.(wait);
      await sleep(wait, undefined, { signal: c.signal });
      // Waited for this very cost already.
      lastCost = undefined;
      continue;
    }
    if (answer.errors !== undefined && answer.errors.length > 0)
      throw userError(
        `Shopify refused the products query: ${answer.errors
          .map((e) => e.message)
          .join('; ')
          .slice(0, 300)}`,
      );
    const products = answer.data?.products;
    if (products === undefined) throw userError('Shopify answered the products query without data.products.');
    yield products.nodes;
    if (!products.pageInfo.hasNextPage || products.pageInfo.endCursor === null) return;
    after = products.pageInfo.endCursor;
  }
}
