// WooCommerce REST API v3: GET /wp-json/wc/v3/products (modified_after, per_page, page;
// X-WP-TotalPages says how many pages), and /products/{id}/variations for variable products.
// Keys as HTTP Basic (consumer key : consumer secret), which WooCommerce accepts over https.
import { joinUrl, type Api } from '../sdk/index.ts';
import type { WooProduct, WooVariation } from './map.ts';

/** Items per page: the API's maximum. */
export const PER_PAGE = 100;

export interface WooClient {
  api: Api;
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

const headers = (c: WooClient): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${c.consumerKey}:${c.consumerSecret}`).toString('base64')}`,
});

/** Every page of a list, following X-WP-TotalPages (absent: one page). */
async function* pagesOf<T>(c: WooClient, path: string, query: Record<string, string>): AsyncGenerator<T[]> {
  for (let page = 1; ; page++) {
    const params = new URLSearchParams({ ...query, per_page: String(PER_PAGE), page: String(page) });
    const res = await c.api({ url: `${joinUrl(c.baseUrl, path)}?${params}`, headers: headers(c) });
    const items = Array.isArray(res.body) ? (res.body as T[]) : [];
    yield items;
    const total = Number(res.header('x-wp-totalpages') ?? 1);
    if (page >= total || items.length === 0) return;
  }
}

/**
 * Products changed after `since` (null: all), oldest id first (a stable order while paging);
 * `status=any` leaves out the trash, so trashed products (deletions) are a second listing.
 */
export async function* wooProducts(c: WooClient, since: Date | null): AsyncGenerator<WooProduct[]> {
  const changed: Record<string, string> =
    since === null ? {} : { modified_after: since.toISOString().replace(/\.\d{3}Z$/, ''), dates_are_gmt: 'true' };
  for (const status of ['any', 'trash']) {
    yield* pagesOf<WooProduct>(c, '/wp-json/wc/v3/products', { ...changed, status, orderby: 'id', order: 'asc' });
  }
}

export async function wooVariations(c: WooClient, productId: number): Promise<WooVariation[]> {
  const all: WooVariation[] = [];
  for await (const page of pagesOf<WooVariation>(c, `/wp-json/wc/v3/products/${productId}/variations`, { orderby: 'id', order: 'asc' }))
    all.push(...page);
  return all;
}
