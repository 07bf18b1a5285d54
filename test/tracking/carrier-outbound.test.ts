// A carrier API that misbehaves for every call, through a real local server: an answer past
// max_response_bytes, or a redirect to another host, fails the check with a clear error, stops
// the run (recorded as failed, not retried) and the other host never sees the API key. A
// redirect on the same host is followed, and a connector may raise its cap.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_DHL_OUT = 'dhl-outbound-key';
const MiB = 1024 * 1024;
const transit = JSON.stringify(fixture('tracking-dhl', 'transit.json'));
// A valid DHL answer padded past 5 MiB with whitespace (JSON allows it).
const padded = `${transit.slice(0, -1)}${' '.repeat(5 * MiB)}}`;

const seen: { host: string; path: string; key: string | undefined }[] = [];
async function serve(host: string, handler: (path: string, res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    seen.push({ host, path: req.url ?? '', key: req.headers['dhl-api-key'] as string | undefined });
    handler(new URL(req.url!, 'http://x').pathname, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const other = await serve('other', (_path, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(transit));
const carrier = await serve('carrier', (path, res) => {
  if (path === '/huge/track/shipments') {
    // 300 MB without Content-Length, as fast as the client reads.
    res.writeHead(200, { 'content-type': 'application/json' });
    const block = Buffer.alloc(MiB, ' ');
    let sent = 0;
    const pump = (): void => {
      while (sent < 300 * MiB && !res.destroyed) {
        sent += MiB;
        if (!res.write(block)) return void res.once('drain', pump);
      }
      res.end();
    };
    return pump();
  }
  if (path === '/padded/track/shipments')
    return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(padded)) }).end(padded);
  if (path === '/away/track/shipments')
    return void res.writeHead(302, { location: `${other}/track/shipments?trackingNumber=stolen` }).end();
  if (path === '/moved/track/shipments') return void res.writeHead(301, { location: '/v2/track/shipments?trackingNumber=MOVED-1' }).end();
  if (path === '/v2/track/shipments') return void res.writeHead(200, { 'content-type': 'application/json' }).end(transit);
  res.writeHead(404).end();
});

const dhl = (name: string, path: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'tracking-dhl',
  options: {
    base_url: `${carrier}${path}`,
    carriers: [name.toUpperCase()],
    api_key_env: 'WB_TEST_DHL_OUT',
    min_interval_seconds: 0,
    retry_min_ms: 10,
    ...options,
  },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      dhl('huge', '/huge'),
      dhl('padded', '/padded'),
      dhl('roomy', '/padded', { max_response_bytes: 8 * MiB }),
      dhl('away', '/away'),
      dhl('moved', '/moved'),
    ]),
  },
});
const shop = await shopClient(daemon);
const tracking = daemon.services.tracking;
onlyNockedNetwork();

describe('the answer cap (max_response_bytes, default 4 MiB)', () => {
  it('300 MB answers: each check fails with the cap in its error, the run stops, memory stays flat', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await shop.shipped('HUGE', `HUGE-${i}`)).shipmentId);
    const rss = process.memoryUsage().rss;
    const run = await runConnector(daemon, 'huge');
    expect(process.memoryUsage().rss - rss).toBeLessThan(150 * MiB);
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe(
      `The carrier API's answer was refused: the answer of ${carrier} is larger than 4 MiB (more than ${4 * MiB} bytes sent); the rest was not read. The run stopped; raise max_response_bytes if its answers are really that large.`,
    );
    // concurrency 4: the checks in flight when the first failed finish; none starts after.
    const checked = (await Promise.all(ids.map((id) => tracking.get(id)))).filter((t) => t !== null);
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(checked.length).toBeLessThanOrEqual(4);
    for (const t of checked) expect(t).toMatchObject({ error_count: 1, last_error: expect.stringContaining('is larger than 4 MiB') });
    expect(run.counts.checks_refused).toBe(checked.length);
    expect(run.counts.deferred).toBe(6 - checked.length);
    // A user error: the job is not retried (the next tick tries again).
    expect(await daemon.services.connectors.isEnabled('huge')).toBe(true);
  });

  it('a connector whose carrier really answers more raises max_response_bytes', async () => {
    await shop.shipped('PADDED', 'PAD-1');
    const roomy = await shop.shipped('ROOMY', 'PAD-2');
    expect(await runConnector(daemon, 'padded')).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining(`larger than 4 MiB (Content-Length ${Buffer.byteLength(padded)})`),
    });
    expect(await runConnector(daemon, 'roomy')).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, events_new: 2 } });
    expect(await tracking.get(roomy.shipmentId)).toMatchObject({ status: 'in_transit', last_error: null });
  });
});

describe('redirects', () => {
  it('to another host: the check fails, the run stops, and that host never sees the DHL-API-Key', async () => {
    const { shipmentId } = await shop.shipped('AWAY', 'AWAY-1');
    const run = await runConnector(daemon, 'away');
    expect(run).toMatchObject({ outcome: 'failed', counts: { checks_refused: 1 } });
    expect(run.error).toBe(
      `The carrier API's answer was refused: ${carrier} redirected to another origin (${other}); not followed, so the request's credentials are not sent there. The run stopped; check base_url.`,
    );
    expect(await tracking.get(shipmentId)).toMatchObject({
      error_count: 1,
      last_error: expect.stringContaining('redirected to another origin'),
    });
    expect(seen.filter((s) => s.host === 'other')).toEqual([]);
    expect(seen.filter((s) => s.path.startsWith('/away/'))).toEqual([expect.objectContaining({ key: 'dhl-outbound-key' })]);
  });

  it('on the same host: followed, with the key', async () => {
    await shop.shipped('MOVED', 'MOVED-1');
    expect(await runConnector(daemon, 'moved')).toMatchObject({ outcome: 'succeeded', counts: { checked: 1 } });
    expect(seen.filter((s) => s.path.startsWith('/v2/'))).toEqual([
      { host: 'carrier', path: '/v2/track/shipments?trackingNumber=MOVED-1', key: 'dhl-outbound-key' },
    ]);
  });
});
