// A WooCommerce REST API v3 stand-in for the pull bench: `count` simple products, served 100 a
// page (X-WP-TotalPages) after a fixed latency per request, the trash empty. Counts requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface MockApi {
  url: string;
  requests(): number;
  close(): Promise<void>;
}

export function mockProduct(i: number, prefix: string): Record<string, unknown> {
  return {
    id: i + 1,
    name: `Product ${i}`,
    type: 'simple',
    status: 'publish',
    sku: `${prefix}-${i}`,
    date_modified_gmt: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString().slice(0, 19),
    description: `Product ${i}, a fine thing; made to last.`,
    short_description: '',
    regular_price: String(10 + (i % 50)),
    price: String(10 + (i % 50)),
    manage_stock: true,
    stock_quantity: 10,
    stock_status: 'instock',
    weight: '',
    dimensions: { length: '', width: '', height: '' },
    categories: [],
    attributes: [],
    variations: [],
    images: [
      { id: 1, src: `https://img.example/${prefix}-${i}/a.jpg` },
      { id: 2, src: `https://img.example/${prefix}-${i}/b.jpg` },
    ],
  };
}

export async function startMockWoo(count: number, prefix: string, latencyMs: number): Promise<MockApi> {
  let requests = 0;
  const perPage = 100;
  const pages = Math.ceil(count / perPage);
  const server = http.createServer((req, res) => {
    requests++;
    void (async () => {
      await sleep(latencyMs);
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page') ?? 1);
      const items =
        q.get('status') === 'trash'
          ? []
          : Array.from({ length: Math.max(0, Math.min(perPage, count - (page - 1) * perPage)) }, (_, k) =>
              mockProduct((page - 1) * perPage + k, prefix),
            );
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-wp-total': String(count),
        'x-wp-totalpages': String(q.get('status') === 'trash' ? 0 : pages),
      });
      res.end(JSON.stringify(items));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
