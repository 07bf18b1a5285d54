// catalog-shopify against Shopify's Admin GraphQL API (nock, answers shaped like its reference):
// cursor pagination, products with variants, images and options, the query-cost throttle waited
// out, incremental runs by updated_at, a failure half-way and its resume, archived as deletion.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { onlyNockedNetwork } from '../tracking/helpers.ts';
import { pullFixture, pullShop } from './pull-helpers.ts';

process.env.WB_TEST_SHOPIFY_TOKEN = 'shpat_test';
const shopify = (name: string, host: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-shopify',
  shop_pk: 1,
  schedule: '0 0 1 1 *',
  options: { base_url: `https://${host}`, access_token_env: 'WB_TEST_SHOPIFY_TOKEN', retries: 0, ...options },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      shopify('shopify', 'acme.myshopify.test'),
      shopify('shopify-throttle', 'busy.myshopify.test'),
      shopify('shopify-delete', 'del.myshopify.test', { on_delete: 'delete', api_version: '2025-10' }),
    ]),
  },
});
const shop = await pullShop(daemon);
onlyNockedNetwork();

interface Vars {
  first: number;
  after: string | null;
  query: string | null;
}
const page1 = pullFixture('catalog-shopify', 'products-page-1.json') as object;
const page2 = pullFixture('catalog-shopify', 'products-page-2.json') as object;
const CURSOR = 'eyJsYXN0X2lkIjo4MDAxLCJsYXN0X3ZhbHVlIjoiMjAyNi0xMS0yMCJ9';

/** One GraphQL answer for the page asked `after` that cursor; each query's variables recorded. */
function graphql(host: string, after: string | null, status: number, body: object, seen: Vars[] = [], version = '2025-07') {
  return nock(`https://${host}`, { reqheaders: { 'x-shopify-access-token': 'shpat_test' } })
    .post(
      `/admin/api/${version}/graphql.json`,
      (b: { query: string; variables: Vars }) => b.query.includes('products(') && b.variables.after === after && b.variables.first === 50,
    )
    .reply(status, body)
    .on('request', (_req: unknown, _i: unknown, raw: string) => seen.push((JSON.parse(raw) as { variables: Vars }).variables));
}

describe('runs', () => {
  it('a first run reads both pages by cursor; simple products, variants with options, archived out of stock', async () => {
    const seen: Vars[] = [];
    graphql('acme.myshopify.test', null, 200, page1, seen);
    graphql('acme.myshopify.test', CURSOR, 200, page2, seen);
    const run = await shop.run('shopify');
    expect(seen.map((v) => v.query)).toEqual([null, null]);
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { requests: 2, pages_fetched: 2, products_changed: 3 } });
    expect(await shop.product('SWEATER-1')).toMatchObject({
      name: 'Draft Sweater',
      description: '<p>A warm sweater.</p>',
      brand: 'Acme',
      category: 'Sweaters',
      price: 45,
      stock: 8,
      images: [{ url: 'https://cdn.shopify.com/s/files/1/0001/sweater.jpg', position: 0 }],
    });
    const element = await shop.product('element');
    expect(element).toMatchObject({ name: 'Element', price: 60, stock: 7 });
    expect(element!.variations).toMatchObject([
      { sku: 'ELEMENT-80', size: '8.0', color: 'Black', price: 60, stock: 2 },
      { sku: 'shopify-113711324', size: '8.25', color: 'Black', price: 62, stock: 5 },
    ]);
    expect(await shop.product('HAT-OLD')).toMatchObject({ name: 'Old Hat', stock: 0, availability: 'out_of_stock' });
  });

  it('a failure on page 2: the run fails, the cursor stays; the next run asks from the same point and sends only what is new', async () => {
    const first: Vars[] = [];
    graphql('acme.myshopify.test', null, 200, page1, first);
    graphql('acme.myshopify.test', CURSOR, 502, { errors: 'Bad Gateway' });
    const failed = await shop.run('shopify');
    expect(failed).toMatchObject({ outcome: 'failed', counts: { pages_fetched: 1, products_unchanged: 2 } });
    expect(failed.error).toMatch(/^Shopify did not answer \(HTTP 502/);
    // The latest updatedAt accepted (2026-11-21T10:15:42Z) less overlap_seconds 60.
    expect(first[0]!.query).toBe("updated_at:>'2026-11-21T10:14:42Z'");

    const again: Vars[] = [];
    const hat = JSON.parse(JSON.stringify(page2)) as { data: { products: { nodes: { status: string; updatedAt: string }[] } } };
    Object.assign(hat.data.products.nodes[0]!, { status: 'ACTIVE', updatedAt: '2026-11-22T08:00:00Z' });
    graphql('acme.myshopify.test', null, 200, page1, again);
    graphql('acme.myshopify.test', CURSOR, 200, hat);
    const resumed = await shop.run('shopify');
    expect(again[0]!.query).toBe(first[0]!.query);
    expect(resumed).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2, products_changed: 1, products_unchanged: 2 } });
    expect(await shop.product('HAT-OLD')).toMatchObject({ stock: 3 });
  });

  it("the query-cost throttle: a THROTTLED answer is waited out until the bucket holds the query's cost, then asked again", async () => {
    const single = JSON.parse(JSON.stringify(page2)) as { data: { products: { pageInfo: { hasNextPage: boolean } } } };
    graphql('busy.myshopify.test', null, 200, pullFixture('catalog-shopify', 'throttled.json') as object);
    graphql('busy.myshopify.test', null, 200, single);
    const run = await shop.run('shopify-throttle');
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { requests: 2, throttle_waits: 1, pages_fetched: 1 } });
    // (252 - 2) points at 1000 a second.
    expect(run.duration_ms).toBeGreaterThanOrEqual(250);
  });

  it("on_delete delete: an archived product is deleted; the pinned api_version is the entry's", async () => {
    const single = JSON.parse(JSON.stringify(page2)) as { data: { products: { nodes: { status: string }[] } } };
    single.data.products.nodes[0]!.status = 'ACTIVE';
    graphql('del.myshopify.test', null, 200, single, [], '2025-10');
    await shop.run('shopify-delete', true);
    const archived = JSON.parse(JSON.stringify(page2)) as { data: { products: { nodes: { updatedAt: string }[] } } };
    archived.data.products.nodes[0]!.updatedAt = '2026-11-23T08:00:00Z';
    graphql('del.myshopify.test', null, 200, archived, [], '2025-10');
    const run = await shop.run('shopify-delete');
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { products_deleted: 1 } });
    expect(await shop.product('HAT-OLD')).toBeUndefined();
  });
});
