// The dashboard in a real browser (Debian's Chromium driven by playwright-core): log in, watch
// a feed run to done, open a feed with errors, retry a failed job until it completes and see
// its attempts on the Webhooks page, run a connector, create a shop (its webhook secret shown
// once) and rotate its secret, and a wrong token refused. Each step saves a screenshot under test-artifacts/.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';

const ARTIFACTS = path.resolve('test-artifacts');
const TOKEN = 'browser-admin-token-0123456789';

const dir = tempDir('wb-dash-');
const inbox = path.join(dir, 'inbox');
mkdirSync(inbox);
const connectors = connectorsFile([
  { name: 'erp-files', type: 'catalog-file', shop_pk: 1, schedule: null, enabled: true, options: { inbox, format: 'csv', settle_ms: 0 } },
]);
// One feed of 15,000 items (below): above the default WAYBILL_MAX_ITEMS of a request.
const env = { WAYBILL_ADMIN_TOKEN: TOKEN, WAYBILL_CONNECTORS: connectors, WAYBILL_MAX_ITEMS: '15000' };

// The API alone first: feeds stay queued until the worker starts, so the browser sees them run.
const api = await useTestDaemon({ role: 'api', env });
let worker: TestDaemon | null = null;
const app = api.app!;

// A shop's webhook receiver: refuses (410, a permanent failure) until told to accept.
let receiverStatus = 410;
const receiver = createServer((_req, res) => res.writeHead(receiverStatus).end());
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** The worker daemon (same database); started by the first test once its feed is on screen. */
const ensureWorker = async (): Promise<void> => {
  worker ??= await startTestDaemon({ role: 'worker', env, database: api.database });
};

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `admin-${name}.png`), fullPage: true });

const loggedIn = async (): Promise<Page> => {
  const page = await context.newPage();
  await page.goto(`${api.url}/admin/`);
  if (page.url().includes('/admin/login')) {
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${api.url}/admin/`);
  }
  return page;
};

// Enough items (30 chunks, about a second of work) for several of the page's 250 ms refreshes of a running feed.
const ITEMS = 15_000;
const products = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    sku: `${prefix}-${i}`,
    name: `Product ${i}`,
    price: 10 + (i % 7),
    stock: i % 5,
    description: 'Plain text of some length, as real catalogs send.',
  }));

describe('dashboard in a browser', () => {
  it('refuses a wrong token and stays on the login page', async () => {
    const page = await context.newPage();
    await page.goto(`${api.url}/admin/feeds`);
    expect(page.url()).toBe(`${api.url}/admin/login?next=%2Fadmin%2Ffeeds`);
    await page.fill('input[name="token"]', 'not-the-admin-token-at-all');
    await page.click('button[type="submit"]');
    await expect.poll(() => page.locator('#login-error').textContent()).toContain('That token is not the admin token.');
    expect(page.url()).toContain('/admin/login');
    expect((await context.cookies()).find((c) => c.name === 'waybill_admin')).toBeUndefined();
    await shot(page, 'login-refused');
    await page.close();
  });

  it('logs in and watches a feed go from running to done, its progress bar moving', async () => {
    const { shopPk, key } = await api.shopWithKey({ name: 'Browser shop' });
    const page = await loggedIn();
    const cookie = (await context.cookies()).find((c) => c.name === 'waybill_admin')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });

    const post = await app.inject({
      method: 'POST',
      url: `/shops/${shopPk}/products/`,
      headers: { authorization: `Token ${key}` },
      payload: products(ITEMS, 'RUN'),
    });
    expect(post.statusCode).toBe(201);
    const feedPk = (post.json() as { pk: string }).pk;
    await page.goto(`${api.url}/admin/feeds?shop=${shopPk}`);
    const bar = page.locator(`tr[data-feed="${feedPk}"] .progress`);
    await expect.poll(() => bar.getAttribute('data-state')).toBe('queued');
    // Every state and count the page shows, as the live refresh replaces the row.
    // (A string: the browser runs it; this project's TypeScript has no DOM types.)
    await page.evaluate(`(() => {
      const seen = window.seen = [];
      const record = () => {
        const el = document.querySelector('tr[data-feed="${feedPk}"] .progress');
        const now = el === null ? '' : el.getAttribute('data-state') + ':' + el.getAttribute('aria-valuenow');
        if (now !== '' && seen[seen.length - 1] !== now) seen.push(now);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true });
      record();
    })()`);

    await ensureWorker();
    // Generous bounds: other test files and processes share two cores.
    // Running (or, should the page have missed every running state, done: the checks below then
    // say what it saw instead of a bare timeout).
    await bar.and(page.locator('[data-state="processing"], [data-state="done"]')).waitFor({ timeout: 90_000 });
    await shot(page, 'feed-running');
    await bar.and(page.locator('[data-state="done"]')).waitFor({ timeout: 60_000 });
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBe(ITEMS);
    const seen = (await page.evaluate('window.seen')) as string[];
    const running = seen.filter((x) => x.startsWith('processing:')).map((x) => Number(x.split(':')[1]));
    expect(seen[0]).toBe('queued:0');
    expect(seen.at(-1)).toBe(`done:${ITEMS}`);
    expect(running.length, `states seen: ${seen.join(' ')}`).toBeGreaterThan(0);
    expect(running.every((n, i) => n < ITEMS && (i === 0 || n >= running[i - 1]!))).toBe(true);
    await expect.poll(() => page.locator(`tr[data-feed="${feedPk}"] .badge`).textContent()).toBe('done');
    await shot(page, 'feed-done');

    await page.close();
  }, 150_000);

  it('opens a feed with errors: the errors table and its CSV', async () => {
    await ensureWorker();
    const { shopPk, key } = await api.shopWithKey({ name: 'Errors shop' });
    const auth = { authorization: `Token ${key}` };
    const created = await app.inject({ method: 'POST', url: `/shops/${shopPk}/products/`, headers: auth, payload: products(3, 'ERR') });
    // Feeds run concurrently: the update must not overtake the create.
    const createdPk = (created.json() as { pk: string }).pk;
    await expect.poll(async () => (await api.services.feeds.getAny(createdPk)).state, { timeout: 20_000 }).toBe('done');
    const put = await app.inject({
      method: 'PUT',
      url: `/shops/${shopPk}/products/`,
      headers: auth,
      payload: [
        { sku: 'ERR-0', price: 11 },
        { sku: 'MISSING-1', price: 1 },
        { sku: 'ERR-2', stock: 4 },
        { sku: 'MISSING-2', price: 2 },
      ],
    });
    const feedPk = (put.json() as { pk: string }).pk;
    const page = await loggedIn();
    await page.goto(`${api.url}/admin/feeds/${feedPk}`);
    // Done with failed items: partial on the dashboard (the API's state stays done).
    await expect.poll(() => page.locator('#feed-state').textContent(), { timeout: 20_000 }).toBe('partial');
    expect(await page.locator('#feed-partial').textContent()).toBe('2 of 4 items failed: see the item errors below');
    const rows = page.locator('table.errors tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('MISSING-1');
    expect(await rows.nth(1).textContent()).toContain('MISSING-2');
    expect(await page.locator('#feed-failed').textContent()).toBe('2');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#errors-csv')]);
    const file = path.join(ARTIFACTS, 'admin-feed-errors.csv');
    await download.saveAs(file);
    const { readFileSync } = await import('node:fs');
    const csv = readFileSync(file, 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe('index,sku,pk,pointer,code,message');
    expect(csv.slice(1).map((l) => l.split(',')[1])).toEqual(['MISSING-1', 'MISSING-2']);
    await shot(page, 'feed-detail');
    await page.close();
  });

  it('retries a failed job and sees it complete', async () => {
    await ensureWorker();
    const { shopPk } = await api.shopWithKey({ name: 'Webhook shop', webhook_url: receiverUrl });
    await api.jobs.send(api.connection.db, 'webhook.deliver', {
      shopPk,
      messageId: 'msg_browser_retry',
      event: 'feed.completed',
      payload: {},
    });
    const page = await loggedIn();
    await page.goto(`${api.url}/admin/jobs?queue=webhook.deliver.dead`);
    const row = page.locator('tr[data-job]', { hasText: 'msg_browser_retry' });
    await row.waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain('answered 410');
    await shot(page, 'job-failed');

    receiverStatus = 204;
    await row.locator('button', { hasText: 'Retry' }).click();
    await page.locator('dialog#confirm[open]').waitFor();
    expect(await page.locator('#confirm-text').textContent()).toMatch(/^Run job [0-9a-f]{8} again\?$/);
    await page.click('#confirm-ok');
    await expect.poll(() => page.locator('#toast').textContent()).toContain('moved back to webhook.deliver');
    await row.waitFor({ state: 'detached' });

    await page.goto(`${api.url}/admin/jobs?queue=webhook.deliver&state=completed`);
    await page
      .locator('tr[data-job]', { hasText: 'msg_browser_retry' })
      .locator('.badge', { hasText: 'completed' })
      .waitFor({ timeout: 20_000 });
    await shot(page, 'job-completed');
    await page.close();
  });

  it('shows that delivery on the Webhooks page: each attempt with its status and answer', async () => {
    const page = await loggedIn();
    await page.click('nav a[href="/admin/webhooks"]');
    const row = page.locator('tr[data-delivery="msg_browser_retry"]');
    await row.waitFor();
    expect(await row.locator('.badge.delivery-state').textContent()).toBe('delivered');
    expect(await row.locator('td.num').textContent()).toBe('2 of 15');
    // The attempts open in a full-width row under the delivery's.
    const sub = page.locator('tr[data-attempts-of="msg_browser_retry"]');
    await sub.locator('summary', { hasText: 'attempts' }).click();
    const attempts = sub.locator('table.attempts tbody tr');
    await expect.poll(() => attempts.count()).toBe(2);
    // Cells: #, time, status, outcome, ms, error, answer.
    const cells = async (i: number): Promise<string[]> => (await attempts.nth(i).locator('td').allInnerTexts()).map((t) => t.trim());
    expect(await cells(0)).toEqual([
      '1',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$/),
      '410',
      'refused',
      expect.stringMatching(/^\d+$/),
      '',
      'none',
    ]);
    expect(await cells(1)).toEqual(['2', expect.any(String), '204', 'delivered', expect.stringMatching(/^\d+$/), '', 'none']);
    await shot(page, 'webhooks');
    await page.selectOption('select[name="state"]', 'refused');
    await page.click('form.filters button[type="submit"]');
    await page.locator('#no-deliveries').waitFor();
    await page.close();
  });

  it('triggers a connector run and sees it succeed', async () => {
    await ensureWorker();
    writeFileSync(path.join(inbox, 'products.csv'), 'sku,name,price,stock\nCSV-1,From the ERP,9.5,3\nCSV-2,Another,4,0\n');
    const page = await loggedIn();
    await page.goto(`${api.url}/admin/connectors`);
    const row = page.locator('tr[data-connector="erp-files"]');
    expect(await row.textContent()).toContain('never');
    await row.locator('button', { hasText: 'Run now' }).click();
    await page.locator('dialog#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await expect.poll(() => page.locator('#toast').textContent()).toContain('was queued');
    await row.locator('.badge.succeeded').waitFor({ timeout: 20_000 });
    await page.click('a[href="/admin/connectors/erp-files"]');
    const run = page.locator('ol.timeline li.succeeded').first();
    await run.waitFor();
    expect(await run.textContent()).toContain('manual');
    await shot(page, 'connector-run');
    await page.close();
  });

  it('creates a shop and a key, then revokes the key', async () => {
    const page = await loggedIn();
    await page.goto(`${api.url}/admin/shops`);
    await page.fill('#create-shop input[name="name"]', 'Shop from the dashboard');
    await page.click('#create-shop button[type="submit"]');
    const row = page.locator('tr[data-shop]', { hasText: 'Shop from the dashboard' });
    await row.waitFor();
    // The new shop's webhook secret, shown once; a rotation shows the next one.
    await page.locator('#new-secret:not([hidden])').waitFor();
    const secret = (await page.locator('#new-secret-value').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    expect(await page.locator('#new-secret-shop').textContent()).toBe(await row.getAttribute('data-shop'));
    await row.locator('button', { hasText: 'Rotate secret' }).click();
    expect(await page.locator('#confirm-text').textContent()).toContain('shown once');
    await page.click('#confirm-ok');
    await expect.poll(() => page.locator('#new-secret-value').textContent()).not.toBe(secret);
    expect(await page.locator('#new-secret-value').textContent()).toMatch(/^whsec_/);
    await row.locator('button', { hasText: 'New key' }).click();
    await page.click('#confirm-ok');
    await page.locator('#new-key:not([hidden])').waitFor();
    const key = (await page.locator('#new-key-value').textContent())!;
    const shopPk = Number(await row.getAttribute('data-shop'));
    expect((await api.services.shops.authenticate(key))?.shopPk).toBe(shopPk);
    await row.locator('li[data-key] button', { hasText: 'Revoke' }).waitFor();
    await row.locator('li[data-key] button', { hasText: 'Revoke' }).click();
    expect(await page.locator('#confirm-text').textContent()).toContain('cannot be undone');
    await page.click('#confirm-ok');
    await row.locator('li[data-key] .badge', { hasText: 'revoked' }).waitFor();
    expect(await api.services.shops.authenticate(key)).toBeNull();
    await shot(page, 'shops');
    await page.close();
  });

  it('shows the overview of all this: figures, charts and queues, and tails the logs', async () => {
    const page = await loggedIn();
    await expect.poll(() => page.locator('figure.chart').count()).toBe(5);
    expect(await page.locator('.stack').textContent()).toMatch(/done [3-9]partial [1-9]/);
    expect(await page.locator('#connectors-failing').textContent()).toContain('1/1 enabled');
    await shot(page, 'overview');
    await page.goto(`${api.url}/admin/logs`);
    const before = await page.locator('#log-lines tr').count();
    await app.inject({ url: '/healthz', headers: { 'x-request-id': 'browser-tail-probe' } });
    await page.locator('#log-lines tr', { hasText: 'browser-tail-probe' }).first().waitFor({ timeout: 10_000 });
    expect(await page.locator('#log-lines tr').count()).toBeGreaterThan(before);
    await shot(page, 'logs');
    await page.close();
  });

  it('logs out: the old cookie opens nothing any more, and another site cannot post with it', async () => {
    const page = await loggedIn();
    const cookie = (await context.cookies()).find((c) => c.name === 'waybill_admin')!;
    const header = { cookie: `waybill_admin=${cookie.value}` };
    expect((await app.inject({ url: '/admin/api/queues', headers: header })).statusCode).toBe(200);
    // A page of another origin (another port of this host) posting a form at the dashboard.
    const other = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<form id="f" method="post" action="${api.url}/admin/api/connectors/erp-files/disable"></form>`),
    );
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    // Closed with the context, not in this test: closing it here also closed the dashboard
    // page (seen with Debian's Chromium 156), and the logout below then waited forever.
    const forged = await context.newPage();
    try {
      await forged.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const answer = forged.waitForResponse((r) => r.url().endsWith('/disable'), { timeout: 15_000 });
      await forged.evaluate('document.getElementById("f").submit()');
      expect((await answer).status()).toBe(403);
    } finally {
      // The browser keeps its connection to that page open: close it too, or close() waits.
      other.closeAllConnections();
      await new Promise<void>((r) => other.close(() => r()));
    }
    expect((await api.services.connectors.get('erp-files')).enabled).toBe(true);
    await page.click('form.logout button');
    // The logout's redirect, or a live region's refresh that saw the session end first (it
    // reloads: the login page with ?next=).
    await page.waitForURL(/\/admin\/login/, { timeout: 15_000 });
    expect((await context.cookies()).find((c) => c.name === 'waybill_admin')).toBeUndefined();
    expect((await app.inject({ url: '/admin/api/queues', headers: header })).statusCode).toBe(401);
    await page.goto(`${api.url}/admin/`);
    expect(page.url()).toContain('/admin/login');
    await page.close();
  });
});
