// Shops' webhook URLs cannot aim at internal addresses, with the default configuration (no
// WAYBILL_WEBHOOK_ALLOW_PRIVATE): refused with a 400 pointer when set through the admin API
// or the CLI, and refused again at delivery when a name resolves to an internal address.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const ADMIN = 'webhook-destinations-admin-token';
const hits: string[] = [];
const receiver = http.createServer((req, res) => {
  hits.push(req.url ?? '');
  req.resume();
  res.writeHead(204).end();
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
const port = (receiver.address() as AddressInfo).port;

// The default: nothing internal allowed (the test helper allows 127.0.0.1 unless told otherwise).
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: ADMIN, WAYBILL_WEBHOOK_ALLOW_PRIVATE: '' } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${ADMIN}` };

describe('when a webhook URL is set', () => {
  it('the admin API (and the dashboard form, which posts to it) answers 400 naming webhook_url', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2130706433/',
      'http://[::1]/',
      'http://0.0.0.0:8080/',
      'https://user:pass@hooks.example.com/',
      `http://localhost:${port}/`,
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/admin/api/shops',
        headers: bearer,
        payload: { name: 'Internal', webhook_url: url },
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ status: 400, errors: [{ pointer: '/webhook_url', code: 'destination_refused' }] });
    }
    const meta = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: bearer,
      payload: { name: 'Meta', webhook_url: 'http://169.254.169.254/' },
    });
    expect(meta.json<{ detail: string }>().detail).toBe(
      'webhook_url points at an internal address (169.254.0.0/16 link-local (cloud metadata 169.254.169.254)); list it in WAYBILL_WEBHOOK_ALLOW_PRIVATE to allow it.',
    );
    const ok = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: bearer,
      payload: { name: 'Public', webhook_url: 'https://hooks.example.com/waybill' },
    });
    expect(ok.statusCode).toBe(201);
    expect((await daemon.services.shops.list()).map((s) => s.name)).not.toContain('Internal');
  });

  it('the CLI (shops create --webhook-url) exits 1 with the reason, and creates nothing', async () => {
    const before = (await daemon.services.shops.list()).length;
    const r = await runCli(['shops', 'create', '--name', 'Sneaky', '--webhook-url', 'http://[::ffff:169.254.169.254]/', '--json'], {
      DATABASE_URL: daemon.database.url,
    });
    expect(r.code).toBe(1);
    expect(r.json<{ error: { code: string; message: string } }>().error).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('internal address (169.254.0.0/16'),
    });
    expect(r.stderr).toContain('webhook_url points at an internal address');
    expect((await daemon.services.shops.list()).length).toBe(before);
  });

  it('a shop update is checked the same way', async () => {
    const { shopPk } = await daemon.shopWithKey();
    await expect(daemon.services.shops.update(shopPk, { webhook_url: 'http://10.0.0.7/hook' })).rejects.toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
    expect((await daemon.services.shops.get(shopPk)).webhook_url).toBeNull();
  });
});

describe('at delivery', () => {
  it('a name that resolves to 127.0.0.1 (localhost) is refused before connecting: dead-lettered, never received', async () => {
    // As a URL stored before the rule, or a name whose address changed since it was set.
    const { shopPk } = await daemon.shopWithKey();
    await sql`update shops set webhook_url = ${`http://localhost:${port}/stored-before`} where pk = ${shopPk}`.execute(
      daemon.connection.db,
    );
    await daemon.jobs.send(daemon.connection.db, 'webhook.deliver', {
      shopPk,
      messageId: 'msg_rebound',
      event: 'feed.completed',
      payload: {},
    });
    const dead = await until(
      'the refused delivery in the dead-letter queue',
      async () => {
        const jobs = (await app.inject({ url: '/admin/api/queues/webhook.deliver.dead/jobs', headers: bearer })).json() as {
          error: string | null;
          attempts: number;
          data: { messageId: string };
        }[];
        return jobs.find((j) => j.data.messageId === 'msg_rebound');
      },
      20_000,
    );
    expect(dead.error).toContain(`webhook http://localhost:${port}/stored-before refused: localhost resolves to `);
    expect(dead.error).toMatch(
      /resolves to (127\.0\.0\.1, an internal address \(127\.0\.0\.0\/8 loopback\)|::1, an internal address \(::\/96 [^)]*\)\)); not connected/,
    );
    expect(dead.attempts).toBe(1);
    expect(hits).toEqual([]);
  });
});
