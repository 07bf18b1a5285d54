// The run context a connector gets, with test-only connector types: state, secrets, report,
// log fields, and user vs transient errors on the run record.
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { parseConnectorsConfig } from '../../src/connectors/host/config-file.ts';
import { defineConnector, userError } from '../../connectors/sdk/index.ts';
import { ConnectorService } from '../../src/connectors/host/connectors.service.ts';
import { connectorPorts } from '../../src/connectors/host/ports.ts';
import { configuredBaseUrl } from '../../src/system/base-url.ts';
import { findHashes, upsertHashes } from '../../src/connectors/host/connectors.repository.ts';
import { isTransient, unavailable } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { useTestDaemon } from '../helpers/daemon.ts';

const daemon = await useTestDaemon();
const calls: string[] = [];

const probe = defineConnector({
  type: 'probe',
  description: 'test: uses every part of the context',
  options: Type.Object(
    { mode: Type.Union([Type.Literal('ok'), Type.Literal('user'), Type.Literal('transient')]), key_env: Type.String() },
    { additionalProperties: false },
  ),
  async run(ctx) {
    const seen = (await ctx.state.get<number>('cursor')) ?? 0;
    await ctx.state.set('cursor', seen + 1);
    calls.push(`${ctx.name}:${seen}:${ctx.secret(ctx.options.key_env).length}:${ctx.signal.aborted}`);
    ctx.report.count('items', 3);
    ctx.report.feed('feed-1');
    ctx.log.info({ cursor: seen }, 'probe ran');
    if (ctx.options.mode === 'user') throw userError('The export is broken.');
    if (ctx.options.mode === 'transient') throw unavailable('The partner API is away.');
  },
});

process.env.WB_TEST_PROBE_KEY = 'sekret';
const instances = parseConnectorsConfig(
  {
    connectors: [
      { name: 'p-ok', type: 'probe', options: { mode: 'ok', key_env: 'WB_TEST_PROBE_KEY' } },
      { name: 'p-user', type: 'probe', options: { mode: 'user', key_env: 'WB_TEST_PROBE_KEY' } },
      { name: 'p-transient', type: 'probe', options: { mode: 'transient', key_env: 'WB_TEST_PROBE_KEY' } },
    ],
  },
  [probe],
  'test',
);
const lines: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'info',
  pretty: false,
  console: false,
  streams: [
    {
      level: 'trace',
      stream: new Writable({
        write(chunk: Buffer, _e, cb) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          cb();
        },
      }),
    },
  ],
});
const service = new ConnectorService({
  db: daemon.connection.db,
  jobs: daemon.jobs,
  config: daemon.config,
  logger,
  types: [probe],
  instances,
  ports: connectorPorts({ ...daemon.services, feeds: daemon.services.feedSubmit }),
  baseUrl: configuredBaseUrl(daemon.config),
});

describe('the run context', () => {
  it('gives state that persists between runs, secrets, an abort signal, and records the report', async () => {
    const first = await service.execute({ name: 'p-ok', trigger: 'cli' });
    const second = await service.execute({ name: 'p-ok', trigger: 'cli' });
    expect(calls).toEqual(['p-ok:0:6:false', 'p-ok:1:6:false']);
    expect(second.status === 'done' && second.run).toMatchObject({
      outcome: 'succeeded',
      counts: { items: 3 },
      feed_pks: ['feed-1'],
      error: null,
    });
    expect(first.status).toBe('done');
    const line = lines.find((l) => l.msg === 'probe ran' && l.cursor === 1);
    expect(line).toMatchObject({ connector: 'p-ok', runId: second.status === 'done' ? second.run.id : -1 });
  });

  it('records a user error as failed, not transient; a transient one as failed and to be retried', async () => {
    const user = await service.execute({ name: 'p-user', trigger: 'manual' });
    const transient = await service.execute({ name: 'p-transient', trigger: 'manual' });
    if (user.status !== 'done' || transient.status !== 'done') throw new Error('not run');
    expect(user.run).toMatchObject({ outcome: 'failed', error: 'The export is broken.', counts: { items: 3 } });
    expect(isTransient(user.error)).toBe(false);
    expect(transient.run).toMatchObject({ outcome: 'failed', error: 'The partner API is away. (transient: retried)' });
    expect(isTransient(transient.error)).toBe(true);
  });
});

describe('interrupted runs', () => {
  it('a run left "running" by a dead process is closed as failed by the next run; an aborted run is retried', async () => {
    await sql`insert into connector_runs (connector, trigger, attempt, outcome) values ('p-ok', 'schedule', 1, 'running')`.execute(
      daemon.connection.db,
    );
    await service.execute({ name: 'p-ok', trigger: 'cli' });
    const runs = await service.runs('p-ok');
    expect(runs.filter((r) => r.outcome === 'running')).toEqual([]);
    expect(runs.find((r) => r.trigger === 'schedule')).toMatchObject({
      outcome: 'failed',
      error: 'interrupted: the process running it stopped before the run ended',
    });
    const controller = new AbortController();
    controller.abort();
    const aborted = await service.execute({ name: 'p-user', trigger: 'manual', signal: controller.signal });
    expect(aborted.status === 'done' && isTransient(aborted.error)).toBe(true);
  });
});

describe('delta hashes', () => {
  it('are stored per shop and sku, and go with their shop when it is deleted', async () => {
    const db = daemon.connection.db;
    const [kept, gone] = [
      await daemon.services.shops.create({ name: 'Keeps hashes' }),
      await daemon.services.shops.create({ name: 'Deleted' }),
    ];
    await upsertHashes(db, kept.pk, [
      { sku: 'H-1', hash: 'a' },
      { sku: 'H-2', hash: 'b' },
    ]);
    await upsertHashes(db, gone.pk, [{ sku: 'H-1', hash: 'c' }]);
    await upsertHashes(db, kept.pk, [{ sku: 'H-2', hash: 'b2' }]);
    expect(await findHashes(db, kept.pk, ['H-1', 'H-2', 'H-3'])).toEqual(
      expect.arrayContaining([
        { sku: 'H-1', hash: 'a' },
        { sku: 'H-2', hash: 'b2' },
      ]),
    );
    await sql`delete from shops where pk = ${gone.pk}`.execute(db);
    expect(await findHashes(db, gone.pk, ['H-1'])).toEqual([]);
    expect(await findHashes(db, kept.pk, ['H-1', 'H-2'])).toHaveLength(2);
  });
});
