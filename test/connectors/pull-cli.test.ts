// `waybill connectors run <name> [--full]` on a catalog pull, as a user runs it (a child
// process): the first run reads everything, the next what changed since its cursor, and --full
// everything again. The WooCommerce API is a local server (listen 0) answering its shape.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { pullFixture } from './pull-helpers.ts';

const database = await createTestDatabase();
const asked: URLSearchParams[] = [];
const products = pullFixture('catalog-woocommerce', 'products-page-2.json');
const server = http.createServer((req, res) => {
  const q = new URL(req.url!, 'http://x').searchParams;
  asked.push(q);
  res.writeHead(200, { 'content-type': 'application/json', 'x-wp-totalpages': '1' });
  res.end(JSON.stringify(q.get('status') === 'trash' ? [] : products));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await database.drop();
});
const env = {
  DATABASE_URL: database.url,
  WB_CLI_WOO_KEY: 'ck_cli',
  WB_CLI_WOO_SECRET: 'cs_cli',
  WAYBILL_CONNECTORS: connectorsFile([
    {
      name: 'woo',
      type: 'catalog-woocommerce',
      shop_pk: 1,
      schedule: '0 0 1 1 *',
      options: {
        base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        consumer_key_env: 'WB_CLI_WOO_KEY',
        consumer_secret_env: 'WB_CLI_WOO_SECRET',
      },
    },
  ]),
};

describe('waybill connectors run on a catalog pull', { timeout: 120_000 }, () => {
  it('incremental by default, everything again with --full', async () => {
    expect((await runCli(['shops', 'create', '--name', 'S', '--json'], env)).code).toBe(0);
    const first = await runCli(['connectors', 'run', 'woo', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json<{ run: unknown }>().run).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2, products_changed: 1 } });
    expect(asked.map((q) => q.get('modified_after'))).toEqual([null, null]);

    asked.length = 0;
    const next = await runCli(['connectors', 'run', 'woo'], env);
    expect(next.code, next.stderr).toBe(0);
    // No daemon applies the first run's feed here: its product is not yet what the catalog
    // holds, so it is sent again (never lost) rather than found unchanged.
    expect(next.stdout).toMatch(
      /^run \d+ of woo: succeeded in \d+ ms; requests=2 pages_fetched=2 products_changed=1 products_unchanged=0; feeds: \S+$/m,
    );
    // The product's date_modified_gmt (2026-11-21T10:15:42) less overlap_seconds (60).
    expect(asked.map((q) => q.get('modified_after'))).toEqual(['2026-11-21T10:14:42', '2026-11-21T10:14:42']);

    asked.length = 0;
    const full = await runCli(['connectors', 'run', 'woo', '--full', '--json'], env);
    expect(full.code, full.stderr).toBe(0);
    expect(asked.map((q) => q.get('modified_after'))).toEqual([null, null]);
    expect(full.json<{ run: unknown }>().run).toMatchObject({ outcome: 'succeeded', counts: { pages_fetched: 2 } });
  });
});
