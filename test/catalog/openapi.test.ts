import { expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';

const daemon = await useTestDaemon({ role: 'api' });

it('the OpenAPI document describes every catalog and feed operation with its body and replies', async () => {
  const res = await daemon.app!.inject('/openapi.json');
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>> };
  const ops = (p: string) =>
    Object.keys(doc.paths[p] ?? {})
      .filter((m) => m !== 'options' && m !== 'head')
      .sort();
  expect(ops('/shops/{shop}/products/')).toEqual(['delete', 'get', 'post', 'put']);
  expect(ops('/shops/{shop}/products/{product}/')).toEqual(['delete', 'get']);
  expect(ops('/shops/{shop}/products/{product}/variations/')).toEqual(['delete', 'get', 'post', 'put']);
  expect(ops('/shops/{shop}/products/{product}/variations/{variation}/images/')).toEqual(['delete', 'get', 'post']);
  expect(ops('/shops/{shop}/products/{product}/variations/{variation}/')).toEqual(['get']);
  expect(ops('/shops/{shop}/products/{product}/variations/{variation}/images/{image}/')).toEqual(['get']);
  expect(ops('/shops/{shop}/products/{product}/images/')).toEqual(['delete', 'get', 'post', 'put']);
  expect(ops('/shops/{shop}/products/{product}/images/{image}/')).toEqual(['get']);
  expect(ops('/fields/')).toEqual(['get']);
  expect(ops('/feeds/{feed}/')).toEqual(['get']);
  expect(ops('/shops/{shop}/feeds/')).toEqual(['get']);
  const post = doc.paths['/shops/{shop}/products/']!.post!;
  expect(JSON.stringify(post.requestBody)).toContain('discount_from');
  expect(Object.keys(post.responses)).toContain('201');
});

it("each operation's security in the document is what it asks for: a key where it says so, none where it says []", async () => {
  const doc = (await daemon.app!.inject('/openapi.json')).json() as {
    security: Record<string, string[]>[];
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };
  const open: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schemes = (op.security ?? doc.security).flatMap((s) => Object.keys(s));
      const res = await daemon.app!.inject({
        method: method.toUpperCase() as 'GET',
        url: path.replace(/\{\w+\}/g, '1'),
        headers: { accept: 'application/json' },
      });
      if (schemes.length > 0)
        expect([`${method} ${path}`, res.statusCode]).toEqual([`${method} ${path}`, path.endsWith('.csv') ? 303 : 401]);
      else open.push(`${method} ${path}`);
      // A public read with nothing in its path answers without a key.
      if (schemes.length === 0 && method === 'get' && !path.includes('{')) expect([path, res.statusCode]).toEqual([path, 200]);
    }
  }
  expect(open.sort()).toEqual([
    'get /healthz',
    'get /metrics',
    'get /readyz',
    'get /shops/{shop}/marketplace/{mp}/orders/{order}/label/',
    'post /connectors/{name}/webhook',
    'post /webhooks/carriers/{name}/',
  ]);
});
