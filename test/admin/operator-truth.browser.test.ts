// What an operator sees tells the truth, in a real browser (Debian's Chromium) at 1440 and 390
// px wide: a connector run that refused products is partial (amber), one without its shop is
// skipped, empty scheduled runs are folded, a run started by a dropped file says file; the
// overview has cards for failing connector runs and webhook deliveries, linked to them, and
// lists the quiet queues only on request; a feed with item errors is partial; a delivery's
// attempts open in a full-width row and count as the Jobs page counts them; shop pickers on
// Feeds and Webhooks; Logs newest first, paged; the order page shows its customer and amounts;
// and no page grows past the screen's width, or explodes in height when its rows are opened.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const SHOTS = path.resolve(process.env.WAYBILL_SCREENSHOTS ?? 'test-artifacts/screenshots');
const TOKEN = 'operator-truth-admin-token-0123';
const dir = tempDir('wb-truth-');
const inbox = path.join(dir, 'inbox');
const quiet = path.join(dir, 'quiet');
mkdirSync(inbox);
mkdirSync(quiet);
const connectors = connectorsFile([
  { name: 'erp-files', type: 'catalog-file', shop_pk: 1, schedule: null, options: { inbox, format: 'csv', settle_ms: 0 } },
  // Ticks every second with nothing to do: its empty runs are folded.
  {
    name: 'quiet-inbox',
    type: 'catalog-file',
    shop_pk: 1,
    schedule: '* * * * * *',
    options: { inbox: quiet, format: 'csv', settle_ms: 0 },
  },
  // Its shop does not exist (yet): every tick is skipped, saying why.
  { name: 'future-shop', type: 'catalog-file', shop_pk: 99, schedule: '* * * * * *', options: { inbox: tempDir(), format: 'csv' } },
]);
const env = { WAYBILL_ADMIN_TOKEN: TOKEN, WAYBILL_CONNECTORS: connectors };
const api = await useTestDaemon({ role: 'api', env });
const app = api.app!;
let worker: TestDaemon;

// A shop's webhook receiver: /down answers 500 (retried), /flaky 500 twice to each delivery, then 410 Gone (given up).
const hits = new Map<string, number>();
const receiver = createServer((req, res) => {
  const key = `${req.url}:${String(req.headers['webhook-id'])}`;
  const n = (hits.get(key) ?? 0) + 1;
  hits.set(key, n);
  req.resume();
  res.writeHead(req.url === '/flaky' && n > 2 ? 410 : 500).end(req.url === '/flaky' && n > 2 ? 'gone' : 'Internal Server Error');
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

let browser: Browser;
const sample = { shopPk: 0, flakyShopPk: 0, feedPk: '', order: 0, jobId: '' };
const WIDTHS = [1440, 390] as const;
const contexts = new Map<number, BrowserContext>();

beforeAll(async () => {
  // The worker also schedules (the ticks, the inbox watch).
  worker = await startTestDaemon({ role: 'all', env, database: api.database });
  const s = api.services;
  const north = await api.shopWithKey({ name: 'Casa Norte', webhook_url: `${receiverUrl}/down` });
  const flaky = await api.shopWithKey({ name: 'Tienda Sur', webhook_url: `${receiverUrl}/flaky` });
  sample.shopPk = north.shopPk;
  sample.flakyShopPk = flaky.shopPk;
  // A feed with item errors: partial.
  await app.inject({
    method: 'POST',
    url: `/shops/${north.shopPk}/products/`,
    headers: north.auth,
    payload: [{ sku: 'N-1', name: 'One', price: 10, stock: 1 }],
  });
  const put = await app.inject({
    method: 'PUT',
    url: `/shops/${north.shopPk}/products/`,
    headers: north.auth,
    payload: [
      { sku: 'N-1', price: 12 },
      { sku: 'MISSING', price: 1 },
    ],
  });
  sample.feedPk = (put.json() as { pk: string }).pk;
  await until('the partial feed', async () => ((await s.feeds.getAny(sample.feedPk)).state === 'done' ? true : undefined), 30_000);
  // A catalog file with 2 of 3 products refused: a partial run, started by the dropped file.
  writeFileSync(path.join(inbox, 'products.csv'), 'sku,name,price,stock\nF-1,Fine,9.5,3\nF-2,,1,1\nF-3,Bad price,abc,1\n');
  await until('the file run', async () => (await s.connectors.runs('erp-files')).find((r) => r.outcome !== 'running'), 30_000);
  // An order with its customer, shipped: order.created and order.status_changed to both receivers.
  await s.marketplaces.create({ name: 'Mercado', pk: 15 });
  sample.order = 8101;
  for (const shopPk of [north.shopPk, flaky.shopPk]) {
    await s.orders.intake(
      shopPk,
      15,
      {
        order_pk: sample.order,
        reference: 'MX-8101',
        customer: { first_name: 'Ana', last_name: 'López', email: 'ana@example.com' },
        shipping_cost: 4.5,
        items: [{ item_pk: 1, sku: 'N-1', quantity: 2, price: 12.5 }],
      } as never,
      'key:sample',
    );
    await s.orders.applyAction({
      shopPk,
      marketplacePk: 15,
      orderPk: sample.order,
      action: 'ship',
      shipping: { carrier: 'DHL', tracking_code: `T-${shopPk}` },
      source: 'key:sample',
    });
  }
  // Both of the flaky shop's deliveries given up (500, 500, 410): three attempts each, settled.
  await until(
    'the flaky deliveries to be refused',
    async () => {
      const list = await s.webhooks.listDeliveries({ shop: flaky.shopPk });
      return list.length === 2 && list.every((d) => d.state === 'refused') ? list : undefined;
    },
    60_000,
  );
  // Enough log lines for two pages.
  for (let i = 0; i < 120; i++) await app.inject({ url: '/healthz', headers: { 'x-request-id': `truth-${i}` } });
  // Some quiet and skipped ticks.
  await until(
    'quiet and skipped ticks',
    async () => (await s.connectors.runs('quiet-inbox')).length >= 3 && (await s.connectors.runs('future-shop')).length >= 3,
    20_000,
  );
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  for (const width of WIDTHS) {
    const context = await browser.newContext({
      viewport: { width, height: width === 390 ? 844 : 900 },
      isMobile: width === 390,
      timezoneId: 'Europe/Berlin',
    });
    contexts.set(width, context);
    const page = await context.newPage();
    await page.goto(`${api.url}/admin/login`);
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${api.url}/admin/`);
    await page.close();
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const open = async (width: number, url: string): Promise<Page> => {
  const page = await contexts.get(width)!.newPage();
  await page.goto(`${api.url}${url}`);
  return page;
};

/** The page fits the screen's width: nothing sideways but inside a table's own box. */
const fitsWidth = async (page: Page, width: number, what: string): Promise<void> => {
  expect(await page.evaluate('document.documentElement.scrollWidth'), what).toBe(width);
};

/** Opens every <details> of the page; returns the page's height before and after. */
const openAll = async (page: Page): Promise<{ before: number; after: number; opened: number }> => {
  const before = (await page.evaluate('document.documentElement.scrollHeight')) as number;
  const opened = (await page.evaluate(
    `(() => { const d = [...document.querySelectorAll('main details:not([open])')]; d.forEach((x) => { x.open = true; }); return d.length; })()`,
  )) as number;
  await page.waitForTimeout(0);
  const after = (await page.evaluate('document.documentElement.scrollHeight')) as number;
  return { before, after, opened };
};

for (const width of WIDTHS) {
  describe(`at ${width} px`, () => {
    it('the overview has cards for failing connector runs and webhook deliveries, one click from what fails', async () => {
      const page = await open(width, '/admin/');
      const connectorsCard = page.locator('#connectors-failing');
      expect(await connectorsCard.getAttribute('class')).toMatch(/\b(bad|warn)\b/);
      expect(await connectorsCard.locator('b').textContent()).toBe('2');
      expect(await connectorsCard.locator('small').textContent()).toMatch(/1 partial · 1 skipped · 3\/3 enabled/);
      const hooks = page.locator('#webhooks-failing');
      expect(await hooks.getAttribute('class')).toMatch(/\bbad\b/);
      expect(Number(await hooks.locator('b').textContent())).toBeGreaterThanOrEqual(4);
      expect(await page.locator('#feeds-partial b').textContent()).toBe('1');
      // Quiet queues (maintenance, empty dead-letter queues) are listed only on request.
      expect(await page.locator('table.queues tr[data-queue="prune.feeds"]').count()).toBe(0);
      expect(await page.locator('table.queues tr[data-queue="webhook.deliver"]').count()).toBe(1);
      await fitsWidth(page, width, 'overview');
      await page.click('#queue-toggle a');
      await page.waitForURL(/queues=all/);
      expect(await page.locator('table.queues tr[data-queue="prune.feeds"]').count()).toBe(1);

      await page.goto(`${api.url}/admin/`);
      await connectorsCard.locator('b a').click();
      await page.waitForURL(/\/admin\/connectors\?attention=1$/);
      const rows = page.locator('tr[data-connector]');
      expect(await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-connector')))).toEqual(['erp-files', 'future-shop']);
      expect(await page.locator('tr[data-connector="erp-files"] .badge', { hasText: 'partial' }).count()).toBe(1);
      expect(await page.locator('tr[data-connector="future-shop"]').textContent()).toContain('Shop 99 (shop_pk) does not exist yet');

      await page.goto(`${api.url}/admin/`);
      await hooks.locator('b a').click();
      await page.waitForURL(/\/admin\/webhooks\?state=failing$/);
      const states = await page.locator('tr[data-delivery] .delivery-state').allTextContents();
      expect(states.length).toBeGreaterThanOrEqual(2);
      expect(new Set(states)).toEqual(new Set(['failing']));
      await page.goto(`${api.url}/admin/`);
      await page.locator('#feeds-partial b a').click();
      await page.waitForURL(/state=partial/);
      expect(await page.locator('tr[data-feed]').evaluateAll((r) => r.map((x) => x.getAttribute('data-feed')))).toEqual([sample.feedPk]);
      expect(await page.locator(`tr[data-feed="${sample.feedPk}"] .badge`).first().textContent()).toBe('partial');
      await page.close();
    });

    it("a connector's page: the file run partial and labelled file, empty and skipped ticks folded, its folder, Run now and run strip on screen", async () => {
      const page = await open(width, '/admin/connectors/erp-files');
      const run = page.locator('#runs li[data-trigger="file"]').first();
      expect(await run.locator('.badge').textContent()).toBe('partial');
      expect(await run.locator('.trigger').textContent()).toBe('file');
      expect(await run.textContent()).toMatch(/products invalid 2/);
      expect(await page.locator('#watches').textContent()).toContain(inbox);
      expect(await page.locator('#options').textContent()).toContain('settle_ms');
      // Run now and the run strip, on screen without scrolling sideways.
      const box = (await page.locator('.connector-head button', { hasText: 'Run now' }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      const strip = (await page.locator('.connector-head .runs').boundingBox())!;
      expect(strip.x + strip.width).toBeLessThanOrEqual(width);
      await fitsWidth(page, width, 'connector');
      if (width === 390) await page.screenshot({ path: path.join(SHOTS, 'connector-detail-390px.png') });

      await page.goto(`${api.url}/admin/connectors/quiet-inbox`);
      const folded = page.locator('#runs li.folded').first();
      expect(Number(await folded.getAttribute('data-folded'))).toBeGreaterThanOrEqual(2);
      expect(await folded.locator('summary').textContent()).toMatch(/^\d+ scheduled runs with nothing to do · /);
      await page.goto(`${api.url}/admin/connectors/future-shop`);
      expect(await page.locator('#runs li.folded summary').first().textContent()).toMatch(/^\d+ scheduled runs skipped · /);

      // The list: on a phone each connector is a card, its buttons and strip on screen.
      await page.goto(`${api.url}/admin/connectors`);
      expect(await page.locator('#connectors-file').textContent()).toContain(connectors);
      for (const name of ['erp-files', 'quiet-inbox', 'future-shop']) {
        const button = (await page.locator(`tr[data-connector="${name}"] button`, { hasText: 'Run now' }).boundingBox())!;
        expect(button.x + button.width, name).toBeLessThanOrEqual(width);
        const runs = (await page.locator(`tr[data-connector="${name}"] .runs`).boundingBox())!;
        expect(runs.x + runs.width, name).toBeLessThanOrEqual(width);
      }
      await fitsWidth(page, width, 'connectors');
      if (width === 390) await page.screenshot({ path: path.join(SHOTS, 'connectors-390px.png') });
      await page.close();
    });

    it("a delivery's attempts open in a full-width row, count as the Jobs page counts them, and show the event sent", async () => {
      const page = await open(width, `/admin/webhooks?shop=${sample.flakyShopPk}`);
      const rows = page.locator('tr[data-delivery]');
      expect(await rows.count()).toBe(2);
      const changed = rows.filter({ hasText: 'order.status_changed' });
      expect(await changed.locator('td.event').innerText()).toMatch(/^order\.status_changed\s+sent as product_feed:order:created$/);
      expect(await changed.locator('td.num').textContent()).toBe('3 of 15');
      const id = (await changed.getAttribute('data-delivery'))!;
      const { before, after, opened } = await openAll(page);
      expect(opened).toBe(2);
      // Each attempts table spans the row: as wide as the deliveries table (or its scrolling box).
      const widths = (await page.evaluate(
        `(() => { const outer = document.querySelector('table.deliveries'); return [...document.querySelectorAll('table.attempts')].map((t) => [t.getBoundingClientRect().width, outer.scrollWidth]); })()`,
      )) as [number, number][];
      for (const [inner, outer] of widths) expect(inner).toBeGreaterThan(outer * 0.8);
      // Three attempts a delivery: the page grows by rows, not by a column of wrapped text.
      expect(after - before).toBeLessThan(width === 390 ? 900 : 500);
      await fitsWidth(page, width, 'webhooks, attempts open');
      const cells = await page
        .locator(`tr[data-attempts-of="${id}"] table.attempts tbody tr`)
        .evaluateAll((r) => r.map((x) => [...x.querySelectorAll('td')].map((td) => td.textContent!.trim())));
      expect(cells.map((c) => [c[0], c[2], c[3]])).toEqual([
        ['1', '500', 'failed'],
        ['2', '500', 'failed'],
        ['3', '410', 'refused'],
      ]);
      if (width === 1440) await page.screenshot({ path: path.join(SHOTS, 'webhooks-attempts.png'), fullPage: true });

      // The Jobs page counts the same attempts, and links back.
      const job = await until("the delivery's dead job", async () =>
        (await api.services.admin.searchJobs({ q: id })).find((j) => j.queue === 'webhook.deliver'),
      );
      await page.goto(`${api.url}/admin/jobs/webhook.deliver/${job.id}`);
      expect(await page.locator('dl.facts dd', { hasText: ' of 15' }).first().textContent()).toMatch(/^3 of 15/);
      await page.click('#job-delivery');
      await page.waitForURL(/delivery=/);
      expect(await page.locator('tr[data-delivery]').evaluateAll((r) => r.map((x) => x.getAttribute('data-delivery')))).toEqual([id]);
      await page.close();
    });

    it('filters: shop pickers on Feeds and Webhooks, a "Since" label on one line, Logs newest first and paged', async () => {
      const page = await open(width, '/admin/feeds');
      await page.selectOption('select[name="shop"]', { label: `Casa Norte #${sample.shopPk}` });
      await page.click('form.filters button[type="submit"]');
      await page.waitForURL(new RegExp(`shop=${sample.shopPk}`));
      const shops = await page.locator('tr[data-feed] .shop-name').allTextContents();
      expect(shops.length).toBeGreaterThanOrEqual(2);
      expect(new Set(shops)).toEqual(new Set(['Casa Norte']));
      const label = (await page.locator('label', { hasText: 'Since' }).locator('> span').boundingBox())!;
      expect(label.height).toBeLessThan(24);
      await fitsWidth(page, width, 'feeds');

      await page.goto(`${api.url}/admin/webhooks`);
      await page.selectOption('select[name="shop"]', { label: `Tienda Sur #${sample.flakyShopPk}` });
      await page.click('form.filters button[type="submit"]');
      await page.waitForURL(new RegExp(`shop=${sample.flakyShopPk}`));
      expect(await page.locator('tr[data-delivery] .shop-name').allTextContents()).toEqual(['Tienda Sur', 'Tienda Sur']);

      await page.goto(`${api.url}/admin/logs`);
      const seqs = async (): Promise<number[]> =>
        page.locator('#log-lines tr').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-seq'))));
      // Newest first: as stored, the last line on top.
      const first = await seqs();
      expect(first.length).toBeGreaterThanOrEqual(100);
      expect(first.slice(0, 100)).toEqual([...first.slice(0, 100)].sort((a, b) => b - a));
      await page.click('#logs-older');
      await page.waitForURL(/before=/);
      const second = await seqs();
      expect(Math.max(...second)).toBeLessThan(Math.min(...first));
      expect(await page.locator('#follow').count()).toBe(0);
      await page.click('#logs-newest');
      await page.waitForURL((u) => !u.search.includes('before'));
      await fitsWidth(page, width, 'logs');
      const { after, before } = await openAll(page);
      expect(after - before).toBeLessThan(100 * 400);
      await fitsWidth(page, width, 'logs, fields open');
      await page.close();
    });

    it("the order page shows the customer and the amounts, in the marketplace's currency", async () => {
      const page = await open(width, `/admin/orders/${sample.shopPk}/15/${sample.order}`);
      expect(await page.locator('#customer-name').textContent()).toBe('Ana López');
      expect(await page.locator('#customer-email').getAttribute('href')).toBe('mailto:ana@example.com');
      expect(await page.locator('#amounts').innerText()).toMatch(
        /^items 25\.00 \+ shipping 4\.50 = 29\.50\s+in Mercado's currency \(orders carry no currency\)$/,
      );
      expect(await page.locator('table.items tbody td.num').nth(2).textContent()).toBe('12.50');
      await fitsWidth(page, width, 'order');
      await page.close();
    });

    if (width === 390) {
      it('says a table scrolls when it is wider than the screen, and no page grows sideways', async () => {
        const page = await open(width, '/admin/');
        for (const url of [
          '/admin/',
          '/admin/feeds',
          `/admin/feeds/${sample.feedPk}`,
          '/admin/jobs?queue=webhook.deliver',
          '/admin/connectors',
          '/admin/connectors/erp-files',
          '/admin/webhooks',
          '/admin/logs',
          `/admin/orders/${sample.shopPk}/15/${sample.order}`,
        ]) {
          await page.goto(`${api.url}${url}`);
          await fitsWidth(page, width, url);
          const tables =
            (await page.evaluate(`[...document.querySelectorAll('main table')].filter((t) => !t.parentElement.closest('table') && t.scrollWidth > t.clientWidth + 1).map((t) => ({
            marked: t.classList.contains('scrolls'), hint: t.previousElementSibling?.classList.contains('scroll-hint') === true && t.previousElementSibling.getBoundingClientRect().height > 0 }))`)) as {
              marked: boolean;
              hint: boolean;
            }[];
          for (const t of tables) expect(t, url).toEqual({ marked: true, hint: true });
          if (url === '/admin/webhooks') expect(tables.length, url).toBeGreaterThan(0);
        }
        await page.goto(`${api.url}/admin/webhooks`);
        await page.screenshot({ path: path.join(SHOTS, 'webhooks-390px.png') });
        await page.close();
      });
    }
  });
}
