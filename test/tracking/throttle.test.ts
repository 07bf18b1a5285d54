// A carrier's Retry-After longer than a check waits throttles the connector: the run stops
// calling at once and is recorded `throttled` with the time it waits until; the next ticks, run
// now, the CLI and a restarted daemon do not call the carrier before then (the time is stored
// with the run). CLI, admin API and dashboard show it.
import nock from 'nock';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_DHL_THROTTLE = 'dhl-throttle-key';
const DHL = 'https://dhl-throttle.test';
const ADMIN = 'throttle-test-admin-token';
const entry = (name: string, carrier: string) => ({
  name,
  type: 'tracking-dhl',
  schedule: '0 0 1 1 *',
  options: {
    base_url: DHL,
    carriers: [carrier],
    api_key_env: 'WB_TEST_DHL_THROTTLE',
    min_interval_seconds: 0,
    concurrency: 1,
    retries: 3,
    retry_min_ms: 10,
    retry_max_ms: 2_000,
  },
});
const env = {
  WAYBILL_CONNECTORS: connectorsFile([entry('slowdown', 'C-SLOWDOWN'), entry('dated', 'C-DATED'), entry('greedy', 'C-GREEDY')]),
  WAYBILL_ADMIN_TOKEN: ADMIN,
};
let daemon: TestDaemon = await startTestDaemon({ env });
afterAll(async () => {
  await daemon.stop();
  await daemon.database.drop();
});
let shop = await shopClient(daemon);
onlyNockedNetwork();

/** Every DHL call of one carrier's shipments answers `reply`; returns the call counter. */
function carrier(reply: () => [number, unknown, Record<string, string>?]): { calls: number } {
  const counter = { calls: 0 };
  nock(DHL)
    .get('/track/shipments')
    .query(true)
    .times(20)
    .reply(() => {
      counter.calls++;
      return reply();
    });
  return counter;
}
const tooMany = (retryAfter: string): [number, unknown, Record<string, string>] => [
  429,
  fixture('tracking-dhl', 'too-many-requests.json'),
  { 'Retry-After': retryAfter, 'content-type': 'application/problem+json' },
];

describe('Retry-After: 3600', () => {
  const shipments: number[] = [];
  let until = 0;

  it('the same run stops calling after the first 429 and is recorded throttled, with the time it waits until', async () => {
    for (const code of ['T-1', 'T-2', 'T-3']) shipments.push((await shop.shipped('C-SLOWDOWN', code)).shipmentId);
    const dhl = carrier(() => tooMany('3600'));
    const started = Date.now();
    const run = await runConnector(daemon, 'slowdown');
    expect(dhl.calls).toBe(1);
    expect(run).toMatchObject({ outcome: 'throttled', counts: { deferred: 3 } });
    until = Date.parse(run.throttled_until!);
    expect(until).toBeGreaterThanOrEqual(started + 3_600_000);
    expect(until).toBeLessThan(Date.now() + 3_600_000 + 1_000);
    expect(run.error).toMatch(
      /^The carrier answered HTTP 429 \(Too many requests.*\) with Retry-After: no call for 3600 s, until \d{4}-\d{2}-\d{2}T/,
    );
    // Not the shipments' fault: nothing recorded against them (no check, no error), first in line later.
    for (const id of shipments) expect(await daemon.services.tracking.get(id)).toBeNull();
    nock.cleanAll();
  });

  it('the next ticks, run now and a queued job do not call it; the CLI, admin API and dashboard show until when', async () => {
    const dhl = carrier(() => [200, fixture('tracking-dhl', 'transit.json')]);
    expect(await daemon.services.connectors.tick('slowdown', new Date())).toBe(false);
    expect(await daemon.services.connectors.execute({ name: 'slowdown', trigger: 'schedule', scheduledFor: new Date() })).toEqual({
      status: 'throttled',
      until: new Date(until),
    });
    const bearer = { authorization: `Bearer ${ADMIN}` };
    const now = await daemon.app!.inject({ method: 'POST', url: '/admin/api/connectors/slowdown/run', headers: bearer });
    expect(now.statusCode).toBe(202);
    expect(now.json()).toEqual({
      queued: false,
      job_id: null,
      detail: `slowdown is throttled by its remote API until ${new Date(until).toISOString()} (Retry-After): not queued.`,
    });
    const list = (await daemon.app!.inject({ url: '/admin/api/connectors', headers: bearer })).json() as {
      name: string;
      throttled_until: string | null;
      last_runs: { outcome: string; throttled_until: string | null }[];
    }[];
    const summary = list.find((c) => c.name === 'slowdown')!;
    expect(summary.throttled_until).toBe(new Date(until).toISOString());
    expect(summary.last_runs[0]).toMatchObject({ outcome: 'throttled', throttled_until: new Date(until).toISOString() });
    expect(list.find((c) => c.name === 'dated')!.throttled_until).toBeNull();
    const page = await daemon.app!.inject({ url: '/admin/connectors?fragment=1', headers: bearer });
    expect(page.body).toMatch(
      new RegExp(
        `<span class="badge throttled" data-throttled-until="${new Date(until).toISOString()}"[^>]*>throttled until <time datetime="${new Date(until).toISOString()}"[^>]*>[\\d-]+ \\d\\d:\\d\\d:\\d\\d UTC</time> \\((59|60) min more\\)</span>`,
      ),
    );
    const cliEnv = {
      DATABASE_URL: daemon.database.url,
      WAYBILL_CONNECTORS: env.WAYBILL_CONNECTORS,
      WB_TEST_DHL_THROTTLE: 'dhl-throttle-key',
    };
    const run = await runCli(['connectors', 'run', 'slowdown', '--json'], cliEnv);
    expect(run.code).toBe(1);
    expect(run.json<{ error: { code: string; message: string } }>().error).toEqual({
      code: 'connector_throttled',
      message: `connector slowdown is throttled: its remote API asked to wait (Retry-After) until ${new Date(until).toISOString()}; not run`,
    });
    const listed = await runCli(['connectors', 'list', '--json'], cliEnv);
    expect(
      listed.json<{ connectors: { name: string; throttled_until: string | null }[] }>().connectors.find((c) => c.name === 'slowdown')
        ?.throttled_until,
    ).toBe(new Date(until).toISOString());
    expect(dhl.calls).toBe(0);
    nock.cleanAll();
  });

  it('a restarted daemon honours it too; once the time has passed, the carrier is called again', async () => {
    await daemon.stop();
    daemon = await startTestDaemon({ env, database: daemon.database });
    shop = await shopClient(daemon);
    const dhl = carrier(() => [200, fixture('tracking-dhl', 'transit.json')]);
    expect(await daemon.services.connectors.tick('slowdown', new Date())).toBe(false);
    expect((await daemon.services.connectors.execute({ name: 'slowdown', trigger: 'manual' })).status).toBe('throttled');
    expect(dhl.calls).toBe(0);
    // An hour later (the stored time moved back instead of waiting).
    await sql`update connector_runs set throttled_until = now() - interval '1 second' where connector = 'slowdown'`.execute(
      daemon.connection.db,
    );
    expect((await daemon.services.connectors.list()).find((c) => c.name === 'slowdown')?.throttled_until).toBeNull();
    const run = await runConnector(daemon, 'slowdown');
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 3 }, throttled_until: null });
    expect(dhl.calls).toBe(3);
    nock.cleanAll();
  });
});

describe('other Retry-After forms', () => {
  it('an HTTP date is honoured; a wait longer than 24 hours is held to 24 hours', async () => {
    await shop.shipped('C-DATED', 'D-1');
    const at = new Date(Date.now() + 2 * 3_600_000);
    carrier(() => tooMany(at.toUTCString()));
    const dated = await runConnector(daemon, 'dated');
    expect(dated.outcome).toBe('throttled');
    expect(Math.abs(Date.parse(dated.throttled_until!) - at.getTime())).toBeLessThan(2_000);
    nock.cleanAll();

    await shop.shipped('C-GREEDY', 'G-1');
    carrier(() => tooMany(String(30 * 86_400)));
    const greedy = await runConnector(daemon, 'greedy');
    expect(greedy.outcome).toBe('throttled');
    expect(Date.parse(greedy.throttled_until!)).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect(Date.parse(greedy.throttled_until!)).toBeGreaterThan(Date.now() + 86_400_000 - 60_000);
    nock.cleanAll();
  });
});
