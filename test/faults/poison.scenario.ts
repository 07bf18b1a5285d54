// Poison input: one malformed row in a 1,000-row CSV (999 products stored, the report names
// the row); a job that fails every time (a webhook receiver that refuses every delivery) ends
// in the dead-letter queue, visible in the admin API, while the queues keep moving.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freshTarget, LOCAL_WEBHOOKS, runCli, shopWithKey, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const ADMIN = 'poison-scenario-admin-token';

export const poison: Scenario = {
  name: 'poison-input',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-poison-'));
    const problems: string[] = [];
    const figures: Record<string, number | string> = {};
    // A webhook receiver that refuses everything (410 Gone: permanent).
    let refused = 0;
    const receiver = http.createServer((req, res) => {
      refused++;
      req.resume();
      res.writeHead(410).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const poisoned = await shopWithKey(target, ['--webhook-url', hookUrl], LOCAL_WEBHOOKS);
    const healthy = await shopWithKey(target);
    const inbox = path.join(dir, 'inbox');
    await fs.mkdir(inbox);
    const configFile = path.join(dir, 'connectors.json');
    await fs.writeFile(
      configFile,
      JSON.stringify({
        connectors: [
          {
            name: 'erp',
            type: 'catalog-file',
            shop_pk: healthy.shopPk,
            schedule: '0 0 1 1 *',
            enabled: true,
            options: { inbox, format: 'csv', settle_ms: 0 },
          },
        ],
      }),
    );
    const env = { ...target.env, ...LOCAL_WEBHOOKS, WAYBILL_CONNECTORS: configFile, WAYBILL_ADMIN_TOKEN: ADMIN };
    const daemon = await spawnDaemon(env);
    try {
      // 1. One malformed row in 1,000.
      const rows = ['sku,name,price,stock'];
      for (let i = 1; i <= 1000; i++) rows.push(i === 500 ? `P${i},Broken,not-a-price,1` : `P${i},Product ${i},${i}.50,${i % 9}`);
      await fs.writeFile(path.join(inbox, 'export.csv'), `${rows.join('\n')}\n`);
      const run = await runCli(['connectors', 'run', 'erp', '--json'], env);
      if (run.code !== 0) throw new Error(`connectors run failed: ${run.stderr}`);
      await until('the file feed done', async () => {
        const r = await target.query<{ n: number }>(`select count(*)::int n from feeds where source = 'connector:erp' and state = 'done'`);
        return (r[0]?.n ?? 0) > 0;
      });
      const stored = await target.query<{ n: number }>(`select count(*)::int n from products where shop_pk = $1`, [healthy.shopPk]);
      const report = JSON.parse(await fs.readFile(path.join(inbox, '.done', 'export.csv.report.json'), 'utf8')) as {
        errors: { line?: number; sku: string | null }[];
        counts: { valid: number; invalid: number };
      };
      figures.rows = 1000;
      figures.products_stored = stored[0]?.n ?? -1;
      figures.report_errors = report.errors.length;
      if (stored[0]?.n !== 999 || report.errors.length !== 1 || report.errors[0]?.sku !== 'P500' || report.errors[0]?.line !== 501) {
        problems.push(`malformed row: stored ${stored[0]?.n}, report errors ${JSON.stringify(report.errors).slice(0, 300)}`);
      }

      // 2. A job that fails every time: the poisoned shop's webhook.
      const post = (shop: typeof healthy, sku: string) =>
        fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, {
          method: 'POST',
          headers: shop.headers,
          body: JSON.stringify({ sku, name: 'X', price: 1, stock: 1 }),
        });
      await post(poisoned, 'POISON-1');
      const dead = await until('the delivery in the dead-letter queue', async () => {
        const res = await fetch(`${daemon.url}/admin/api/queues/webhook.deliver.dead/jobs`, {
          headers: { authorization: `Bearer ${ADMIN}` },
        });
        const jobs = (await res.json()) as { id: string; data?: { shopPk?: number } }[];
        return jobs.length > 0 ? jobs : null;
      });
      figures.dead_letter_jobs = dead.length;
      figures.receiver_refusals = refused;
      const queues = (await (await fetch(`${daemon.url}/admin/api/queues`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as {
        name: string;
      }[];
      if (!queues.some((q) => q.name === 'webhook.deliver.dead')) problems.push('the dead-letter queue is not listed by the admin API');
      // The queues keep moving: later feeds, of both shops, are processed.
      const later = await Promise.all([post(healthy, 'AFTER-1'), post(poisoned, 'AFTER-2'), post(healthy, 'AFTER-3')]);
      const paths = later.map((r) => new URL(r.headers.get('location')!).pathname);
      await until('later feeds done', async () => {
        const states = await Promise.all(
          paths.map(async (p, i) => {
            const shop = i === 1 ? poisoned : healthy;
            return ((await (await fetch(`${daemon.url}${p}`, { headers: shop.headers })).json()) as { state: string }).state;
          }),
        );
        return states.every((s) => s === 'done');
      });
      figures.later_feeds_done = paths.length;
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      receiver.close();
      await target.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
    return { pass: problems.length === 0, figures, detail: problems.join('\n') };
  },
};
