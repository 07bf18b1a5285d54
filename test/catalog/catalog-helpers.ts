// Helpers of the catalog and feed tests: submit through the API and wait for the feed.
import { expect } from 'vitest';
import type { App } from '../../src/http/app.ts';
import { until } from '../helpers/until.ts';

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

/** Polls the feed until it is done or failed (5 s by default; workers wake at once). */
export async function waitFeed(app: App, auth: Record<string, string>, location: unknown, timeoutMs = 5_000): Promise<Feed> {
  // Anything but a 200 of a feed still running ends the wait, so an unexpected answer fails at once.
  const res = await until(
    `feed ${String(location)} to finish`,
    async () => {
      const r = await app.inject({ url: pathOf(location), headers: auth });
      return r.statusCode !== 200 || ['done', 'failed'].includes((r.json() as Feed).state) ? r : false;
    },
    timeoutMs,
    20,
  );
  expect(res.statusCode).toBe(200);
  return res.json() as Feed;
}

/** Sends a catalog write, expects 201 + Location, and waits for its feed to finish. */
export async function write(
  app: App,
  auth: Record<string, string>,
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<Feed> {
  const res = await app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode !== 201) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return waitFeed(app, auth, res.headers.location);
}

export const expectProblem = (
  res: Reply,
  status: number,
  code: string,
): { errors?: { pointer: string; code: string; message: string }[] } => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as { status: number; code: string; errors?: { pointer: string; code: string; message: string }[] };
  expect(body).toMatchObject({ status, code });
  return body;
};

export const product = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  name: `Product ${sku}`,
  price: 10.5,
  stock: 3,
  ...extra,
});

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
  for (const part of String(res.headers.link ?? '')
    .split(', ')
    .filter((p) => p !== '')) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    expect(m, `Link part ${part}`).not.toBeNull();
    links[m![2]!] = m![1]!;
  }
  return { items: items as T[], total: Number(res.headers['x-total-count']), links };
}
