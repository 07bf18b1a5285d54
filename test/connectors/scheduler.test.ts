// Scheduling: each tick runs once across two scheduler processes on one database; a run
// still going (or queued) is not doubled; run now, enable/disable, run records.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { queueMaintenanceTick } from '../../src/scheduler/scheduler.ts';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { until } from '../helpers/until.ts';

const manualInbox = tempDir();
const file = connectorsFile([
  { name: 'ticker', type: 'catalog-file', shop_pk: 1, schedule: '* * * * * *', options: { inbox: tempDir(), format: 'csv', settle_ms: 0 } },
  { name: 'manual', type: 'catalog-file', shop_pk: 1, options: { inbox: manualInbox, format: 'csv', settle_ms: 1_000 } },
  { name: 'broken', type: 'catalog-file', shop_pk: 1, options: { inbox: '/nonexistent/inbox', format: 'csv' } },
  { name: 'no-shop', type: 'catalog-file', shop_pk: 99, options: { inbox: tempDir(), format: 'csv' } },
]);
const a = await useTestDaemon({ env: { WAYBILL_CONNECTORS: file } });
const b = await startTestDaemon({ database: a.database, env: { WAYBILL_CONNECTORS: file } });
afterAll(() => b.stop());
await a.shopWithKey();
const db = a.connection.db;

describe('scheduled ticks with two scheduler processes', () => {
  it('run each tick once', async () => {
    await until('three scheduled runs', async () => (await a.services.connectors.runs('ticker')).length >= 3, 15_000);
    const runs = await a.services.connectors.runs('ticker', { limit: 100 });
    const ticks = runs.map((r) => r.scheduled_for);
    expect(runs.every((r) => r.trigger === 'schedule' && r.scheduled_for !== null)).toBe(true);
    expect(new Set(ticks).size).toBe(ticks.length);
    // Both processes did tick: the queue refused the second copy of each tick.
    const tickLines = [...a.logLines, ...b.logLines].filter((l) => l.msg === 'scheduler started');
    expect(tickLines).toHaveLength(2);
    expect(tickLines[0]).toMatchObject({
      connectors: ['ticker'],
      maintenance: ['prune.feeds', 'prune.idempotency-keys', 'prune.webhook-deliveries', 'prune.receipts'],
    });
  });

  it('keep one job per tick even when the first copy already finished', async () => {
    const at = new Date('2026-11-21T10:00:00.000Z');
    expect(await a.services.connectors.tick('manual', at)).toBe(true);
    await until(
      'the tick run',
      async () => (await a.services.connectors.runs('manual')).some((r) => r.scheduled_for === at.toISOString()),
      10_000,
    );
    expect(await b.services.connectors.tick('manual', at)).toBe(false);
    expect(await b.services.connectors.tick('manual', new Date(at.getTime() + 400))).toBe(false); // same second
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from pgboss.job where name = 'connector.run' and data->>'name' = 'manual'`.execute(db);
    expect(rows[0]!.n).toBe(1);
  });
});

describe('maintenance ticks', () => {
  it('are queued once per tick across schedulers, and run', async () => {
    const at = new Date('2026-11-21T03:17:00.000Z');
    expect(await queueMaintenanceTick({ jobs: a.jobs, db }, 'prune.receipts', at)).toBe(true);
    expect(await queueMaintenanceTick({ jobs: b.jobs, db: b.connection.db }, 'prune.receipts', at)).toBe(false);
    expect(await queueMaintenanceTick({ jobs: b.jobs, db: b.connection.db }, 'prune.receipts', new Date('2026-11-22T03:17:00.000Z'))).toBe(
      true,
    );
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = 'prune.receipts'`.execute(db);
    expect(rows[0]!.n).toBe(2);
    await until(
      'both prunes',
      () => [...a.logLines, ...b.logLines].filter((l) => l.msg === 'old connector receipts pruned').length === 2,
      10_000,
    );
  });

  it('replace the pg-boss schedules of earlier versions: a start removes them with their queues', async () => {
    expect(await a.jobs.boss.getSchedules()).toEqual([]);
    // What an earlier version left in the database.
    await a.jobs.boss.createQueue('feed.prune');
    await a.jobs.boss.schedule('feed.prune', '17 3 * * *', {});
    await a.jobs.boss.createQueue('feeds.requeue-stopped');
    expect((await a.jobs.boss.getSchedules()).map((x) => x.name)).toEqual(['feed.prune']);
    const upgraded = await startTestDaemon({ database: a.database, env: { WAYBILL_CONNECTORS: file } });
    try {
      expect(await upgraded.jobs.boss.getSchedules()).toEqual([]);
      expect(await upgraded.jobs.boss.getQueue('feed.prune')).toBeNull();
      expect(await upgraded.jobs.boss.getQueue('feeds.requeue-stopped')).toBeNull();
    } finally {
      await upgraded.stop();
    }
  });
});

describe('run now', () => {
  it('queues one run and refuses a second while the first waits', async () => {
    await a.services.connectors.setEnabled('ticker', false);
    // The previous test's job must be over (the exclusive policy would refuse even the first).
    await until(
      'no queued or running job of manual',
      async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pgboss.job where name = 'connector.run' and singleton_key = 'manual' and state in ('created', 'retry', 'active')`.execute(
          db,
        );
        return rows[0]!.n === 0;
      },
      10_000,
    );
    const first = await a.services.connectors.runNow('manual');
    const second = await b.services.connectors.runNow('manual');
    expect(first.queued).toBe(true);
    expect(second).toEqual({ queued: false, job_id: null });
    const run = await until(
      'the manual run',
      async () => (await a.services.connectors.runs('manual')).find((r) => r.trigger === 'manual' && r.outcome !== 'running'),
      10_000,
    );
    expect(run).toMatchObject({ connector: 'manual', outcome: 'succeeded', attempt: 1, error: null, feed_pks: [] });
    expect(run.finished_at).not.toBeNull();
  });

  it('a run is not doubled while one is going elsewhere (the CLI and the daemon share a lock)', async () => {
    // A fresh file keeps the first run waiting (settle_ms) while the second tries. (Disabled
    // meanwhile, so the inbox watch does not queue a run of its own; direct runs still go.)
    await a.services.connectors.setEnabled('manual', false);
    fs.writeFileSync(path.join(manualInbox, 'empty.csv'), '');
    const held = a.services.connectors.execute({ name: 'manual', trigger: 'cli' });
    await until('the first run', async () => (await a.services.connectors.runs('manual')).some((r) => r.outcome === 'running'), 5_000);
    const other = await b.services.connectors.execute({ name: 'manual', trigger: 'cli' });
    expect(other.status).toBe('busy');
    const done = await held;
    expect(done.status === 'done' && done.run.counts).toEqual({ files_error: 1, products_invalid: 0 });
    await a.services.connectors.setEnabled('manual', true);
  });
});

describe('run records and enable/disable', () => {
  it('records a failing run as failed with its error, and other connectors keep running', async () => {
    const r = await a.services.connectors.execute({ name: 'broken', trigger: 'cli' });
    expect(r.status).toBe('done');
    if (r.status !== 'done') return;
    expect(r.run).toMatchObject({
      outcome: 'failed',
      error: 'The inbox /nonexistent/inbox does not exist or is not a folder (option inbox).',
    });
    // A connector set up before its shop: skipped, saying why (not failed, nothing retried).
    const noShop = await a.services.connectors.execute({ name: 'no-shop', trigger: 'cli' });
    expect(noShop.status === 'done' && noShop.run).toMatchObject({
      outcome: 'skipped',
      error: "Shop 99 (shop_pk) does not exist yet: create it (waybill shops create) or fix the connector's entry; the run was skipped.",
    });
    const ok = await a.services.connectors.execute({ name: 'manual', trigger: 'cli' });
    expect(ok.status === 'done' && ok.run.outcome).toBe('succeeded');
  });

  it('a failing queued run of a user error is not retried (dead-lettered once)', async () => {
    const { job_id: jobId } = await a.services.connectors.runNow('broken');
    expect(jobId).toEqual(expect.any(String));
    const failed = await until(
      'the failed run',
      async () => (await a.services.connectors.runs('broken')).find((r) => r.trigger === 'manual' && r.outcome !== 'running'),
      10_000,
    );
    expect(failed.outcome).toBe('failed');
    // Settled for good: `failed` at its first attempt (`retry` would mean it runs again), with
    // one copy in the dead-letter queue pointing back to it.
    const job = await until(
      'the job to settle',
      async () => {
        const { rows } = await sql<{
          state: string;
          retry_count: number;
        }>`select state, retry_count from pgboss.job where id = ${jobId}::uuid`.execute(db);
        return rows[0] !== undefined && !['created', 'active'].includes(rows[0].state) ? rows[0] : undefined;
      },
      10_000,
    );
    expect(job).toEqual({ state: 'failed', retry_count: 0 });
    const { rows: dead } = await sql<{
      state: string;
    }>`select state from pgboss.job where name = 'connector.run.dead' and source_id = ${jobId}::uuid`.execute(db);
    expect(dead).toEqual([{ state: 'created' }]);
    expect((await a.services.connectors.runs('broken')).filter((r) => r.trigger === 'manual')).toHaveLength(1);
  });

  it('persists enable/disable over the file, and a disabled connector is not ticked', async () => {
    const list = await a.services.connectors.list();
    expect(list.map((c) => c.name)).toEqual(['ticker', 'manual', 'broken', 'no-shop']);
    expect(list[0]).toMatchObject({
      name: 'ticker',
      type: 'catalog-file',
      shop_pk: 1,
      schedule: '* * * * * *',
      enabled: false,
      enabled_in_file: true,
      receivers: [],
    });
    expect(list[0]!.last_runs.length).toBeGreaterThan(0);
    expect(await b.services.connectors.isEnabled('ticker')).toBe(false);
    expect(await a.services.connectors.tick('ticker', new Date())).toBe(false);
    await a.services.connectors.setEnabled('ticker', true);
    expect((await b.services.connectors.get('ticker')).enabled).toBe(true);
    await a.services.connectors.setEnabled('ticker', false);
  });

  it('answers 404 for an unknown connector', async () => {
    await expect(a.services.connectors.runs('nope')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('inbox watch', () => {
  it('a file dropped into a watched inbox is processed without waiting for a tick', async () => {
    fs.writeFileSync(path.join(manualInbox, 'now.csv'), 'sku,name,price,stock\nNOW-1,Now,1,1\n');
    // No tick and no run now: the watch queues the run.
    // Labelled by what started it: a file.
    const run = await until(
      'the run of the watch',
      async () => (await a.services.connectors.runs('manual')).find((r) => r.trigger === 'file' && r.counts.files_done === 1),
      15_000,
    );
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { products_sent: 1 } });
    expect(fs.existsSync(path.join(manualInbox, '.done', 'now.csv.report.json'))).toBe(true);
  });
});
