import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/db.ts';
import { repoRoot, runCli, spawnDaemon, type DaemonProcess } from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

const database = await createTestDatabase();
afterAll(() => database.drop());
const env = { DATABASE_URL: database.url };

describe('waybill CLI (external database)', () => {
  it('init reports the database it acted on, up to date', async () => {
    const r = await runCli(['init', '--json'], env);
    expect(r.code).toBe(0);
    const url = new URL(database.url);
    expect(r.json()).toMatchObject({
      applied: [],
      database: 'external',
      created: false,
      location: `${url.hostname}:${url.port}${url.pathname}`,
    });
    expect(r.json<{ latest: string }>().latest).toMatch(/^\d{8}T\d{4}_/);
  });

  it('creates and lists shops, with one JSON object on stdout', async () => {
    const created = await runCli(
      ['shops', 'create', '--name', 'Corner Shop', '--webhook-url', 'https://hooks.example.com/w', '--json'],
      env,
    );
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

  it('gives a shop a tier (its share of the feed workers), and refuses an unknown one', async () => {
    const shop = (await runCli(['shops', 'create', '--name', 'Big importer', '--json'], env)).json<{ pk: number; tier: string }>();
    expect(shop.tier).toBe('standard');
    const updated = await runCli(['shops', 'update', String(shop.pk), '--tier', 'large', '--json'], env);
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ pk: shop.pk, name: 'Big importer', tier: 'large' });
    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.json<{ shops: { pk: number; tier: string }[] }>().shops.find((s) => s.pk === shop.pk)?.tier).toBe('large');
    const wrong = await runCli(['shops', 'update', String(shop.pk), '--tier', 'huge'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('standard, large, xlarge');
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
    expect(list.json<{ keys: { prefix: string; revoked_at: string | null }[] }>().keys).toEqual([
      expect.objectContaining({ prefix: key.prefix, revoked_at: null }),
    ]);
    const revoked = await runCli(['keys', 'revoke', key.prefix, '--json'], env);
    expect(revoked.code).toBe(0);
    expect(revoked.json<{ revoked_at: string }>().revoked_at).toBeTruthy();
    const again = await runCli(['keys', 'revoke', key.prefix], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already revoked');
  });

  it('creates marketplaces with a chosen or next pk', async () => {
    expect((await runCli(['marketplaces', 'create', '--name', 'Amazon', '--pk', '15', '--json'], env)).json()).toEqual({
      pk: 15,
      name: 'Amazon',
    });
    expect((await runCli(['marketplaces', 'create', '--name', 'Zalando', '--json'], env)).json()).toEqual({ pk: 16, name: 'Zalando' });
    const dup = await runCli(['marketplaces', 'create', '--name', 'X', '--pk', '15', '--json'], env);
    expect(dup.code).toBe(1);
    expect(dup.json()).toMatchObject({ error: { code: 'already_exists' } });
  });

  it('explains usage mistakes and unknown shops without a stack trace', async () => {
    const noName = await runCli(['shops', 'create'], env);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("required option '--name <name>' not specified");
    const unknown = await runCli(['keys', 'create', '--shop', '999999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Shop 999999 was not found');
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const bogus = await runCli(['frobnicate'], env);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('unknown command');
  });

  it("names a mistyped option with the right one: one line, then that command's usage only", async () => {
    const r = await runCli(['shops', 'create', '--nme', 'My shop'], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      "waybill: unknown option '--nme' (Did you mean --name?)",
      'Usage: waybill shops create --name <name> [--webhook-url <url>] [--json]',
      '(waybill shops create --help for more)',
    ]);
    const group = await runCli(['shop', 'list'], env);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain("unknown command 'shop' (Did you mean shops?)");
    const badPk = await runCli(['keys', 'create', '--shop', 'first'], env);
    expect(badPk.code).toBe(2);
    expect(badPk.stderr.split('\n')[0]).toBe(
      "waybill: option '--shop <pk>' argument 'first' is invalid. --shop must be a positive integer.",
    );
    expect(badPk.stderr).not.toContain('marketplaces');
  });

  it('shows the help of one command group or command', async () => {
    const shops = await runCli(['shops', '--help'], {});
    expect(shops.code).toBe(0);
    expect(shops.stdout).toMatch(/^Usage: waybill shops/);
    for (const sub of ['create', 'list', 'update', 'rotate-secret']) expect(shops.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    expect(shops.stdout).not.toContain('marketplaces');
    const create = await runCli(['shops', 'create', '--help'], {});
    expect(create.stdout).toContain('Usage: waybill shops create --name <name> [--webhook-url <url>] [--json]');
    expect(create.stdout).toContain('--webhook-url <url>');
    const all = await runCli(['--help'], {});
    for (const command of ['start', 'init', 'shops', 'keys', 'marketplaces', 'connectors'])
      expect(all.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('an unreachable or missing database is one line naming host, port and the reason, exit 1', async () => {
    // A port nothing listens on: the OS chose it, then it was closed.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as net.AddressInfo;
        server.close(() => resolve(p));
      });
    });
    const r = await runCli(['shops', 'list'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/waybill` });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`waybill: cannot reach the database at 127.0.0.1:${port}: ECONNREFUSED\n`);
    const json = await runCli(['shops', 'list', '--json'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/waybill` });
    expect(json.json()).toEqual({
      error: { code: 'database_unreachable', message: `cannot reach the database at 127.0.0.1:${port}: ECONNREFUSED` },
    });
    const url = new URL(database.url);
    url.pathname = '/no_such_database';
    const missing = await runCli(['shops', 'list'], { DATABASE_URL: url.toString() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`waybill: cannot use the database at ${url.host}/no_such_database: the database does not exist\n`);
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
      const r = await runCli(['init', '--json'], { DATABASE_URL: url });
      expect(r.code).toBe(0);
      expect(r.json<{ applied: string[] }>().applied.length).toBeGreaterThan(0);
      const fresh = new pg.Client({ connectionString: url });
      await fresh.connect();
      const tables = await fresh.query<{ t: string | null }>(`select to_regclass('shops')::text as t`);
      await fresh.end();
      expect(tables.rows[0]?.t).toBe('shops');
      // `migrate` is init's other name.
      const again = await runCli(['migrate', '--json'], { DATABASE_URL: url });
      expect(again.json<{ applied: string[] }>().applied).toEqual([]);
    } finally {
      await admin.query(`drop database if exists ${empty} with (force)`);
      await admin.end();
    }
  });
});

describe('which database a command uses', { timeout: 120_000 }, () => {
  const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'waybill-cli-'));

  it('a command without DATABASE_URL and without a database in WAYBILL_DATA_DIR creates none: one line, exit 2', async () => {
    const cwd = tempDir();
    const r = await runCli(['shops', 'create', '--name', 'My shop'], {}, cwd);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `waybill: no database: set DATABASE_URL, or WAYBILL_DATA_DIR to the daemon's data folder (${path.join(cwd, 'data')} holds none; \`waybill init\` creates one there)\n`,
    );
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('init creates the embedded database and says where; commands then use it', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const env = { WAYBILL_DATA_DIR: dataDir };
    const init = await runCli(['init'], env);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(new RegExp(`^Created the embedded database in ${dataDir}: applied \\d{8}T`));
    const shop = await runCli(['shops', 'create', '--name', 'My shop', '--json'], env);
    expect(shop.code, shop.stderr).toBe(0);
    expect((await runCli(['init'], env)).stdout).toMatch(new RegExp(`^Embedded database in ${dataDir}: up to date`));
  });

  it("the daemon's start-up hint prints commands that reach its database from any folder", async () => {
    const db = await createTestDatabase();
    const dataDir = tempDir();
    let daemon: DaemonProcess | null = null;
    try {
      daemon = await spawnDaemon({ DATABASE_URL: db.url, WAYBILL_DATA_DIR: dataDir });
      const hintLine = (): string | undefined =>
        daemon!
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => (JSON.parse(l) as { msg?: string }).msg ?? '')
          .find((m) => m.startsWith('No shop yet'));
      const hint =
        /^No shop yet\. Create one with: (.+ npx waybill shops create --name "My shop") {3}then a key with: (.+ npx waybill keys create --shop 1)$/.exec(
          await until('the start-up hint', hintLine, 30_000),
        );
      expect(hint).not.toBeNull();
      // The hint never prints the database password (the embedded test server has one).
      const password = new URL(db.url).password;
      const printedUrl = password === '' ? db.url : db.url.replace(`:${password}@`, ':PASSWORD@');
      expect(hint![1]).toBe(`DATABASE_URL=${printedUrl} WAYBILL_DATA_DIR=${dataDir} npx waybill shops create --name "My shop"`);
      // Run as printed, from another folder, with none of the daemon's environment.
      const bin = path.join(repoRoot, 'bin', 'waybill.js');
      const shell = (line: string): Promise<{ code: number | null; stdout: string }> =>
        new Promise((resolve) => {
          const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
          delete env.DATABASE_URL;
          delete env.WAYBILL_DATA_DIR;
          // The operator types the password in where the hint says PASSWORD.
          const typed = line.replace(printedUrl, db.url).replace('npx waybill', `"${process.execPath}" "${bin}"`);
          const child = spawn('sh', ['-c', typed], { cwd: tempDir(), env, stdio: ['ignore', 'pipe', 'inherit'] });
          let stdout = '';
          child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
          child.on('close', (code) => resolve({ code, stdout }));
        });
      expect((await shell(hint![1]!)).code).toBe(0);
      const key = await shell(`${hint![2]!} --json`);
      expect(key.code).toBe(0);
      const token = (JSON.parse(key.stdout) as { key: string }).key;
      const auth = { authorization: `Token ${token}`, 'content-type': 'application/json' };
      const products = await fetch(`${daemon.url}/shops/1/products/`, { headers: auth });
      expect(products.status).toBe(200);
      // A product with dated fields, written and read back: the daemon prints nothing but its
      // JSON log lines on stdout and stderr.
      const body = JSON.stringify({
        sku: 'HINT-1',
        name: 'First',
        price: 1,
        stock: 1,
        discount: 5,
        discount_from: '2026-11-01T00:00:00',
        discount_to: '2026-12-01T00:00:00',
      });
      const posted = await fetch(`${daemon.url}/shops/1/products/`, { method: 'POST', headers: auth, body });
      expect(posted.status).toBe(201);
      const feed = await until(
        'the feed done',
        async () => {
          const r = (await (await fetch(posted.headers.get('location')!, { headers: auth })).json()) as {
            status: string;
            result: { success: { product_pk: number }[] };
          };
          return r.status === 'Complete' ? r : null;
        },
        30_000,
      );
      expect(feed).toMatchObject({ counts: { succeeded: 1, failed: 0 } });
      const product = (await (
        await fetch(`${daemon.url}/shops/1/products/${feed.result.success[0]!.product_pk}/`, { headers: auth })
      ).json()) as { discount_from: string };
      expect(product, JSON.stringify(product)).toMatchObject({ discount_from: '2026-11-01T00:00:00' });
      expect(
        daemon
          .output()
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('{')),
      ).toEqual([]);
    } finally {
      daemon?.child.kill('SIGTERM');
      await daemon?.exited;
      await db.drop();
    }
  });
});
