// catalog-woocommerce against WooCommerce's REST API v3 (nock, answers shaped like its
// documentation): a first run, the next runs incremental by the cursor, paging by
// X-WP-TotalPages, variations, a failure half-way and its resume, trash as a deletion, --full,
// throttling, refused credentials and the plain-http rule.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { onlyNockedNetwork } from '../tracking/helpers.ts';
import { pullFixture, pullShop } from './pull-helpers.ts';

process.env.WB_TEST_WOO_KEY = 'ck_test';
process.env.WB_TEST_WOO_SECRET = 'cs_test';
const woo = (name: string, host: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-woocommerce',
  shop_pk: 1,
  schedule: '0 0 1 1 *',
  options: {
    base_url: `https://${host}`,
    consumer_key_env: 'WB_TEST_WOO_KEY',
    consumer_secret_env: 'WB_TEST_WOO_SECRET',
    retries: 0,
    weight_unit: 'kg',
    dimensions_unit: 'cm',
    ...options,
  },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      woo('woo', 'shop.example.test'),
      woo('woo-delete', 'del.example.test', { on_delete: 'delete' }),
      woo('woo-oos', 'oos.example.test'),
      woo('woo-throttle', 'throttle.example.test'),
      woo('woo-plain', 'plain.example.test', { base_url: 'http://93.184.216.34' }),
      woo('woo-local', 'local', { base_url: 'http://127.0.0.1:9' }),
    ]),
  },
});
const shop = await pullShop(daemon);
onlyNockedNetwork();

const BASIC = `Basic ${Buffer.from('ck_test:cs_test').toString('base64')}`;
type Query = Record<string, string>;

/** One products listing answer; `seen` collects each query asked. */
function products(
  host: string,
  status: string,
  pages: unknown[][],
  seen: Query[] = [],
  fail?: { page: number; status: number; headers?: Record<string, string> },
) {
  const scope = nock(`https://${host}`).matchHeader('authorization', BASIC);
  pages.forEach((body, i) => {
    const page = i + 1;
    const match = (q: Query) => q.status === status && q.page === String(page) && q.per_page === '100';
    if (fail?.page === page)
      scope
        .get('/wp-json/wc/v3/products')
        .query(match)
        .reply(fail.status, { code: 'internal_server_error', message: 'Error', data: { status: fail.status } }, fail.headers);
    else
      scope
        .get('/wp-json/wc/v3/products')
        .query((q: Query) => match(q) && (seen.push(q), true))
        .reply(200, body, { 'X-WP-Total': String(pages.flat().length), 'X-WP-TotalPages': String(pages.length) });
  });
  return scope;
}
const variations = (host: string) =>
  nock(`https://${host}`)
    .matchHeader('authorization', BASIC)
    .get('/wp-json/wc/v3/products/799/variations')
    .query(true)
    .reply(200, pullFixture('catalog-woocommerce', 'variations-799.json') as unknown[], { 'X-WP-TotalPages': '1' });
const page1 = pullFixture('catalog-woocommerce', 'products-page-1.json') as Record<string, unknown>[];
const page2 = pullFixture('catalog-woocommerce', 'products-page-2.json') as Record<string, unknown>[];

describe('a first run, then incremental runs', () => {
  it('reads every page and the variations; the products arrive as WooCommerce shows them', async () => {
    const seen: Query[] = [];
    const scopes = [
      products('shop.example.test', 'any', [page1, page2], seen),
      products('shop.example.test', 'trash', [[]]),
      variations('shop.example.test'),
    ];
    const run = await shop.run('woo');
    for (const s of scopes) expect(s.isDone()).toBe(true);
    expect(seen.every((q) => q.modified_after === undefined)).toBe(true);
    expect(run).toMatchObject({
      outcome: 'succeeded',
      counts: { pages_fetched: 3, requests: 4, products_changed: 3, products_unchanged: 0 },
    });
    expect(await shop.product('WOO-PQ-1')).toMatchObject({
      sku: 'WOO-PQ-1',
      name: 'Premium Quality',
      price: 21.99,
      stock: 12,
      availability: 'in_stock',
      weight: 0.4,
      weight_unit: 'kg',
      width: 20,
      height: 2,
      depth: 30,
      dimensions_unit: 'cm',
      categories: 'Clothing',
      material: 'Cotton',
      images: [
        { url: 'https://shop.example.com/wp-content/uploads/2017/03/T_2_front-4.jpg', position: 0 },
        { url: 'https://shop.example.com/wp-content/uploads/2017/03/T_2_back-2.jpg', position: 1 },
      ],
    });
    const variable = await shop.product('WOO-SYI');
    // A variable product: the lowest price and the sum of the stock of its variations.
    expect(variable).toMatchObject({ name: 'Ship Your Idea', price: 9, stock: 4 });
    expect(variable!.variations).toMatchObject([
      { sku: 'WOO-SYI-BLACK', color: 'Black', price: 9, stock: 4, availability: 'in_stock' },
      { sku: 'WOO-SYI-GREEN', color: 'Green', stock: 0, availability: 'out_of_stock' },
    ]);
    expect(await shop.product('WOO-MUG')).toMatchObject({ price: 10, stock: 0, availability: 'preorder' });
  });

  it('the next run asks for what changed since the last change seen (less the overlap); unchanged products are not sent again', async () => {
    const seen: Query[] = [];
    const mug = { ...page2[0], regular_price: '12.00', date_modified_gmt: '2026-11-22T09:00:00' };
    products('shop.example.test', 'any', [[page1[0], mug]], seen);
    products('shop.example.test', 'trash', [[]]);
    const run = await shop.run('woo');
    // The latest change seen was 2026-11-21T10:15:42 (UTC); overlap_seconds 60.
    expect(seen[0]).toMatchObject({ modified_after: '2026-11-21T10:14:42', dates_are_gmt: 'true' });
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2, products_changed: 1, products_unchanged: 1 } });
    expect(run.feed_pks).toHaveLength(1);
    expect(await shop.product('WOO-MUG')).toMatchObject({ price: 12 });
  });
});

describe('a failure half-way and its resume', () => {
  it('page 2 fails: the run fails and page 1 stays applied; the next run reads from the same cursor and nothing is skipped', async () => {
    const p1 = [{ ...page1[0], sku: 'WOO-R1', date_modified_gmt: '2026-11-23T08:00:00' }];
    const p2 = [{ ...page2[0], sku: 'WOO-R2', date_modified_gmt: '2026-11-23T09:00:00' }];
    const first: Query[] = [];
    products('shop.example.test', 'any', [p1, p2], first, { page: 2, status: 500 });
    const failed = await shop.run('woo');
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatch(/^WooCommerce did not answer \(HTTP 500 \(Error\)\); the run is retried from the last accepted cursor\./);
    expect(failed.counts).toMatchObject({ pages_fetched: 1, products_changed: 1 });
    expect(await shop.product('WOO-R1')).toBeDefined();
    expect(await shop.product('WOO-R2')).toBeUndefined();

    const again: Query[] = [];
    products('shop.example.test', 'any', [p1, p2], again);
    products('shop.example.test', 'trash', [[]]);
    const resumed = await shop.run('woo');
    expect(again[0]!.modified_after).toBe(first[0]!.modified_after);
    expect(resumed).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 3, products_changed: 1, products_unchanged: 1 } });
    expect(await shop.product('WOO-R2')).toMatchObject({ sku: 'WOO-R2' });
  });
});

describe('deletions (trash) follow on_delete', () => {
  const trashed = { ...page2[0], sku: 'WOO-GONE', status: 'trash', date_modified_gmt: '2026-11-24T10:00:00' };
  const alive = { ...page2[0], sku: 'WOO-GONE', stock_quantity: 5, stock_status: 'instock' };

  it('delete: a trashed product is deleted here; created again with the same content, it comes back', async () => {
    products('del.example.test', 'any', [[alive]]);
    products('del.example.test', 'trash', [[]]);
    await shop.run('woo-delete');
    expect(await shop.product('WOO-GONE')).toMatchObject({ stock: 5 });
    products('del.example.test', 'any', [[]]);
    products('del.example.test', 'trash', [[trashed]]);
    const run = await shop.run('woo-delete');
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { products_deleted: 1 } });
    expect(await shop.product('WOO-GONE')).toBeUndefined();
    products('del.example.test', 'any', [[{ ...alive, date_modified_gmt: '2026-11-25T10:00:00' }]]);
    products('del.example.test', 'trash', [[]]);
    expect((await shop.run('woo-delete')).counts).toMatchObject({ products_changed: 1 });
    expect(await shop.product('WOO-GONE')).toMatchObject({ stock: 5 });
  });

  it('out_of_stock (the default): a trashed product stays, with stock 0 and availability out_of_stock', async () => {
    products('oos.example.test', 'any', [[{ ...alive, sku: 'WOO-OOS' }]]);
    products('oos.example.test', 'trash', [[]]);
    await shop.run('woo-oos');
    products('oos.example.test', 'any', [[]]);
    products('oos.example.test', 'trash', [[{ ...trashed, sku: 'WOO-OOS' }]]);
    expect((await shop.run('woo-oos')).counts).toMatchObject({ products_changed: 1 });
    expect(await shop.product('WOO-OOS')).toMatchObject({ stock: 0, availability: 'out_of_stock' });
  });
});

describe('--full, throttling, credentials, addresses', () => {
  it('--full reads everything again: no modified_after; only what differs is sent', async () => {
    const seen: Query[] = [];
    products('shop.example.test', 'any', [page1], seen);
    products('shop.example.test', 'trash', [[]]);
    variations('shop.example.test');
    const run = await shop.run('woo', true);
    expect(seen[0]!.modified_after).toBeUndefined();
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { products_unchanged: 2 } });
    expect(run.counts.products_changed).toBeUndefined();
  });

  it('a 429 with a long Retry-After throttles the connector; the cursor stays', async () => {
    products('throttle.example.test', 'any', [[]], [], { page: 1, status: 429, headers: { 'Retry-After': '3600' } });
    const run = await shop.run('woo-throttle');
    expect(run.outcome).toBe('throttled');
    expect(run.error).toMatch(/^WooCommerce asked to wait \(HTTP 429, Retry-After\) until .*; the cursor stays where it was\.$/);
    const next = await daemon.services.connectors.execute({ name: 'woo-throttle', trigger: 'cli' });
    expect(next.status).toBe('throttled');
  });

  it('refused keys fail the run with what to check', async () => {
    nock('https://oos.example.test')
      .get('/wp-json/wc/v3/products')
      .query(true)
      .reply(401, { code: 'woocommerce_rest_cannot_view', message: 'Sorry, you cannot list resources.', data: { status: 401 } });
    const run = await shop.run('woo-oos');
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe(
      "WooCommerce refused the credentials (HTTP 401 (Sorry, you cannot list resources.)); check the connector's secrets and their env vars.",
    );
  });

  it('plain http is refused for a public address, allowed for loopback', async () => {
    const plain = await shop.run('woo-plain');
    expect(plain.error).toBe(
      'base_url http://93.184.216.34 is plain http to a public address: credentials would travel unencrypted. Use https (http is allowed for loopback and private addresses only).',
    );
    nock('http://127.0.0.1:9').get('/wp-json/wc/v3/products').query(true).times(2).reply(200, [], { 'X-WP-TotalPages': '0' });
    expect((await shop.run('woo-local')).outcome).toBe('succeeded');
  });
});
