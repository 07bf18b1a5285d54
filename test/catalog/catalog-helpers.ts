// Helpers of the catalog and feed tests: submit through the API and wait for the feed.
import { expect } from 'vitest';
import type { InjectOptions } from 'fastify';
import type { App } from '../../src/http/app.ts';
import { isShedding } from '../helpers/shedding.ts';

export interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): unknown;
}

export type Feed = {
  pk: string;
  url: string;
  state: string;
  status: string;
  counts: Record<string, number>;
  result: { success: Record<string, unknown>[]; errors: Record<string, unknown>[]; criticals: Record<string, unknown>[] };
  [k: string]: unknown;
};

/** The path of a Location (inject answers with http://localhost:80/...). */
export const pathOf = (location: unknown): string => new URL(String(location), 'http://localhost').pathname;

/** Polls the feed until it is done or failed (2 s at most; workers wake at once). */
export async function waitFeed(app: App, auth: Record<string, string>, location: unknown, timeoutMs = 5_000): Promise<Feed> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await inject(app, { url: pathOf(location), headers: auth });
    expect(res.statusCode).toBe(200);
    const feed = res.json() as Feed;
    if (feed.state === 'done' || feed.state === 'failed') return feed;
    if (Date.now() > deadline) throw new Error(`feed still ${feed.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * app.inject, retried while the server sheds load (503 "overloaded" + Retry-After from
 * under-pressure when the event loop lags, as on a machine busy with several test runs): what a
 * client does too. Any other 503 fails the test at once: it is a regression, not load.
 */
export async function inject(app: App, opts: InjectOptions): Promise<Reply> {
  for (let i = 0; ; i++) {
    const res = (await app.inject(opts)) as unknown as Reply;
    if (res.statusCode === 503 && !isShedding(res)) throw new Error(`${opts.method ?? 'GET'} ${opts.url}: 503 that is not load shedding: ${res.body}`);
    if (!isShedding(res) || i >= 20) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Sends a catalog write, expects 201 + Location, and waits for its feed to finish. */
export async function write(app: App, auth: Record<string, string>, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<Feed> {
  const res = await inject(app, { method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode !== 201) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return waitFeed(app, auth, res.headers.location);
}

export const expectProblem = (res: Reply, status: number, code: string): { errors?: { pointer: string; code: string; message: string }[] } => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as { status: number; code: string; errors?: { pointer: string; code: string; message: string }[] };
  expect(body).toMatchObject({ status, code });
  return body;
};

export const product = (sku: string, extra: Record<string, unknown> = {}) => ({ sku, name: `Product ${sku}`, price: 10.5, stock: 3, ...extra });

export interface Page<T = Record<string, unknown>> {
  items: T[];
  /** X-Total-Count. */
  total: number;
  /** Link header by rel (first, prev, next, last): absolute URLs. */
  links: Record<string, string>;
}

/** A list reply as a client reads it: a bare JSON array, paged by Link and X-Total-Count. */
export function pageOf<T = Record<string, unknown>>(res: Reply): Page<T> {
  expect(res.statusCode).toBe(200);
  const items = res.json();
  expect(Array.isArray(items)).toBe(true);
  const links: Record<string, string> = {};
  for (const part of String(res.headers.link ?? '').split(', ').filter((p) => p !== '')) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    expect(m, `Link part ${part}`).not.toBeNull();
    links[m![2]!] = m![1]!;
  }
  return { items: items as T[], total: Number(res.headers['x-total-count']), links };
}
