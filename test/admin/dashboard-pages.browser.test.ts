// Every dashboard page in a real browser (Debian's Chromium, playwright-core), set in Mexico
// City's time zone: times in the browser's zone with UTC on hover, shops by name, the Orders
// list with filters and paging and one order with its tracking, the Logs page reading the lines
// of every process, error pages inside the layout (a mistyped address too), a 390 px wide phone, job search and a failed
// job's stack. Each page is saved as a screenshot: under test-artifacts/screenshots, or where
// WAYBILL_SCREENSHOTS says (docs/screenshots for the committed ones).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const SHOTS = path.resolve(process.env.WAYBILL_SCREENSHOTS ?? 'test-artifacts/screenshots');
const TOKEN = 'pages-admin-token-0123456789';
const ZONE = 'America/Mexico_City';

const dir = tempDir('wb-pages-');
const inbox = path.join(dir, 'inbox');
mkdirSync(inbox);
const connectors = connectorsFile([
  { name: 'erp-files', type: 'catalog-file', shop_pk: 1, schedule: null, enabled: true, options: { inbox, format: 'csv', settle_ms: 0 } },
]);
const env = { WAYBILL_ADMIN_TOKEN: TOKEN, WAYBILL_CONNECTORS: connectors };

// The API serves the pages; a second process (the worker) does the work and logs it.
const api = await useTestDaemon({ role: 'api', env });
const app = api.app!;
let worker: TestDaemon;

// A shop's webhook receiver that refuses every delivery (410): a job that fails for good.
const receiver = createServer((_req, res) => res.writeHead(410).end());
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

let browser: Browser;
let context: BrowserContext;
const sample = { shopPk: 0, otherShopPk: 0, feedPk: '', errorFeedPk: '', runId: 0, deadJobId: '', failedJobId: '', createdAt: '' };
const ORDER = 7001;

const products = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ sku: `${prefix}-${i}`, name: `Product ${i}`, price: 10 + i, stock: i }));

beforeAll(async () => {
  worker = await startTestDaemon({ role: 'worker', env, database: api.database });
  const s = api.services;
  // Shops, by name: the first owns the connector (shop_pk 1) and a webhook URL that refuses.
  const north = await api.shopWithKey({ name: 'Casa Norte', webhook_url: receiverUrl });
  const south = await api.shopWithKey({ name: 'Tienda Sur' });
  sample.shopPk = north.shopPk;
  sample.otherShopPk = south.shopPk;
  // Feeds: one done, one with item errors.
  const created = await app.inject({
    method: 'POST',
    url: `/shops/${north.shopPk}/products/`,
    headers: north.auth,
    payload: products(3, 'NORTE'),
  });
  sample.feedPk = (created.json() as { pk: string }).pk;
  await until('the first feed', async () => ((await s.feeds.getAny(sample.feedPk)).state === 'done' ? true : undefined), 30_000);
  const update = await app.inject({
    method: 'PUT',
    url: `/shops/${north.shopPk}/products/`,
    headers: north.auth,
    payload: [
      { sku: 'NORTE-0', price: 12 },
      { sku: 'MISSING-1', price: 1 },
    ],
  });
  sample.errorFeedPk = (update.json() as { pk: string }).pk;
  await until('the update feed', async () => ((await s.feeds.getAny(sample.errorFeedPk)).state === 'done' ? true : undefined), 30_000);
  // Orders: one shipped and tracked, one pending, and 52 of the other shop (two pages).
  await s.marketplaces.create({ name: 'Mercado', pk: 15 });
  const item = (i: number) => ({ item_pk: i, sku: `NORTE-${i}`, quantity: 1, price: 10 + i });
  await s.orders.intake(north.shopPk, 15, { order_pk: ORDER, reference: 'MX-7001', items: [item(1), item(2)] } as never, 'key:sample');
  await s.orders.intake(north.shopPk, 15, { order_pk: ORDER + 1, reference: 'MX-7002', items: [item(1)] } as never, 'key:sample');
  for (let i = 0; i < 52; i++)
    await s.orders.intake(south.shopPk, 15, { order_pk: 9000 + i, reference: `SUR-${i}`, items: [item(1)] } as never, 'key:sample');
  await s.orders.applyAction({
    shopPk: north.shopPk,
    marketplacePk: 15,
    orderPk: ORDER,
    action: 'ship',
    shipping: { carrier: 'DHL', tracking_code: 'JD0001' },
    source: 'key:sample',
  });
  const [tracked] = await s.tracking.byTrackingCode(['DHL'], north.shopPk, 'JD0001');
  await s.tracking.record(
    tracked!,
    {
      status: 'in_transit',
      carrierStatus: 'transit',
      finalFailure: false,
      events: [
        {
          occurredAt: new Date(Date.now() - 7_200_000),
          status: 'in_transit',
          carrierCode: 'PU',
          carrierText: 'Picked up by the courier',
          location: 'Monterrey',
        },
        {
          occurredAt: new Date(Date.now() - 3_600_000),
          status: 'in_transit',
          carrierCode: 'TR',
          carrierText: 'Arrived at the hub',
          location: 'Querétaro',
        },
      ],
    } as never,
    { connector: 'tracking-dhl', followDeliveredDays: 0 },
  );
  // A connector run, and the webhook jobs that failed for good (the receiver answers 410).
  writeFileSync(path.join(inbox, 'products.csv'), 'sku,name,price,stock\nCSV-1,From the ERP,9.5,3\n');
  await s.connectors.runNow('erp-files');
  const run = await until(
    'the connector run',
    async () => (await s.connectors.runs('erp-files')).find((r) => r.outcome !== 'running'),
    30_000,
  );
  sample.runId = Number(run.id);
  await api.jobs.send(api.connection.db, 'webhook.deliver', {
    shopPk: north.shopPk,
    messageId: 'msg_pages_dead',
    event: 'feed.completed',
    payload: {},
  });
  const dead = await until(
    'the dead-letter job',
    async () => (await s.admin.searchJobs({ q: 'msg_pages_dead' })).find((j) => j.queue === 'webhook.deliver.dead'),
    30_000,
  );
  sample.deadJobId = dead.id;
  sample.failedJobId = dead.source_id ?? '';
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: ZONE, locale: 'en-US' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

const loggedIn = async (url = '/admin/'): Promise<Page> => {
  const page = await context.newPage();
  await page.goto(`${api.url}${url}`);
  if (page.url().includes('/admin/login')) {
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForURL((u) => !u.pathname.startsWith('/admin/login'));
  }
  return page;
};

/** What the page's script shows for an ISO time in ZONE: "2026-11-24 03:15:07 CST". */
const inZone = (iso: string): string => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: ZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    })
      .formatToParts(new Date(iso))
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
};

/** A date-time-local value in ZONE, minutes from an ISO time. */
const localInput = (iso: string, minutes: number): string =>
  inZone(new Date(Date.parse(iso) + minutes * 60_000).toISOString())
    .slice(0, 16)
    .replace(' ', 'T');

describe('dashboard pages in a browser', () => {
  it('shows every time in the browser\'s zone with UTC on hover, and the feeds "since" filter reads that zone', async () => {
    const page = await loggedIn('/admin/feeds');
    const cell = page.locator(`tr[data-feed="${sample.feedPk}"] time`);
    const iso = (await cell.getAttribute('datetime'))!;
    sample.createdAt = iso;
    await expect.poll(() => cell.textContent()).toBe(inZone(iso));
    expect(await cell.getAttribute('title')).toBe(`${iso.slice(0, 19).replace('T', ' ')} UTC`);
    // Shops by name in the table.
    expect(await page.locator(`tr[data-feed="${sample.feedPk}"] .shop-name`).textContent()).toBe('Casa Norte');
    expect(await page.locator('label', { hasText: 'Since' }).textContent()).toContain(ZONE);
    // A minute before the feed, local time: listed; two minutes after: not. (Read as UTC, six
    // hours behind, both would list it.)
    for (const [minutes, listed] of [
      [-1, true],
      [2, false],
    ] as const) {
      await page.fill('input[name="since"]', localInput(iso, minutes));
      await page.click('form.filters button[type="submit"]');
      await page.waitForURL(/since=/);
      expect(page.url()).toContain('tz=360');
      expect(await page.locator(`tr[data-feed="${sample.feedPk}"]`).count(), `since ${minutes} min`).toBe(listed ? 1 : 0);
    }
    await page.goto(`${api.url}/admin/feeds`);
    await shot(page, 'feeds');
    await page.goto(`${api.url}/admin/feeds/${sample.errorFeedPk}`);
    await page.locator('table.errors').waitFor();
    expect(await page.locator('dl.facts .shop-name').textContent()).toBe('Casa Norte');
    await shot(page, 'feed-detail');
    await page.close();
  });

  it('lists orders with filters and paging, and opens one with its items, history and tracking events', async () => {
    const page = await loggedIn('/admin/orders');
    expect(await page.locator('#orders .muted.small').textContent()).toBe('54 orders');
    expect(await page.locator('table.orders tbody tr').count()).toBe(50);
    await page.click('#order-pages a', { timeout: 5_000 });
    await page.waitForURL(/page=2/);
    expect(await page.locator('table.orders tbody tr').count()).toBe(4);
    await page.goto(`${api.url}/admin/orders`);
    await page.selectOption('select[name="shop"]', String(sample.shopPk));
    await page.selectOption('select[name="status"]', 'shipped');
    await page.click('#order-filters button[type="submit"]');
    await page.waitForURL(/status=shipped/);
    const rows = page.locator('table.orders tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Casa Norte');
    expect(await rows.first().textContent()).toContain('Mercado');
    // A day filter in the future: nothing.
    await page.goto(`${api.url}/admin/orders?from=2099-01-01`);
    await page.locator('#no-orders').waitFor();
    await page.goto(`${api.url}/admin/orders?shop=${sample.shopPk}`);
    await shot(page, 'orders');

    await page.click(`tr[data-order="${ORDER}"] a`);
    await page.waitForURL(new RegExp(`/admin/orders/${sample.shopPk}/15/${ORDER}$`));
    expect(await page.locator('table.items tbody tr').count()).toBe(2);
    expect(
      await page.locator('#order-history [data-history]').evaluateAll((els) => els.map((e) => e.getAttribute('data-history'))),
    ).toEqual(['created', 'ship']);
    const events = page.locator('[data-shipment] [data-event]');
    expect(await events.count()).toBe(2);
    expect(await events.nth(1).textContent()).toContain('Arrived at the hub');
    expect(await events.nth(1).textContent()).toContain('Querétaro');
    await shot(page, 'order-detail');
    await page.close();
  });

  it('reads the log lines of every process, one per request, filtered by level, request id, feed and connector run', async () => {
    const page = await loggedIn('/admin/logs');
    // Feeds run in the worker process: its lines are here, on a page the API process serves.
    await page.goto(`${api.url}/admin/logs?feed=${sample.feedPk}`);
    await page.locator('#log-lines tr', { hasText: 'feed processed' }).first().waitFor();
    expect(await page.locator('#log-lines tr').evaluateAll((rows) => rows.every((r) => r.textContent!.includes('feed')))).toBe(true);
    await page.goto(`${api.url}/admin/logs?run=${sample.runId}`);
    await page.locator('#log-lines tr', { hasText: 'connector run started' }).waitFor();
    // One line per request: method, path, status, duration; found by its request id.
    await app.inject({ url: '/healthz', headers: { 'x-request-id': 'pages-probe' } });
    await page.goto(`${api.url}/admin/logs`);
    await page.fill('input[name="request"]', 'pages-probe');
    await page.click('#log-filters button[type="submit"]');
    const line = page.locator('#log-lines tr', { hasText: 'GET /healthz' });
    await expect
      .poll(
        async () => {
          await page.reload();
          return line.count();
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(await line.textContent()).toMatch(/GET \/healthz\s*200\s*[\d.]+ ms/);
    await page.selectOption('select[name="level"]', 'warn');
    await page.fill('input[name="request"]', '');
    await page.click('#log-filters button[type="submit"]');
    await page.waitForURL(/level=warn/);
    const levels = await page
      .locator('#log-lines .badge')
      .evaluateAll((els) => els.filter((e) => !e.closest('code')).map((e) => e.className));
    expect(levels.every((c) => /\b(warn|error|fatal)\b/.test(c))).toBe(true);
    await page.goto(`${api.url}/admin/logs`);
    await shot(page, 'logs');
    await page.close();
  });

  it('shows an unknown feed, order or job as a page inside the layout, not problem JSON', async () => {
    const page = await loggedIn();
    for (const [url, name] of [
      ['/admin/feeds/00000000-0000-4000-8000-000000000000', 'Feed'],
      [`/admin/orders/${sample.shopPk}/15/123456`, 'Order 123456'],
      ['/admin/jobs/webhook.deliver/00000000-0000-4000-8000-000000000000', 'Job'],
    ] as const) {
      const res = await page.goto(`${api.url}${url}`);
      expect(res!.status(), url).toBe(404);
      expect(res!.headers()['content-type']).toContain('text/html');
      expect(await page.locator('header.top nav a').count()).toBeGreaterThan(5);
      expect(await page.locator('h1').textContent()).toBe('Not found');
      expect(await page.locator('#error-detail').textContent()).toContain(name);
    }
    await shot(page, 'error');
    await page.close();
  });

  it('shows a dashboard address that matches no page as that 404 page, after the login page when logged out', async () => {
    const unknown = ['/admin/feedz', `/admin/orders/${sample.shopPk}/15/${ORDER}/extra`];
    // Logged in, in the browser: its own Accept header decides that it wants a page.
    const page = await loggedIn();
    for (const url of unknown) {
      const res = await page.goto(`${api.url}${url}`);
      expect(res!.status(), url).toBe(404);
      expect(res!.headers()['content-type']).toContain('text/html');
      expect(await page.locator('header.top nav a').count()).toBeGreaterThan(5);
      expect(await page.locator('h1').textContent()).toBe('Not found');
      expect(await page.locator('#error-detail').textContent()).toBe(`No resource at GET ${url}.`);
      expect(await page.locator('main a.button').getAttribute('href')).toBe('/admin/');
    }
    await page.close();
    // Logged out, in the browser: the login page first (as for every page), then the 404 page.
    const fresh = await browser.newContext();
    const out = await fresh.newPage();
    await out.goto(`${api.url}/admin/feedz`);
    expect(new URL(out.url()).pathname).toBe('/admin/login');
    await out.fill('input[name="token"]', TOKEN);
    const [landed] = await Promise.all([
      out.waitForResponse((r) => r.url() === `${api.url}/admin/feedz`),
      out.click('button[type="submit"]'),
    ]);
    expect(landed.status()).toBe(404);
    expect(await out.locator('h1').textContent()).toBe('Not found');
    await fresh.close();

    // The same by inject, with what a browser sends: as the admin (Bearer), then logged out.
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const admin = { accept: browserAccept, authorization: `Bearer ${TOKEN}` };
    for (const method of ['GET', 'HEAD'] as const) {
      for (const url of unknown) {
        const res = await app.inject({ method, url, headers: admin });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        if (method === 'GET') {
          expect(res.body).toContain('<h1>Not found</h1>');
          expect(res.body).toMatch(/<nav><a href="\/admin\/">Overview<\/a>/);
          expect(res.body).toContain('<a href="/admin/" class="button">Back to the overview</a>');
        }
        const anonymous = await app.inject({ method, url, headers: { accept: browserAccept } });
        expect(anonymous.statusCode).toBe(303);
        expect(anonymous.headers.location).toBe(`/admin/login?next=${encodeURIComponent(url)}`);
      }
    }

    // Not pages: the admin API, curl (any type alike), a script asking for JSON, other methods.
    const problem = async (request: InjectOptions) => {
      const res = await app.inject(request);
      expect(res.statusCode, JSON.stringify(request)).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json()).toMatchObject({ status: 404, code: 'not_found' });
    };
    for (const headers of [admin, { accept: browserAccept }, {}, { authorization: `Bearer ${TOKEN}` }]) {
      await problem({ url: '/admin/api/nonexistent', headers });
    }
    await problem({ url: '/admin/feedz', headers: { accept: '*/*', authorization: `Bearer ${TOKEN}` } });
    await problem({ url: '/admin/feedz', headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` } });
    await problem({ url: '/admin/feedz' });
    await problem({ method: 'POST', url: '/admin/feedz', headers: admin });
    await problem({ url: '/feedz', headers: admin });
  });

  it("finds jobs by id or data, sorts them by time, and shows a failed job's error and stack in full", async () => {
    const page = await loggedIn('/admin/jobs');
    await page.fill('input[name="q"]', sample.deadJobId);
    await page.click('#job-search button[type="submit"]');
    await page.waitForURL(/q=/);
    expect(await page.locator('table.jobs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')))).toEqual([
      sample.deadJobId,
    ]);
    await page.goto(`${api.url}/admin/jobs?q=msg_pages_dead`);
    const ids = () => page.locator('table.jobs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')));
    const newest = await ids();
    expect(newest).toEqual(expect.arrayContaining([sample.deadJobId, sample.failedJobId]));
    const created = await page.locator('table.jobs tbody tr time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
    expect(created).toEqual([...created].sort().reverse());
    await page.click('#sort-created');
    await page.waitForURL(/order=oldest/);
    expect(await ids()).toEqual([...newest].reverse());
    await shot(page, 'jobs');

    await page.goto(`${api.url}/admin/jobs/webhook.deliver/${sample.failedJobId}`);
    expect(await page.locator('#job-state').textContent()).toBe('failed');
    expect(await page.locator('#job-error').textContent()).toContain('410');
    const stack = (await page.locator('#job-stack').textContent())!;
    expect(stack).toMatch(/\n\s+at /);
    // In full: the block is not cut to a scrolling box.
    expect(await page.locator('#job-stack').evaluate((e) => e.scrollHeight <= e.clientHeight + 1)).toBe(true);
    await shot(page, 'job-detail');
    await page.close();
  });

  it("keeps the overview's cards and charts on the same numbers", async () => {
    const page = await loggedIn('/admin/');
    await page.locator('figure.chart').first().waitFor();
    const card = await page.locator('#jobs-waiting b').textContent();
    const chart = await page.locator('figure.chart', { hasText: 'Jobs waiting' }).locator('figcaption b').textContent();
    expect(chart).toBe(card);
    const failedCard = await page.locator('.card.stat', { hasText: 'Feeds failed' }).locator('b').textContent();
    const bar = (await page.locator('.stack').textContent()) ?? '';
    expect(bar.includes('failed') ? bar : 'failed 0').toContain(`failed ${failedCard}`);
    await shot(page, 'overview');
    for (const [url, name] of [
      ['/admin/shops', 'shops'],
      ['/admin/connectors', 'connectors'],
      ['/admin/connectors/erp-files', 'connector-detail'],
      ['/admin/webhooks', 'webhooks'],
    ] as const) {
      await page.goto(`${api.url}${url}`);
      await shot(page, name);
    }
    expect(await page.locator('tr[data-delivery] .shop-name').first().textContent()).toBe('Casa Norte');
    await page.close();
  });

  it('fits a 390 px wide phone: tables scroll inside their box, the page never sideways', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, isMobile: true });
    const page = await phone.newPage();
    await page.goto(`${api.url}/admin/login`);
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${api.url}/admin/`);
    const pages = [
      '/admin/',
      '/admin/feeds',
      `/admin/feeds/${sample.errorFeedPk}`,
      '/admin/orders',
      `/admin/orders/${sample.shopPk}/15/${ORDER}`,
      '/admin/jobs?q=msg_pages_dead',
      `/admin/jobs/webhook.deliver/${sample.failedJobId}`,
      '/admin/connectors',
      '/admin/webhooks',
      '/admin/logs',
      '/admin/shops',
    ];
    for (const url of pages) {
      await page.goto(`${api.url}${url}`);
      expect(await page.evaluate('document.documentElement.scrollWidth'), url).toBe(390);
      // Every table wider than the screen scrolls inside its own box.
      // (A table inside another, a delivery's attempts, scrolls with the one around it.)
      const tables =
        (await page.evaluate(`[...document.querySelectorAll('main table')].filter((t) => !t.parentElement.closest('table')).map((t) => ({
        wide: t.scrollWidth > t.clientWidth, overflow: getComputedStyle(t).overflowX, right: t.getBoundingClientRect().right }))`)) as {
          wide: boolean;
          overflow: string;
          right: number;
        }[];
      for (const t of tables) {
        expect(t.right, url).toBeLessThanOrEqual(390.5);
        if (t.wide) expect(t.overflow, url).toBe('auto');
      }
    }
    await page.goto(`${api.url}/admin/orders`);
    await page.screenshot({ path: path.join(SHOTS, 'orders-390px.png') });
    await phone.close();
  });
});
