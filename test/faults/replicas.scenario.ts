// Two replicas started together on one empty database: they migrate it without tripping over
// each other, feeds sent to either are each processed once, both replicas do work, and each
// cron tick of a connector is queued once (one job), not once per scheduler (maintenance ticks,
// daily, take the same job id path: test/connectors/scheduler.test.ts).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freshTarget, runCli, spawnDaemon, until, type DaemonProcess, type Outcome, type Scenario } from './harness.ts';

const FEEDS = 40;

const processedLines = (output: string): string[] =>
  output
    .split('\n')
    .filter((l) => l.includes('"feed processed"'))
    .map((l) => (JSON.parse(l) as { feedPk: string }).feedPk);
const migratedLines = (output: string): string[] =>
  output
    .split('\n')
    .filter((l) => l.includes('"database migrated"'))
    .flatMap((l) => (JSON.parse(l) as { applied: string[] }).applied);

export const replicas: Scenario = {
  name: 'two-replicas',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    // Without DATABASE_URL the replicas share the embedded server of one data folder: it is
    // started first, and both reach it by its URL, as replicas reach an external database (a
    // second full daemon on one data folder is refused: docs/operations.md). The database
    // itself stays empty.
    const dbEnv = target.mode === 'embedded' ? { DATABASE_URL: await target.connectionString() } : target.env;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-replicas-'));
    const problems: string[] = [];
    const inbox = path.join(dir, 'inbox');
    await fs.mkdir(inbox);
    const configFile = path.join(dir, 'connectors.json');
    // The first shop of an empty database is pk 1 (made below, once both replicas run).
    await fs.writeFile(
      configFile,
      JSON.stringify({
        connectors: [
          {
            name: 'erp',
            type: 'catalog-file',
            shop_pk: 1,
            schedule: '* * * * *',
            enabled: true,
            options: { inbox, format: 'csv', settle_ms: 200 },
          },
        ],
      }),
    );
    const env = { ...dbEnv, WAYBILL_CONNECTORS: configFile };
    // Both at once on the empty database: each migrates it at start-up.
    const started = await Promise.allSettled([spawnDaemon(env), spawnDaemon(env)]);
    const [a, b] = started.map((s) => (s.status === 'fulfilled' ? s.value : null)) as [DaemonProcess | null, DaemonProcess | null];
    try {
      if (a === null || b === null) {
        const why = started.map((s) => (s.status === 'rejected' ? String((s.reason as Error).message).slice(-2000) : '')).join('\n');
        return { pass: false, figures: {}, detail: `a replica did not start next to the other on an empty database:\n${why}` };
      }
      const migrated = [...migratedLines(a.output()), ...migratedLines(b.output())];
      if (new Set(migrated).size !== migrated.length) problems.push(`a migration was applied twice: ${migrated.join(', ')}`);
      const shop = await runCli(['shops', 'create', '--name', 'Replica shop', '--json'], target.env);
      const shopPk = shop.json<{ pk: number }>().pk;
      if (shopPk !== 1) throw new Error(`the first shop is ${shopPk}, not 1`);
      const key = (await runCli(['keys', 'create', '--shop', '1', '--json'], target.env)).json<{ key: string }>().key;
      const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
      for (let i = 0; i < FEEDS; i++) {
        const replica = i % 2 === 0 ? a : b;
        const products = Array.from({ length: 20 }, (_, j) => ({ sku: `R${i}-${j}`, name: 'Replica', price: 1, stock: 1 }));
        const res = await fetch(`${replica.url}/shops/1/products/`, { method: 'POST', headers, body: JSON.stringify(products) });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}`);
      }
      await until('every feed done', async () => {
        const r = await target.query<{ n: number }>(`select count(*)::int n from feeds where shop_pk = 1 and state = 'done'`);
        return r[0]?.n === FEEDS;
      });
      await fs.writeFile(path.join(inbox, 'catalog.csv'), 'sku,name,price,stock\nC1,From file,2,5\n');
      // Jobs queued per cron tick, counted once two ticks are well past (both schedulers fire
      // within a second of the tick) and the dropped file was applied by one of them. Only the
      // run queue counts: a tick that fired before the shop existed fails its run, and the
      // dead-letter queue then holds a copy of that job with the same data.
      const ticks = await until(
        'two scheduled connector ticks and the file applied',
        async () => {
          const r = await target.query<{ tick: string; n: number }>(
            `select data->>'scheduledFor' tick, count(*)::int n from pgboss.job
            where name = 'connector.run' and data->>'name' = 'erp' and data->>'trigger' = 'schedule'
            group by 1 having max((data->>'scheduledFor')::timestamptz) < now() - interval '10 seconds' order by 1`,
          );
          const file = await target.query<{ n: number }>(
            `select count(*)::int n from feeds where shop_pk = 1 and source like 'connector:%' and state = 'done'`,
          );
          return r.length >= 2 && file[0]!.n >= 1 ? r : null;
        },
        180_000,
        1_000,
      );
      const byA = processedLines(a.output());
      const byB = processedLines(b.output());
      const all = [...byA, ...byB];
      // The API's feeds and the one the dropped file became, each processed by one replica once.
      const once = new Set(all).size === FEEDS + 1 && all.length === FEEDS + 1;
      if (!once) problems.push(`feeds processed: ${all.length} times for ${new Set(all).size} feeds (A ${byA.length}, B ${byB.length})`);
      if (byA.length === 0 || byB.length === 0) problems.push(`a replica processed no feed (A ${byA.length}, B ${byB.length})`);
      const doubled = ticks.filter((t) => t.n !== 1);
      if (doubled.length > 0) {
        const jobs = await target.query(`select id, state, data from pgboss.job where name = 'connector.run' and data->>'name' = 'erp'`);
        problems.push(`ticks queued more than once: ${JSON.stringify(doubled)}; jobs: ${JSON.stringify(jobs)}`);
      }
      const fileProduct = await target.query<{ n: number }>(`select count(*)::int n from products where shop_pk = 1 and sku = 'C1'`);
      if (fileProduct[0]?.n !== 1) problems.push(`the dropped file's product is stored ${fileProduct[0]?.n} times`);
      return {
        pass: problems.length === 0,
        figures: {
          feeds: FEEDS,
          processed_by_a: byA.length,
          processed_by_b: byB.length,
          migrations_by_a: migratedLines(a.output()).length,
          migrations_by_b: migratedLines(b.output()).length,
          ticks: ticks.length,
          jobs_per_tick: ticks.map((t) => t.n).join('/'),
        },
        detail: problems.join('\n'),
      };
    } finally {
      for (const d of [a, b]) d?.child.kill('SIGTERM');
      await Promise.all([a?.exited, b?.exited]);
      await target.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
};
