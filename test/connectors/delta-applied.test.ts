// Delta detection compares against what was applied, not what was sent: a product's content
// hash is recorded by the feed worker in the transaction that applies it. A product whose
// feed never ran (or failed) or whose item the database refused is sent again by the next
// file that has it; an applied one counts as unchanged. Feeds are accepted by an API-only
// daemon, so the test decides when a worker applies them.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { waitFeed, type Feed } from '../catalog/catalog-helpers.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';

const SECRET = `whsec_${Buffer.from('delta-applied-secret-012').toString('base64')}`;
process.env.WB_TEST_DELTA_SECRET = SECRET;
const inbox = tempDir();
const api = await useTestDaemon({
  role: 'api',
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'files', type: 'catalog-file', shop_pk: 1, enabled: false, options: { inbox, format: 'csv', settle_ms: 0 } },
      { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'WB_TEST_DELTA_SECRET' } },
    ]),
  },
});
const app = api.app!;
const { auth } = await api.shopWithKey();
const sql = new pg.Pool({ connectionString: api.database.url, max: 2 });
await sql.query(`alter table products add constraint test_no_poison check (sku not like 'POISON%')`);
let worker: TestDaemon | null = null;
afterAll(async () => {
  await worker?.stop();
  await sql.end();
});
const ensureWorker = async (): Promise<void> => {
  worker ??= await startTestDaemon({ role: 'worker', database: api.database });
};

const header = 'sku,name,price,stock\n';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a report is checked field by field
type Report = Record<string, any>;
/** Drops a CSV, runs the connector, and returns the file's report and the run. */
const dropAndRun = async (name: string, rows: string[]): Promise<{ report: Report; feeds: string[] }> => {
  fs.writeFileSync(path.join(inbox, name), header + rows.join('\n') + '\n');
  const r = await api.services.connectors.execute({ name: 'files', trigger: 'cli' });
  if (r.status !== 'done') throw new Error(`run: ${r.status}`);
  if (r.error !== undefined) throw r.error;
  const report = JSON.parse(fs.readFileSync(path.join(inbox, '.done', `${name}.report.json`), 'utf8')) as Report;
  return { report, feeds: r.run.feed_pks };
};
const feed = (pk: string): Promise<Feed> => waitFeed(app, auth, `/feeds/${pk}/`, 15_000);

describe('catalog-file', () => {
  it('a feed that never ran, or failed, leaves its products to be sent again; once applied they are unchanged', async () => {
    await worker?.stop();
    worker = null;
    const first = await dropAndRun('never-1.csv', ['NR-1,One,1,1', 'NR-2,Two,2,2']);
    expect(first.report.counts).toMatchObject({ valid: 2, unchanged: 0, sent: 2 });
    // Not applied yet: the same products again (other bytes) are sent again.
    const second = await dropAndRun('never-2.csv', ['NR-2,Two,2,2', 'NR-1,One,1,1']);
    expect(second.report.counts).toMatchObject({ unchanged: 0, sent: 2 });
    for (const pk of [...first.feeds, ...second.feeds])
      await api.services.feedProcess.fail(pk, { code: 'test', message: 'failed as a whole' });
    // The first file's very bytes again: its feed failed, so it is read and sent again, not
    // skipped as byte-identical.
    const third = await dropAndRun('never-3.csv', ['NR-1,One,1,1', 'NR-2,Two,2,2']);
    expect(third.report).toMatchObject({ outcome: 'done', sha256: first.report.sha256 });
    expect(third.report.counts).toMatchObject({ unchanged: 0, sent: 2 });
    await ensureWorker();
    expect(await feed(third.feeds[0]!)).toMatchObject({ state: 'done', counts: { succeeded: 2 } });
    const fourth = await dropAndRun('never-4.csv', ['NR-2,Two,2,2', 'NR-1,One,1,1', '']);
    expect(fourth.report.counts).toMatchObject({ unchanged: 2, sent: 0 });
    expect(fourth.feeds).toEqual([]);
    // Now that its feed is applied, the same bytes are skipped.
    const fifth = await dropAndRun('never-5.csv', ['NR-1,One,1,1', 'NR-2,Two,2,2']);
    expect(fifth.report).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/^The file is byte-identical to never-3\.csv/),
    });
  });

  it('an item the database refused is sent again by the next file; the good one next to it is unchanged', async () => {
    await ensureWorker();
    const first = await dropAndRun('poison-1.csv', ['GOOD-P,Good,1,1', 'POISON-P,Poison,1,1']);
    expect(first.report).toMatchObject({ outcome: 'done', counts: { valid: 2, sent: 2 }, feeds: [{ pk: first.feeds[0], items: 2 }] });
    const applied = await feed(first.feeds[0]!);
    expect(applied).toMatchObject({ state: 'done', counts: { succeeded: 1, failed: 1 } });
    expect(applied.result.errors).toEqual([expect.objectContaining({ sku: 'POISON-P', code: 'not_storable' })]);

    // The same bytes again: one item was refused, so the file is read again, not skipped.
    const again = await dropAndRun('poison-2.csv', ['GOOD-P,Good,1,1', 'POISON-P,Poison,1,1']);
    expect(again.report.counts).toMatchObject({ products: 2, valid: 2, unchanged: 1, sent: 1 });
    expect(again.report.feeds).toEqual([expect.objectContaining({ pk: again.feeds[0], items: 1 })]);
    const retried = await feed(again.feeds[0]!);
    expect(retried.result.errors).toEqual([expect.objectContaining({ index: 0, sku: 'POISON-P', code: 'not_storable' })]);
  });
});

describe('catalog-webhook', () => {
  it('records the hash of what its feed applied only: a later file sends the refused product again', async () => {
    await ensureWorker();
    const payload = JSON.stringify([
      { sku: 'W-GOOD', name: 'Good', price: 1, stock: 1 },
      { sku: 'POISON-W', name: 'Poison', price: 1, stock: 1 },
    ]);
    const res = await app.inject({
      method: 'POST',
      url: '/connectors/pim/webhook',
      payload,
      headers: { 'content-type': 'application/json', ...signedHeaders(SECRET, 'msg_delta_1', payload) },
    });
    expect(res.statusCode).toBe(202);
    const pushed = await feed((res.json() as Feed).pk);
    expect(pushed).toMatchObject({ state: 'done', counts: { succeeded: 1, failed: 1 } });
    const hashes = (await sql.query(`select sku from connector_product_hashes where sku in ('W-GOOD', 'POISON-W')`)).rows;
    expect(hashes).toEqual([{ sku: 'W-GOOD' }]);
    // The same content from a file: the applied product is unchanged, the refused one sent.
    const file = await dropAndRun('after-webhook.csv', ['W-GOOD,Good,1,1', 'POISON-W,Poison,1,1']);
    expect(file.report.counts).toMatchObject({ unchanged: 1, sent: 1 });
  });
});
