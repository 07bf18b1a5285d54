import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/db.ts';
import { runCli } from '../helpers/cli.ts';

const database = await createTestDatabase();
afterAll(() => database.drop());
const env = { DATABASE_URL: database.url };

describe('waybill CLI (external database)', () => {
  it('migrate reports the database up to date', async () => {
    const r = await runCli(['migrate', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ applied: [], database: 'external' });
    expect(r.json<{ latest: string }>().latest).toMatch(/^\d{8}T\d{4}_/);
  });

  it('creates and lists shops, with one JSON object on stdout', async () => {
    const created = await runCli(['shops', 'create', '--name', 'Corner Shop', '--webhook-url', 'https://hooks.example.com/w', '--json'], env);
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    const shop = created.json<{ pk: number; name: string; webhook_url: string }>();
    expect(shop).toMatchObject({ name: 'Corner Shop', webhook_url: 'https://hooks.example.com/w' });
    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.json<{ shops: { pk: number }[] }>().shops.map((s) => s.pk)).toContain(shop.pk);
    const text = await runCli(['shops', 'list'], env);
    expect(text.stdout).toMatch(/pk\s+name/);
    expect(text.stdout).toContain('Corner Shop');
  });

  it('creates a key shown once, lists it by prefix only, and revokes it', async () => {
    const shop = (await runCli(['shops', 'create', '--name', 'K', '--json'], env)).json<{ pk: number }>();
    const created = await runCli(['keys', 'create', '--shop', String(shop.pk), '--json'], env);
    expect(created.code).toBe(0);
    const key = created.json<{ key: string; prefix: string; shop_pk: number }>();
    expect(key.key.length).toBeGreaterThanOrEqual(40);
    expect(key.shop_pk).toBe(shop.pk);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const list = await runCli(['keys', 'list', '--shop', String(shop.pk), '--json'], env);
    expect(list.stdout).not.toContain(key.key);
    expect(list.json<{ keys: { prefix: string; revoked_at: string | null }[] }>().keys).toEqual([expect.objectContaining({ prefix: key.prefix, revoked_at: null })]);
    const revoked = await runCli(['keys', 'revoke', key.prefix, '--json'], env);
    expect(revoked.code).toBe(0);
    expect(revoked.json<{ revoked_at: string }>().revoked_at).toBeTruthy();
    const again = await runCli(['keys', 'revoke', key.prefix], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already revoked');
  });

  it('creates marketplaces with a chosen or next pk', async () => {
    expect((await runCli(['marketplaces', 'create', '--name', 'Amazon', '--pk', '15', '--json'], env)).json()).toEqual({ pk: 15, name: 'Amazon' });
    expect((await runCli(['marketplaces', 'create', '--name', 'Zalando', '--json'], env)).json()).toEqual({ pk: 16, name: 'Zalando' });
    const dup = await runCli(['marketplaces', 'create', '--name', 'X', '--pk', '15', '--json'], env);
    expect(dup.code).toBe(1);
    expect(dup.json()).toMatchObject({ error: { code: 'already_exists' } });
  });

  it('explains usage mistakes and unknown shops without a stack trace', async () => {
    const noName = await runCli(['shops', 'create'], env);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name');
    const unknown = await runCli(['keys', 'create', '--shop', '999999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Shop 999999 was not found');
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const bogus = await runCli(['frobnicate'], env);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('unknown command');
  });

  it('refuses bad configuration, naming every variable, exit 2', async () => {
    const r = await runCli(['shops', 'list'], { ...env, PORT: 'abc', LOG_LEVEL: 'chatty' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT');
    expect(r.stderr).toContain('LOG_LEVEL');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('migrations', () => {
  it('run up from an empty database', async () => {
    const { default: pg } = await import('pg');
    const empty = `${database.name}_empty`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`create database ${empty}`);
    try {
      const url = database.url.replace(/\/[^/]+$/, `/${empty}`);
      const r = await runCli(['migrate', '--json'], { DATABASE_URL: url });
      expect(r.code).toBe(0);
      expect(r.json<{ applied: string[] }>().applied.length).toBeGreaterThan(0);
      const fresh = new pg.Client({ connectionString: url });
      await fresh.connect();
      const tables = await fresh.query<{ t: string | null }>(`select to_regclass('shops')::text as t`);
      await fresh.end();
      expect(tables.rows[0]?.t).toBe('shops');
      const again = await runCli(['migrate', '--json'], { DATABASE_URL: url });
      expect(again.json<{ applied: string[] }>().applied).toEqual([]);
    } finally {
      await admin.query(`drop database if exists ${empty} with (force)`);
      await admin.end();
    }
  });
});
