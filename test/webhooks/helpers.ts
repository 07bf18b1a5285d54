// A shop's webhook receiver for the tests: a real HTTP server on 127.0.0.1, port 0, that keeps
// every request (headers and the exact body bytes) and answers as the test tells it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from '../helpers/until.ts';

export interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received. */
  body: Buffer;
  json: Record<string, unknown>;
}

/** What to answer a request: a status and body, or 'hang' (never answer). */
export type Answer = { status: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  hits: Hit[];
  /** Requests received on a path. */
  on(path: string): Hit[];
  /** Waits until `check` holds of the hits. */
  until(check: (hits: Hit[]) => boolean, what: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** `answer(hit, n)`: n is how many requests this path had before this one. */
export async function startReceiver(answer: (hit: Hit, n: number) => Answer = () => ({ status: 204 })): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        /* not JSON: kept as bytes */
      }
      const hit = { path: req.url ?? '', headers: req.headers, body, json };
      const n = hits.filter((h) => h.path === hit.path).length;
      hits.push(hit);
      const a = answer(hit, n);
      if (a !== 'hang') res.writeHead(a.status).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    on: (path) => hits.filter((h) => h.path === path),
    async until(check, what, ms = 20_000) {
      await until(what, () => check(hits), ms);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
