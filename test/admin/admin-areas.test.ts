// Admin API over the other areas: connectors (list, run now, enable/disable, runs) and orders search.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const TOKEN = 'admin-token-for-tests-0123456789';
const dir = mkdtempSync(path.join(tmpdir(), 'wb-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const connectorsFile = path.join(dir, 'connectors.json');
mkdirSync(path.join(dir, 'inbox'));
writeFileSync(
  connectorsFile,
  JSON.stringify({
    connectors: [
      {
        name: 'erp-files',
        type: 'catalog-file',
        shop_pk: 1,
        schedule: null,
        enabled: true,
        options: { inbox: path.join(dir, 'inbox'), format: 'csv', settle_ms: 0 },
      },
    ],
  }),
);
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN, WAYBILL_CONNECTORS: connectorsFile } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${TOKEN}` };

interface Run {
  id: number;
  outcome: string;
  trigger: string;
}

describe('admin API: connectors', () => {
  it('lists connectors, runs one now (202) and shows the recorded run with its log lines', async () => {
    await daemon.shopWithKey();
    expect((await app.inject({ url: '/admin/api/connectors' })).statusCode).toBe(401);
    const list = (await app.inject({ url: '/admin/api/connectors', headers: bearer })).json() as {
      name: string;
      enabled: boolean;
      last_runs: Run[];
    }[];
    expect(list).toEqual([expect.objectContaining({ name: 'erp-files', type: 'catalog-file', enabled: true, last_runs: [] })]);

    const run = await app.inject({ method: 'POST', url: '/admin/api/connectors/erp-files/run', headers: bearer });
    expect(run.statusCode).toBe(202);
    expect(run.json()).toMatchObject({ queued: true, job_id: expect.any(String) });
    const done = await until('the run to end', async () => {
      const runs = (await app.inject({ url: '/admin/api/connectors/erp-files/runs', headers: bearer })).json() as Run[];
      return runs.find((r) => r.outcome !== 'running');
    });
    expect(done, JSON.stringify(done)).toMatchObject({ trigger: 'manual', outcome: 'succeeded' });
    // Log lines reach the database in batches, a moment after they are written.
    const logs = await until("the run's log lines", async () => {
      const r = (await app.inject({ url: `/admin/api/logs?run=${done.id}`, headers: bearer })).json() as {
        lines: { msg: string; fields: Record<string, unknown> }[];
      };
      return r.lines.some((l) => l.msg === 'connector run succeeded') ? r : undefined;
    });
    expect(logs.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['connector run started', 'connector run succeeded']));
    expect(logs.lines.every((l) => String(l.fields.runId) === String(done.id))).toBe(true);
    expect((await app.inject({ method: 'POST', url: '/admin/api/connectors/nope/run', headers: bearer })).statusCode).toBe(404);
  });

  it('disables and enables a connector', async () => {
    const off = await app.inject({ method: 'POST', url: '/admin/api/connectors/erp-files/disable', headers: bearer });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ name: 'erp-files', enabled: false, enabled_in_file: true });
    expect(await daemon.services.connectors.isEnabled('erp-files')).toBe(false);
    const on = await app.inject({ method: 'POST', url: '/admin/api/connectors/erp-files/enable', headers: bearer });
    expect(on.json()).toMatchObject({ enabled: true });
  });
});

describe('admin API: orders search', () => {
  it('finds an order of any shop by order_pk, reference or tracking code, with its history', async () => {
    const { shopPk, key } = await daemon.shopWithKey({ name: 'Orders shop' });
    await daemon.services.marketplaces.create({ name: 'Marketplace', pk: 15 });
    const intake = await app.inject({
      method: 'POST',
      url: `/shops/${shopPk}/marketplace/15/orders/`,
      headers: { authorization: `Token ${key}` },
      payload: { order_pk: 2000003841425110, reference: 'R-ADMIN-1', items: [{ item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 }] },
    });
    expect(intake.statusCode).toBe(201);
    await daemon.services.orders.applyAction({
      shopPk,
      marketplacePk: 15,
      orderPk: 2000003841425110,
      action: 'ship',
      shipping: { carrier: 'DHL', tracking_code: 'JD0001' },
      source: 'key:test',
    });

    for (const q of ['order_pk=2000003841425110', 'reference=R-ADMIN-1', 'tracking_code=JD0001']) {
      const res = await app.inject({ url: `/admin/api/orders?${q}`, headers: bearer });
      expect(res.statusCode, q).toBe(200);
      const orders = res.json() as { order_pk: number; shop_pk: number; history: { action: string; to: string }[] }[];
      expect(
        orders.map((o) => o.order_pk),
        q,
      ).toEqual([2000003841425110]);
      expect(orders[0]!.history.map((h) => h.action)).toEqual(['created', 'ship']);
    }
    expect((await app.inject({ url: '/admin/api/orders?reference=none', headers: bearer })).json()).toEqual([]);
    // The page's one search box takes any of the three; one match opens the order's page.
    const html = { ...bearer, accept: 'text/html' };
    for (const q of ['2000003841425110', 'R-ADMIN-1', 'JD0001']) {
      const found = await app.inject({ url: `/admin/orders/search?order=${q}`, headers: html });
      expect(found.statusCode, q).toBe(303);
      expect(found.headers.location, q).toBe(`/admin/orders/${shopPk}/15/2000003841425110`);
    }
    const page = await app.inject({ url: `/admin/orders/${shopPk}/15/2000003841425110`, headers: html });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Order 2000003841425110');
    expect(page.body).toContain('JD0001');
    const none = await app.inject({ url: '/admin/orders/search?order=nothing-like-it', headers: html });
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('id="no-orders"');

    // What the shop's system recorded shows in the table and the timeline.
    const ref = { shopPk, marketplacePk: 15, orderPk: 2000003841425110 };
    await daemon.services.moduleIntegrations.create(
      ref,
      { module_name: 'magento2', status: 'error', message: 'SKU <A1> unknown', type: 'order' },
      'key:test',
    );
    const after = await app.inject({ url: `/admin/orders/${shopPk}/15/2000003841425110`, headers: html });
    expect(after.body).toMatch(/<table data-modules>[\s\S]*<td>magento2<\/td><td>order<\/td><td>error<\/td>/);
    expect(after.body).toContain('SKU &lt;A1&gt; unknown');
    expect(after.body).toContain('data-history="module_integration"');
    expect(after.body).toContain('print_delivery_label');
  });
});

describe('admin API: feeds', () => {
  it("lists every shop's feeds with filters, shows one with its item errors, as CSV too, and refuses to retry a done feed", async () => {
    const { shopPk, key } = await daemon.shopWithKey({ name: 'Feeds shop' });
    const auth = { authorization: `Token ${key}` };
    const created = await app.inject({
      method: 'POST',
      url: `/shops/${shopPk}/products/`,
      headers: auth,
      payload: [{ sku: 'OK-1', name: 'Fine', price: 10, stock: 1 }],
    });
    expect(created.statusCode, created.body).toBe(201);
    // Feeds run concurrently: the update must not overtake the create.
    const createdPk = (created.json() as { pk: string }).pk;
    await until('the create feed', async () => (await daemon.services.feeds.getAny(createdPk)).state === 'done');
    // An update naming a sku the shop does not have: the feed is done with one item error.
    const post = await app.inject({
      method: 'PUT',
      url: `/shops/${shopPk}/products/`,
      headers: auth,
      payload: [
        { sku: 'OK-1', price: 12 },
        { sku: 'BAD-1', price: 5 },
      ],
    });
    expect(post.statusCode, post.body).toBe(201);
    const feedPk = (post.json() as { pk: string }).pk;
    const done = await until('the feed to finish', async () => {
      const f = (await app.inject({ url: `/admin/api/feeds/${feedPk}`, headers: bearer })).json() as {
        state: string;
        counts: { failed: number };
        result: { errors: { sku?: string; pointer: string; message: string }[] };
      };
      return f.state === 'done' || f.state === 'failed' ? f : undefined;
    });
    expect(done.state).toBe('done');
    expect(done.counts.failed).toBe(1);
    // The API's state stays done (clients read it); the admin's outcome says an item failed.
    expect(done).toMatchObject({ outcome: 'partial' });
    expect(done.result.errors).toEqual([expect.objectContaining({ sku: 'BAD-1' })]);

    const list = (
      await app.inject({ url: `/admin/api/feeds?shop=${shopPk}&state=partial&type=product_update`, headers: bearer })
    ).json() as { count: number; results: { pk: string }[] };
    expect(list).toMatchObject({ count: 1, results: [{ pk: feedPk, outcome: 'partial', state: 'done' }] });
    // done: done without a failed item (the create), partial: done with some.
    expect((await app.inject({ url: `/admin/api/feeds?shop=${shopPk}&state=done`, headers: bearer })).json()).toMatchObject({
      count: 1,
      results: [{ pk: createdPk, outcome: 'done' }],
    });
    expect((await app.inject({ url: `/admin/api/feeds?shop=${shopPk}&state=failed`, headers: bearer })).json()).toMatchObject({ count: 0 });
    expect((await app.inject({ url: '/admin/api/feeds?sku=BAD-1', headers: bearer })).json()).toMatchObject({
      count: 1,
      results: [{ pk: feedPk }],
    });
    expect((await app.inject({ url: '/admin/api/feeds?sku=NOPE', headers: bearer })).json()).toMatchObject({ count: 0 });

    const csv = await app.inject({ url: `/admin/api/feeds/${feedPk}/errors.csv`, headers: bearer });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="feed-${feedPk}-errors.csv"`);
    const rows = csv.body.trim().split('\r\n');
    expect(rows[0]).toBe('index,sku,pk,pointer,code,message');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^1,BAD-1,,\/1(\/sku)?,not_found,/);

    // The feed's job logged with its id: the admin can read the lines of this feed.
    const lines = await until("the feed's log lines", async () => {
      const r = (await app.inject({ url: `/admin/api/logs?feed=${feedPk}`, headers: bearer })).json() as {
        lines: { msg: string; fields: Record<string, unknown> }[];
      };
      return r.lines.some((l) => l.msg === 'feed processed') ? r : undefined;
    });
    expect(lines.lines.map((l) => l.msg)).toContain('feed processed');
    expect(lines.lines.every((l) => l.fields.feedPk === feedPk && typeof l.fields.jobId === 'string')).toBe(true);

    const retry = await app.inject({ method: 'POST', url: `/admin/api/feeds/${feedPk}/retry`, headers: bearer });
    expect(retry.statusCode).toBe(409);
    expect((await app.inject({ url: '/admin/api/feeds/00000000-0000-0000-0000-000000000000', headers: bearer })).statusCode).toBe(404);

    const overview = (await app.inject({ url: '/admin/api/overview', headers: bearer })).json() as {
      feeds: { by_state: Record<string, number> };
      charts: { items_per_minute: { value: number }[] };
    };
    expect(overview.feeds.by_state.done).toBeGreaterThanOrEqual(1);
    expect(overview.feeds.by_state.partial).toBeGreaterThanOrEqual(1);
    expect(overview.charts.items_per_minute.at(-1)!.value).toBeGreaterThan(0);
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/waybill_feeds\{type="product_create",state="done",service="waybill"\} [1-9]/);
    expect(metrics.body).toMatch(/waybill_feeds\{type="product_update",state="partial",service="waybill"\} [1-9]/);
  });
});
