// catalog-akeneo against Akeneo PIM's REST API (nock, answers shaped like its reference): the
// OAuth2 password grant and its renewal (expiry, 401), products by `updated` with search_after
// paging, product models as products with variations, locale/scope/currency, a disabled product,
// and a failure half-way with its resume.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { onlyNockedNetwork } from '../tracking/helpers.ts';
import { pullFixture, pullShop } from './pull-helpers.ts';

Object.assign(process.env, { WB_AK_ID: '1_client', WB_AK_SECRET: 'sec', WB_AK_USER: 'waybill_1234', WB_AK_PASS: 'pw' });
const PIM = 'https://pim.example.test';
const akeneo = (name: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-akeneo',
  shop_pk: 1,
  schedule: '0 0 1 1 *',
  options: {
    base_url: PIM,
    client_id_env: 'WB_AK_ID',
    secret_env: 'WB_AK_SECRET',
    username_env: 'WB_AK_USER',
    password_env: 'WB_AK_PASS',
    locale: 'en_US',
    scope: 'ecommerce',
    currency: 'EUR',
    retries: 0,
    ...options,
  },
});
const daemon = await useTestDaemon({
  env: { WAYBILL_CONNECTORS: connectorsFile([akeneo('pim'), akeneo('pim-delete', { on_delete: 'delete' })]) },
});
const shop = await pullShop(daemon);
onlyNockedNetwork();

const BASIC = `Basic ${Buffer.from('1_client:sec').toString('base64')}`;
const token = pullFixture('catalog-akeneo', 'token.json') as Record<string, unknown>;
type Query = Record<string, string>;
const grants: Record<string, unknown>[] = [];

/** The token endpoint: each grant asked is recorded; `access` names the token handed out. */
const tokenEndpoint = (access: string, expiresIn = 3600) =>
  nock(PIM)
    .post('/api/oauth/v1/token')
    .matchHeader('authorization', BASIC)
    .reply(200, { ...token, access_token: access, expires_in: expiresIn, refresh_token: `refresh-${access}` })
    .on('request', (_req: unknown, _interceptor: unknown, body: string) => grants.push(JSON.parse(body) as Record<string, unknown>));
const bearer = (access: string) => nock(PIM, { reqheaders: { authorization: `Bearer ${access}` } });
const isList = (q: Query) => q.pagination_type === 'search_after' && q.limit === '100' && !String(q.search ?? '').includes('parent');
/** The two pages of changed products; page 2 by its next link. */
function pages(access: string, seen: Query[] = [], page2: { status: number } | null = null) {
  bearer(access)
    .get('/api/rest/v1/products')
    .query((q: Query) => isList(q) && q.search_after === undefined && (seen.push(q), true))
    .reply(200, pullFixture('catalog-akeneo', 'products-page-1.json') as object);
  const p2 = bearer(access)
    .get('/api/rest/v1/products')
    .query((q: Query) => q.search_after === 'qaXbcde');
  if (page2 === null) p2.reply(200, pullFixture('catalog-akeneo', 'products-page-2.json') as object);
  else
    p2.reply(page2.status, {
      code: page2.status,
      message: page2.status === 401 ? 'The access token provided has expired.' : 'Internal error',
    });
}
function models(access: string) {
  bearer(access)
    .get('/api/rest/v1/product-models/tshirt-red')
    .reply(200, pullFixture('catalog-akeneo', 'model-tshirt-red.json') as object);
  bearer(access)
    .get('/api/rest/v1/product-models/tshirt')
    .reply(200, pullFixture('catalog-akeneo', 'model-tshirt.json') as object);
  bearer(access)
    .get('/api/rest/v1/products')
    .query((q: Query) => JSON.parse(q.search ?? '{}').parent?.[0]?.value?.[0] === 'tshirt')
    .reply(200, pullFixture('catalog-akeneo', 'variants-tshirt.json') as object);
}

describe('a first run', () => {
  it('password grant, both pages, the model with its variants; values in the locale, channel and currency chosen', async () => {
    grants.length = 0;
    const seen: Query[] = [];
    tokenEndpoint('T1');
    pages('T1', seen);
    models('T1');
    const run = await shop.run('pim');
    expect(grants).toEqual([{ grant_type: 'password', username: 'waybill_1234', password: 'pw' }]);
    expect(seen[0]!.search).toBeUndefined();
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2, products_changed: 3 } });
    expect(await shop.product('1111111171')).toMatchObject({
      name: 'Bag',
      description: 'A big bag for the summer.',
      price: 22.5,
      stock: 0,
      weight: 500,
      brand: 'akeneo',
      images: [
        {
          url: 'https://pim.example.test/api/rest/v1/media-files/5/1/d/8/51d81dc778ba1501a8f998f3ab5797569f3b9e25_img.png/download',
          position: 0,
        },
      ],
    });
    const tshirt = await shop.product('tshirt');
    expect(tshirt).toMatchObject({ name: 'Akeneo T-Shirt', description: 'Cotton t-shirt with the Akeneo logo.', price: 10, stock: 10 });
    expect(tshirt!.variations).toMatchObject([
      { sku: 'tshirt-red-s', color: 'red', size: 's', price: 10, stock: 7 },
      { sku: 'tshirt-red-m', color: 'red', size: 'm', price: 11, stock: 3 },
    ]);
    // Disabled in Akeneo: on_delete out_of_stock (the default).
    expect(await shop.product('1111111172')).toMatchObject({ name: 'Old bag', stock: 0, availability: 'out_of_stock' });
  });
});

describe('tokens', () => {
  it('an expired token is renewed with its refresh token; a 401 mid-run gets a new token and the page again', async () => {
    grants.length = 0;
    // Expires at once: renewed before the next call.
    tokenEndpoint('T2', 0);
    tokenEndpoint('T3');
    tokenEndpoint('T4');
    const seen: Query[] = [];
    bearer('T2')
      .get('/api/rest/v1/products')
      .query((q: Query) => isList(q) && q.search_after === undefined && (seen.push(q), true))
      .reply(200, pullFixture('catalog-akeneo', 'products-page-1.json') as object);
    // Revoked under our feet: 401, then the same page with a new token.
    bearer('T3').get('/api/rest/v1/product-models/tshirt-red').reply(401, { code: 401, message: 'The access token provided is invalid.' });
    models('T4');
    pages('T4');
    const run = await shop.run('pim');
    expect(grants).toEqual([
      { grant_type: 'password', username: 'waybill_1234', password: 'pw' },
      { grant_type: 'refresh_token', refresh_token: 'refresh-T2' },
      { grant_type: 'refresh_token', refresh_token: 'refresh-T3' },
    ]);
    expect(run.outcome).toBe('succeeded');
    // The cursor of the first run: its latest `updated` (2026-11-21T08:00:00Z) less 60 s.
    expect(JSON.parse(seen[0]!.search!)).toEqual({ updated: [{ operator: '>', value: '2026-11-21 07:59:00' }] });
    expect(run.counts).toMatchObject({ products_unchanged: 3 });
  });
});

describe('a failure half-way and its resume; deletion', () => {
  it('page 2 fails: page 1 stays, the cursor does not move; the next run reads from the same cursor', async () => {
    tokenEndpoint('T5');
    const first: Query[] = [];
    pages('T5', first, { status: 500 });
    models('T5');
    const failed = await shop.run('pim-delete');
    expect(failed).toMatchObject({ outcome: 'failed', counts: { pages_fetched: 1 } });
    expect(failed.error).toMatch(/^Akeneo did not answer \(HTTP 500/);
    tokenEndpoint('T6');
    const again: Query[] = [];
    pages('T6', again);
    models('T6');
    const resumed = await shop.run('pim-delete');
    expect(again[0]!.search).toBe(first[0]!.search);
    // Disabled with on_delete delete: gone from the shop.
    expect(resumed).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2, products_deleted: 1 } });
    expect(await shop.product('1111111172')).toBeUndefined();
  });

  it('refused credentials fail the run with what to check', async () => {
    nock(PIM).post('/api/oauth/v1/token').reply(422, { code: 422, message: 'No user found for the given username and password.' });
    const run = await shop.run('pim');
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe(
      'Akeneo refused the request: HTTP 422 (No user found for the given username and password.). The run stopped; check base_url and the options.',
    );
  });
});
