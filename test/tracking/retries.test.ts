// The polling rules against a misbehaving carrier (nock, DHL's documented error bodies): 429
// with Retry-After waited out, 5xx retried with backoff, 401 and other 4xx not retried and
// recorded against the shipment, time-outs retried then recorded; every call counted in /metrics.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_DHL_KEY2 = 'dhl-key-2';
// A carrier that answers after a second (a local server: the client's time-out must cut a real socket).
const slowCalls: number[] = [];
const slow = http.createServer((_req, res) => {
  slowCalls.push(Date.now());
  const t = setTimeout(
    () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fixture('tracking-dhl', 'transit.json'))),
    1_000,
  );
  res.on('close', () => clearTimeout(t));
});
await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
const SLOW = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
const DHL = 'https://dhl-errors.test';
const entry = (name: string, carrier: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'tracking-dhl',
  options: {
    base_url: DHL,
    carriers: [carrier],
    api_key_env: 'WB_TEST_DHL_KEY2',
    min_interval_seconds: 0,
    retries: 3,
    retry_min_ms: 20,
    retry_max_ms: 3_000,
    ...options,
  },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      entry('rate', 'C-429'),
      entry('flaky', 'C-500'),
      entry('badkey', 'C-401'),
      entry('unknown', 'C-404'),
      entry('slow', 'C-TIMEOUT', { base_url: SLOW, timeout_ms: 100, retries: 1 }),
      entry('down', 'C-DOWN', { retries: 2 }),
    ]),
  },
});
const shop = await shopClient(daemon);
const tracking = daemon.services.tracking;

onlyNockedNetwork();
afterAll(() => {
  slow.closeAllConnections();
  slow.close();
});

const track = (code: string) => nock(DHL).get('/track/shipments').query({ trackingNumber: code });

describe('retried', () => {
  it('429 with Retry-After: waits as told, then succeeds', async () => {
    const { orderPk, shipmentId } = await shop.shipped('C-429', 'R429');
    const times: number[] = [];
    track('R429').reply(() => {
      times.push(Date.now());
      return [429, fixture('tracking-dhl', 'too-many-requests.json'), { 'Retry-After': '1', 'content-type': 'application/problem+json' }];
    });
    track('R429').reply(() => {
      times.push(Date.now());
      return [200, fixture('tracking-dhl', 'delivered.json')];
    });
    const run = await runConnector(daemon, 'rate');
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, action_delivered: 1 } });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1_000);
    expect((await shop.order(orderPk)).status).toBe('delivered');
    expect(await tracking.get(shipmentId)).toMatchObject({ status: 'delivered', last_error: null, error_count: 0 });
  });

  it('500 then success: retried with backoff, applied once', async () => {
    const { orderPk } = await shop.shipped('C-500', 'R500');
    track('R500').reply(500, { title: 'Internal Server Error', status: 500 });
    track('R500').reply(502, 'Bad gateway');
    track('R500').reply(200, fixture('tracking-dhl', 'delivered.json'));
    const run = await runConnector(daemon, 'flaky');
    expect(run.counts).toMatchObject({ checked: 1, action_delivered: 1 });
    expect(nock.isDone()).toBe(true);
    const order = await shop.order(orderPk);
    expect(order.history.filter((h) => h.action === 'delivered')).toHaveLength(1);
  });

  it('time-outs are retried, then recorded against the shipment; the run goes on', async () => {
    const { shipmentId } = await shop.shipped('C-TIMEOUT', 'RSLOW');
    const started = Date.now();
    const run = await runConnector(daemon, 'slow');
    expect(run.error).toBeNull();
    expect(Date.now() - started).toBeLessThan(1_000);
    // The run went on, but a check could not be made: partial.
    expect(run).toMatchObject({ outcome: 'partial', counts: { checks_failed: 1 } });
    // The first try and one retry, each cut after 100 ms.
    expect(slowCalls).toHaveLength(2);
    expect(await tracking.get(shipmentId)).toMatchObject({
      status: 'unknown',
      checks: 1,
      error_count: 1,
      last_error: 'no answer within 100 ms',
      events: [],
    });
  });

  it('a carrier that stays down: retries run out, the error is recorded, the next run tries again', async () => {
    const { shipmentId } = await shop.shipped('C-DOWN', 'RDOWN');
    const scope = track('RDOWN').times(3).reply(503, { title: 'Service Unavailable', status: 503 });
    expect((await runConnector(daemon, 'down')).counts).toEqual({ checks_failed: 1 });
    expect(scope.isDone()).toBe(true);
    expect(await tracking.get(shipmentId)).toMatchObject({ error_count: 1, last_error: 'HTTP 503 (Service Unavailable)' });
    track('RDOWN').reply(200, fixture('tracking-dhl', 'transit.json'));
    expect((await runConnector(daemon, 'down')).counts).toEqual({ checked: 1, events_new: 2 });
    expect(await tracking.get(shipmentId)).toMatchObject({ status: 'in_transit', error_count: 1, last_error: null, checks: 2 });
  });
});

describe('not retried', () => {
  it('401: one call, recorded against the shipment, the run fails without a retry', async () => {
    const a = await shop.shipped('C-401', 'R401-A');
    const b = await shop.shipped('C-401', 'R401-B');
    let calls = 0;
    nock(DHL)
      .get('/track/shipments')
      .query(true)
      .times(5)
      .reply(() => {
        calls++;
        return [401, fixture('tracking-dhl', 'unauthorized.json')];
      });
    const run = await runConnector(daemon, 'badkey');
    // concurrency 4: both shipments may be in flight when the first 401 comes back, never more.
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe(
      "The carrier API refused the credentials (HTTP 401 (Unauthorized: Unauthorized for given resource.)); check the connector's api_key_env.",
    );
    const states = [await tracking.get(a.shipmentId), await tracking.get(b.shipmentId)].filter((s) => s !== null);
    expect(states.length).toBe(calls);
    for (const s of states)
      expect(s).toMatchObject({ error_count: 1, last_error: 'HTTP 401 (Unauthorized: Unauthorized for given resource.)' });
  });

  it('404 (DHL knows no such number): one call, recorded against the shipment, the run ends partial', async () => {
    const { orderPk, shipmentId } = await shop.shipped('C-404', 'R404');
    let calls = 0;
    track('R404')
      .times(3)
      .reply(() => {
        calls++;
        return [404, fixture('tracking-dhl', 'not-found.json')];
      });
    const run = await runConnector(daemon, 'unknown');
    expect(calls).toBe(1);
    expect(run).toMatchObject({ outcome: 'partial', counts: { checks_refused: 1 } });
    expect(await tracking.get(shipmentId)).toMatchObject({
      error_count: 1,
      last_error: 'HTTP 404 (No result found: No shipment with given tracking number found.)',
    });
    expect((await shop.order(orderPk)).status).toBe('shipped');
  });

  it('every call is counted in /metrics by carrier and status', async () => {
    const res = await daemon.app!.inject({ url: '/metrics' });
    expect(res.body).toMatch(/waybill_carrier_api_calls_total\{[^}]*carrier="c-429"[^}]*status="429"[^}]*\} 1/);
    expect(res.body).toMatch(/waybill_carrier_api_calls_total\{[^}]*carrier="c-500"[^}]*status="500"[^}]*\} 1/);
    expect(res.body).toMatch(/waybill_carrier_api_calls_total\{[^}]*carrier="c-timeout"[^}]*status="error"[^}]*\} 2/);
  });
});
