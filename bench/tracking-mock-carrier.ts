// The mock carrier of bench/tracking.bench.ts, in its own process (its clock and event loop are
// the carrier's): DHL's documented "delivered" answer after a latency (argv[2], ms); it records
// each request's arrival time and reports them to the parent over IPC when asked.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

const LATENCY_MS = Number(process.argv[2] ?? 20);
const delivered = JSON.parse(fs.readFileSync(new URL('../connectors/tracking-dhl/fixtures/delivered.json', import.meta.url), 'utf8')) as {
  shipments: { id: string }[];
};
let arrivals: number[] = [];
const server = http.createServer((req, res) => {
  arrivals.push(performance.timeOrigin + performance.now());
  const number = new URL(req.url ?? '/', 'http://x').searchParams.get('trackingNumber') ?? '';
  const body = JSON.stringify({ ...delivered, shipments: [{ ...delivered.shipments[0], id: number }] });
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), LATENCY_MS);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('message', (m: string) => {
  if (m === 'reset') {
    arrivals = [];
    process.send!({ reset: true });
  }
  if (m === 'report') process.send!({ arrivals });
  if (m === 'stop') {
    server.closeAllConnections();
    server.close();
    process.disconnect();
  }
});
