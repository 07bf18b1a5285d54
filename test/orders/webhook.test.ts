// order.status_changed reaches a shop's webhook URL, signed per Standard Webhooks, delivered by
// the job queue after the action commits; refusals and no-ops send nothing. (Every header and
// both events as the clients see them: test/webhooks/receiver.test.ts.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { verify } from '../../src/webhooks/signature.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { holdOrderLock, items, orderClient } from './helpers.ts';
import { until } from '../helpers/until.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const daemon = await useTestDaemon();
const c = await orderClient(daemon, { webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
const quiet = await orderClient(daemon);

/** The status changes received (each intake sends order.created as well). */
const changes = (): Received[] => received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'order.status_changed');

const statusChanges = (count: number): Promise<boolean> => until(`${count} status changes`, () => changes().length >= count, 15_000);

describe('order.status_changed', () => {
  it('is posted, signed, after each action that moved an item, and only then', async () => {
    const o = await c.intake(10, 2);
    expect((await c.act(o, 'ship', { ...items(1), carrier: 'DHL', tracking_code: 'W1' })).statusCode).toBe(204);
    await statusChanges(1);
    const { secret } = (await daemon.services.shops.webhookTarget(c.shopPk))!;
    const first = changes()[0]!;
    expect(verify(secret, first.headers, first.body)).toEqual({ ok: true });
    expect(first.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first.body)).toEqual({
      event: 'product_feed:order:created',
      type: 'order.status_changed',
      location: `http://localhost:80${c.base}${o}/`,
      pk: o,
      shop_pk: c.shopPk,
      marketplace_pk: c.mp,
      order_pk: o,
      reference: `R-${o}`,
      action: 'ship',
      status: 'partial',
      previous_status: 'pending',
      items: [{ item_pk: 1, from: 'pending', to: 'shipped' }],
      source: `key:${c.keyPrefix}`,
      at: expect.any(String),
    });

    // A repeat, a shipping-data update and a refused action send nothing.
    expect((await c.act(o, 'ship', items(1))).statusCode).toBe(204);
    expect((await c.act(o, 'ship', { ...items(1), tracking_code: 'W2' })).statusCode).toBe(204);
    expect((await c.act(o, 'returned', items(1))).statusCode).toBe(409);
    expect((await c.act(o, 'cancel', items(2))).statusCode).toBe(204);
    await statusChanges(2);
    const second = JSON.parse(changes()[1]!.body) as Record<string, unknown>;
    expect(second).toMatchObject({ action: 'cancel', status: 'partial', items: [{ item_pk: 2, from: 'pending', to: 'cancelled' }] });
    expect(changes()[1]!.headers['webhook-id']).not.toBe(first.headers['webhook-id']);
    expect(verify(secret, changes()[1]!.headers, changes()[1]!.body)).toEqual({ ok: true });

    // A shop without a webhook URL: the action works, nothing is queued for it.
    const q = await quiet.intake(11, 1);
    expect((await quiet.act(q, 'cancel')).statusCode).toBe(204);
    await c.act(o, 'delivered');
    await statusChanges(3);
    expect(changes()).toHaveLength(3);
    expect(JSON.parse(changes()[2]!.body)).toMatchObject({ order_pk: o, action: 'delivered', status: 'partial' });
    // One intake, one order.created; the quiet shop's order sent nothing.
    expect(
      received
        .map((r) => JSON.parse(r.body) as { type: string; order_pk: number })
        .filter((e) => e.type === 'order.created')
        .map((e) => e.order_pk),
    ).toEqual([o]);
  });

  it('two actions racing on one order: each event tells the move it made, the second from where the first left the order', async () => {
    const first = changes().length;
    const o = await c.intake(12, 2);
    const hold = await holdOrderLock(daemon, c, o);
    const replies = Promise.all([c.act(o, 'ship', items(1)), c.act(o, 'cancel', items(2))]);
    await hold.waiting(2);
    await hold.release();
    expect((await replies).map((r) => r.statusCode)).toEqual([204, 204]);
    await statusChanges(first + 2);
    const events = changes()
      .slice(first)
      .map((r) => JSON.parse(r.body) as Record<string, unknown>);
    // Whichever won, the loser planned again from the winner's result: it left `partial`.
    expect(events.map((e) => e.previous_status).sort()).toEqual(['partial', 'pending']);
    expect(events.map((e) => e.status)).toEqual(['partial', 'partial']);
    expect(events.map((e) => e.action).sort()).toEqual(['cancel', 'ship']);
    expect(
      (await c.order(o)).history
        .slice(1)
        .map((h) => h.to)
        .sort(),
    ).toEqual(['cancelled', 'shipped']);
  });
});
