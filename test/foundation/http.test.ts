import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;

const expectProblem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string) => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:waybill:problem:${code}` });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(body.request_id).toBe(res.headers['x-request-id']);
  return body;
};

describe('system endpoints', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', job_queue: 'ok' } });
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = (await app.inject('/openapi.json')).json() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/healthz');
    const docs = await app.inject({ url: '/docs/', headers: { accept: 'text/html' } });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    expect((await app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id']).toBe('abc-123');
    expect((await app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\u0001' } })).headers['x-request-id']).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });
});

describe("problem JSON for Fastify's own errors", () => {
  it('404 for an unknown route', async () => {
    const body = expectProblem(await app.inject('/no/such/path'), 404, 'not_found');
    expect(body.detail).toContain('/no/such/path');
  });

  it('406 when Accept rules JSON out', async () => {
    expectProblem(await app.inject({ url: '/healthz', headers: { accept: 'text/html' } }), 406, 'not_acceptable');
    expect((await app.inject({ url: '/healthz', headers: { accept: 'text/html, application/json;q=0.5' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/healthz', headers: { accept: '*/*' } })).statusCode).toBe(200);
  });
});

describe('logs', () => {
  it('carry the request id on request lines', async () => {
    await app.inject({ url: '/healthz', headers: { 'x-request-id': 'log-trace-1' } });
    const lines = daemon.logLines.filter((l) => l.reqId === 'log-trace-1');
    // One line per request: method, path, status and time taken.
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', path: '/healthz', status: 200, ms: expect.any(Number) }),
    ]);
  });
});
