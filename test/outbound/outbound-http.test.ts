// The shared outbound mechanism against real local servers: answers past the byte cap (with
// and without Content-Length, fast and slow) fail with a clear error after reading about the
// cap; redirects to another origin fail and the other host never sees the request; same-origin
// redirects are followed a few times; a guard sees every resolved address before connecting.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DestinationPolicy } from '../../src/outbound/destination-policy.ts';
import { outboundRequest, OutboundError } from '../../src/outbound/outbound-http.ts';

const MiB = 1024 * 1024;
const block = Buffer.alloc(MiB, 'x');
const seen: { host: string; path: string; headers: http.IncomingHttpHeaders }[] = [];
/** Bytes each huge answer managed to write before the client closed the connection. */
const written: number[] = [];

async function serve(name: string, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    seen.push({ host: name, path: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `total` bytes of JSON-looking filler, as fast as the client reads or every `pauseMs`. */
function huge(res: http.ServerResponse, total: number, options: { length: boolean; pauseMs?: number }): void {
  res.writeHead(200, { 'content-type': 'application/json', ...(options.length ? { 'content-length': String(total) } : {}) });
  let sent = 0;
  res.on('close', () => written.push(sent));
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      const n = Math.min(block.length, total - sent);
      sent += n;
      const more = res.write(n === block.length ? block : block.subarray(0, n));
      if (options.pauseMs !== undefined) {
        setTimeout(pump, options.pauseMs);
        return;
      }
      if (!more) return void res.once('drain', pump);
    }
    if (sent >= total) res.end();
  };
  pump();
}

const carrier = await serve('carrier', (req, res) => {
  const url = new URL(req.url!, 'http://x');
  if (url.pathname === '/huge') return huge(res, 400 * MiB, { length: true });
  if (url.pathname === '/huge-chunked') return huge(res, 400 * MiB, { length: false });
  if (url.pathname === '/slow-chunked') return huge(res, 40 * MiB, { length: false, pauseMs: 20 });
  if (url.pathname === '/small')
    return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
  if (url.pathname === '/moved') return void res.writeHead(301, { location: '/small' }).end();
  if (url.pathname === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
  if (url.pathname === '/away') return void res.writeHead(302, { location: `${other}/steal?from=carrier` }).end();
  res.writeHead(404).end();
});
const other = await serve('other', (_req, res) => res.writeHead(200).end('{"stolen":true}'));

const call = (path: string, extra: Partial<Parameters<typeof outboundRequest>[1]> = {}) =>
  outboundRequest(`${carrier}${path}`, {
    headers: { 'DHL-API-Key': 'secret-key' },
    signal: AbortSignal.timeout(20_000),
    maxRedirects: 3,
    ...extra,
  });

describe('the byte cap', () => {
  it('a 400 MB answer with Content-Length fails at once with the cap in the message', async () => {
    const error = await call('/huge').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).reason).toBe('too_large');
    expect((error as Error).message).toBe(
      `the answer of ${carrier} is larger than 4 MiB (Content-Length ${400 * MiB}); the rest was not read`,
    );
  });

  it('a 400 MB chunked answer without Content-Length stops after about the cap; memory stays flat', async () => {
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < 5; i++) {
      const error = await call('/huge-chunked').catch((e: unknown) => e);
      expect((error as Error).message).toBe(
        `the answer of ${carrier} is larger than 4 MiB (more than ${4 * MiB} bytes sent); the rest was not read`,
      );
    }
    // 5 x 400 MB offered; each connection was closed after the cap plus what the socket buffers held.
    await expect.poll(() => written.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(6);
    for (const n of written) expect(n).toBeLessThan(16 * MiB);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * MiB);
  });

  it('a slow chunked answer fails when it passes the cap, long before it ends', async () => {
    const started = Date.now();
    const error = await call('/slow-chunked').catch((e: unknown) => e);
    expect((error as OutboundError).reason).toBe('too_large');
    // 1 MiB every 20 ms: the cap is passed after about 100 ms, the whole answer would take 800 ms.
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('a smaller cap for one call, and maxBytes 0 to discard the body unread', async () => {
    expect((await call('/small', { maxBytes: 11 })).body.toString()).toBe('{"ok":true}');
    await expect(call('/small', { maxBytes: 10 })).rejects.toThrow(/larger than 10 bytes \(Content-Length 11\)/);
    const discarded = await call('/huge', { maxBytes: 0 });
    expect(discarded.status).toBe(200);
    expect(discarded.body.length).toBe(0);
  });

  it('the call signal cuts a body that arrives too slowly (the reason is the time-out)', async () => {
    const error = await call('/slow-chunked', { maxBytes: 100 * MiB, signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
  });
});

describe('redirects', () => {
  it('to another origin: an error of the call, and the other host never sees the request or the key', async () => {
    const before = seen.filter((s) => s.host === 'other').length;
    const error = await call('/away').catch((e: unknown) => e);
    expect((error as OutboundError).reason).toBe('redirect_refused');
    expect((error as Error).message).toBe(
      `${carrier} redirected to another origin (${other}); not followed, so the request's credentials are not sent there`,
    );
    expect(seen.filter((s) => s.host === 'other')).toHaveLength(before);
  });

  it('to the same origin: followed (GET), with the same headers, at most maxRedirects times', async () => {
    const res = await call('/moved');
    expect(res).toMatchObject({ status: 200, url: `${carrier}/small` });
    expect(seen.at(-1)).toMatchObject({ host: 'carrier', path: '/small', headers: { 'dhl-api-key': 'secret-key' } });
    await expect(call('/loop')).rejects.toThrow(`${carrier} redirected more than 3 times`);
    // Without maxRedirects the 3xx is the answer.
    expect((await call('/away', { maxRedirects: 0 })).status).toBe(302);
  });
});

describe('a destination guard', () => {
  it('checks the address a name resolves to before connecting: localhost is refused without the allow-list', async () => {
    const port = new URL(carrier).port;
    const before = seen.length;
    const refused = await outboundRequest(`http://localhost:${port}/small`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(5_000),
      guard: new DestinationPolicy(),
    }).catch((e: unknown) => e);
    expect((refused as OutboundError).reason).toBe('destination_refused');
    expect((refused as Error).message).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), an internal address \((127\.0\.0\.0\/8 loopback|::\/96 .*)\); not connected/,
    );
    expect(seen.length).toBe(before);
    // Allowed by name, or by the address it resolves to, the same call goes through.
    for (const allow of ['localhost', '127.0.0.1', '127.0.0.0/8']) {
      const allowed = await outboundRequest(`http://localhost:${port}/small`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(5_000),
        guard: new DestinationPolicy([allow]),
      });
      expect(allowed.status).toBe(200);
    }
  });

  it('checks a literal address and credentials in the URL before any connection', async () => {
    const port = new URL(carrier).port;
    const before = seen.length;
    for (const url of [`http://127.0.0.1:${port}/small`, `http://2130706433:${port}/small`, `http://[::ffff:127.0.0.1]:${port}/small`]) {
      await expect(outboundRequest(url, { signal: AbortSignal.timeout(5_000), guard: new DestinationPolicy() })).rejects.toThrow(
        /internal address \(127\.0\.0\.0\/8 loopback\)/,
      );
    }
    await expect(
      outboundRequest(`http://u:p@127.0.0.1:${port}/small`, {
        signal: AbortSignal.timeout(5_000),
        guard: new DestinationPolicy(['127.0.0.1']),
      }),
    ).rejects.toThrow(/must not carry credentials/);
    expect(seen.length).toBe(before);
  });
});
