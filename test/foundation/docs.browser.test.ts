// /docs in a real browser (Debian's Chromium driven by playwright-core): the page carries a
// Content-Security-Policy, and the Swagger UI, served locally, still loads every asset and
// renders the API's operations under it, with no violation reported; the page carries waybill's
// name and sections, not the framework's.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';

const ARTIFACTS = path.resolve('test-artifacts');
const daemon = await useTestDaemon({ role: 'api' });
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('/docs in a browser', () => {
  it('has a Content-Security-Policy under which the Swagger UI loads and renders every operation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    const failed: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    const policies: string[] = [];
    page.on('response', (r) => {
      const csp = r.headers()['content-security-policy'];
      if (csp !== undefined) policies.push(csp);
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const res = await page.goto(`${daemon.url}/docs/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(
      /default-src 'self'.*script-src 'self'.*object-src 'none'|default-src 'self'.*object-src 'none'.*script-src 'self'/,
    );
    expect(res?.headers()['x-content-type-options']).toBe('nosniff');
    // The UI fetched the document and drew an entry per operation.
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    expect(await page.locator('.info .title').textContent()).toContain('waybill');
    // waybill's name and sections, catalog and orders before the daemon's own; no Swagger
    // top bar, title or icon.
    expect(await page.title()).toBe('waybill API');
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    const icons = await page.locator('link[rel~="icon"]').evaluateAll((ls) => ls.map((l) => l.getAttribute('href') ?? ''));
    expect(icons.length).toBeGreaterThan(0);
    expect(icons.filter((h) => /favicon-(16|32)x/.test(h))).toEqual([]);
    const sections = await page.locator('h3.opblock-tag').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-tag')));
    expect(sections).toEqual(['catalog', 'feeds', 'orders', 'shops', 'tracking', 'connectors', 'system', 'admin']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png') });
    expect(violations).toEqual([]);
    expect(failed).toEqual([]);
    // Every asset the page loaded came with the same policy.
    expect(policies.length).toBeGreaterThan(3);
    expect(new Set(policies).size).toBe(1);
    await page.close();
  }, 60_000);
});
