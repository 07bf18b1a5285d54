// Each shop's webhook secret: shown by `shops create --json` and the admin API once, stored
// sealed (a database dump alone does not hold it), rotated by `shops rotate-secret` (the old one
// keeps signing webhook-signature beside the new one for 24 h, X-Madkting-Signature switches at
// once), and secrets stored before sealing are sealed at start.
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.ts';
import { startReceiver, type Hit } from './helpers.ts';

const ADMIN = 'webhook-secrets-admin-token';
const receiver = await startReceiver();
afterAll(() => receiver.close());
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: ADMIN } });
const app = daemon.app!;
const db = daemon.connection.db;
const env = { DATABASE_URL: daemon.database.url, WAYBILL_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' };
const bearer = { authorization: `Bearer ${ADMIN}` };

/** Every column of the shops table as text, as a dump would hold it. */
const dumped = async (): Promise<string> =>
  (await sql<{ t: string }>`select string_agg(row_to_json(shops)::text, E'\n') as t from shops`.execute(db)).rows[0]!.t;

const standardOk = (secret: string, hit: Hit): boolean => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const madktingOf = (secret: string, hit: Hit): string => createHmac('sha256', secret).update(hit.body).digest('hex');

/** One feed.completed delivery to the shop's receiver path; the hit. */
async function deliveryTo(shopPk: number, path: string): Promise<Hit> {
  const before = receiver.on(path).length;
  await daemon.jobs.send(db, 'webhook.deliver', {
    shopPk,
    messageId: `msg_${path.slice(1)}_${before}`,
    event: 'feed.completed',
    payload: { location: 'http://x/feeds/1/', pk: '1' },
  });
  await receiver.until(() => receiver.on(path).length > before, `a delivery to ${path}`);
  return receiver.on(path)[before]!;
}

describe("a shop's webhook secret", () => {
  it('is printed by shops create --json, never listed, and stored sealed', async () => {
    const r = await runCli(['shops', 'create', '--name', 'Secretive', '--webhook-url', `${receiver.url}/cli`, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const shop = r.json<{ pk: number; webhook_secret: string }>();
    expect(shop.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const text = await runCli(['shops', 'create', '--name', 'Readable'], env);
    expect(text.stdout).toMatch(/webhook secret \(shown once, store it now\):\n\n {2}whsec_/);

    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.stdout).not.toContain('whsec_');
    expect((await app.inject({ url: '/admin/api/shops', headers: bearer })).body).not.toContain('whsec_');
    const dump = await dumped();
    expect(dump).not.toContain(shop.webhook_secret);
    expect(dump).not.toContain('whsec_');
    expect(dump).toMatch(/"webhook_secret":"sealed:v1:[0-9a-f]{8}:/);

    // The sealed one is what signs.
    const hit = await deliveryTo(shop.pk, '/cli');
    expect(hit.headers['x-madkting-signature']).toBe(madktingOf(shop.webhook_secret, hit));
    expect(standardOk(shop.webhook_secret, hit)).toBe(true);
  });

  it('the admin API shows it in the create reply only, and rotates it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: bearer,
      payload: { name: 'From admin', webhook_url: `${receiver.url}/admin` },
    });
    expect(res.statusCode).toBe(201);
    const shop = res.json<{ pk: number; webhook_secret: string }>();
    expect(shop.webhook_secret).toMatch(/^whsec_/);
    // An Idempotency-Key is not honoured here: a replay would have to keep the secret.
    const withKey = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: { ...bearer, 'idempotency-key': 'k1' },
      payload: { name: 'Twice' },
    });
    const again = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: { ...bearer, 'idempotency-key': 'k1' },
      payload: { name: 'Twice' },
    });
    expect(again.json<{ pk: number }>().pk).not.toBe(withKey.json<{ pk: number }>().pk);
    expect(JSON.stringify((await sql`select body from idempotency_keys`.execute(db)).rows)).not.toContain('whsec_');

    const rotated = await app.inject({ method: 'POST', url: `/admin/api/shops/${shop.pk}/rotate-secret`, headers: bearer });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json()).toMatchObject({ pk: shop.pk, webhook_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.json<{ webhook_secret: string }>().webhook_secret).not.toBe(shop.webhook_secret);
    expect((await app.inject({ method: 'POST', url: '/admin/api/shops/999999/rotate-secret', headers: bearer })).statusCode).toBe(404);
  });

  it('shops rotate-secret: X-Madkting-Signature uses the new one at once; webhook-signature carries both for 24 h, then the new one only', async () => {
    const shop = (await runCli(['shops', 'create', '--name', 'Rotating', '--webhook-url', `${receiver.url}/rotate`, '--json'], env)).json<{
      pk: number;
      webhook_secret: string;
    }>();
    const old = shop.webhook_secret;
    const r = await runCli(['shops', 'rotate-secret', String(shop.pk), '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const rotated = r.json<{ pk: number; webhook_secret: string; previous_secret_valid_until: string }>();
    expect(rotated.pk).toBe(shop.pk);
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(old);
    expect(Date.parse(rotated.previous_secret_valid_until) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(await dumped()).not.toContain(rotated.webhook_secret);
    expect(await dumped()).not.toContain(old);

    const during = await deliveryTo(shop.pk, '/rotate');
    expect(during.headers['x-madkting-signature']).toBe(madktingOf(rotated.webhook_secret, during));
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardOk(rotated.webhook_secret, during)).toBe(true);
    expect(standardOk(old, during)).toBe(true);

    // Once the overlap is over, the old secret signs nothing.
    await sql`update shops set webhook_secret_previous_until = now() - interval '1 second' where pk = ${shop.pk}`.execute(db);
    const after = await deliveryTo(shop.pk, '/rotate');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardOk(rotated.webhook_secret, after)).toBe(true);
    expect(standardOk(old, after)).toBe(false);
    expect(after.headers['x-madkting-signature']).not.toBe(madktingOf(old, after));
  });

  it('rotate-secret without a shop pk is a usage error (2); an unknown shop fails (1)', async () => {
    const none = await runCli(['shops', 'rotate-secret'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("waybill: missing required argument 'shop'");
    const unknown = await runCli(['shops', 'rotate-secret', '424242', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.json<{ error: { code: string } }>().error.code).toBe('not_found');
  });

  it('a secret stored before sealing (an upgraded database) still signs, and is sealed at the next start', async () => {
    const { shopPk } = await daemon.shopWithKey({ webhook_url: `${receiver.url}/legacy` });
    const legacy = `whsec_${Buffer.from('a secret from an old db!').toString('base64')}`;
    await sql`update shops set webhook_secret = ${legacy} where pk = ${shopPk}`.execute(db);
    expect(await dumped()).toContain(legacy);
    const hit = await deliveryTo(shopPk, '/legacy');
    expect(standardOk(legacy, hit)).toBe(true);
    // A start (here a second process on the same database) seals it.
    const restarted = await startTestDaemon({ role: 'api', database: daemon.database });
    await restarted.stop();
    expect(restarted.logLines.find((l) => l.msg === 'webhook secrets sealed with the secret key')).toMatchObject({ shops: 1 });
    expect(await dumped()).not.toContain('whsec_');
    expect(await daemon.services.shops.sealPlaintextSecrets()).toBe(0);
    expect((await daemon.services.shops.webhookTarget(shopPk))!.secret).toBe(legacy);
  });
});
