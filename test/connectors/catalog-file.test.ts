// catalog-file end to end: a file in the inbox -> feeds -> products readable through the API,
// the file in .done/ (or .error/) with its report. One daemon, one connector per case.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { ls } from './helpers.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { until } from '../helpers/until.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports and products are checked field by field below
type Report = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type StoredProduct = Record<string, any>;

const fixtures = path.resolve('connectors/catalog-file/fixtures');
const inboxes = {
  csv: tempDir(),
  json: tempDir(),
  xml: tempDir(),
  akeneo: tempDir(),
  erp: tempDir(),
  bad: tempDir(),
  badJson: tempDir(),
  badXml: tempDir(),
  slow: tempDir(),
  delta: tempDir(),
};
// Disabled: no tick and no inbox watch starts a run behind the test's back; the test runs each
// connector itself (a direct run ignores `enabled`, as `waybill connectors run` does).
const entry = (name: string, inbox: string, format: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-file',
  shop_pk: 1,
  enabled: false,
  options: { inbox, format, settle_ms: 0, ...options },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      entry('csv', inboxes.csv, 'csv'),
      entry('json', inboxes.json, 'json'),
      entry('xml', inboxes.xml, 'xml'),
      entry('akeneo', inboxes.akeneo, 'csv', {
        columns: { 'name-en_US': 'name', 'price-EUR': 'price', 'description-en_US-ecommerce': 'description' },
      }),
      entry('erp', inboxes.erp, 'csv', {
        columns: {
          Artikelnummer: 'sku',
          Vaterartikel: 'parent_sku',
          Bezeichnung: 'name',
          Preis: 'price',
          Bestand: 'stock',
          Lieferzeit: 'delivery_time',
          Hersteller: 'brand',
          Groesse: 'size',
        },
      }),
      entry('bad', inboxes.bad, 'csv', { max_bytes: 1024 ** 3 }),
      entry('bad-json', inboxes.badJson, 'json'),
      entry('bad-xml', inboxes.badXml, 'xml'),
      entry('slow', inboxes.slow, 'csv', { settle_ms: 1_500 }),
      entry('delta', inboxes.delta, 'csv'),
    ]),
  },
});
const { auth } = await daemon.shopWithKey();
const app = daemon.app!;
const connectors = daemon.services.connectors;

const run = async (name: string) => {
  const r = await connectors.execute({ name, trigger: 'cli' });
  if (r.status !== 'done') throw new Error(`run of ${name}: ${r.status}`);
  if (r.error !== undefined) throw r.error;
  return r.run;
};
const report = (dir: string, file: string) => JSON.parse(fs.readFileSync(path.join(dir, `${file}.report.json`), 'utf8')) as Report;
const feedDone = (pk: string) =>
  until(
    `feed ${pk}`,
    async () => {
      const res = await app.inject({ url: `/feeds/${pk}/`, headers: auth });
      const feed = res.json() as { state: string; status: string; counts: Record<string, number>; result: Record<string, unknown[]> };
      return feed.state === 'done' || feed.state === 'failed' ? feed : undefined;
    },
    20_000,
  );
const product = async (sku: string) => {
  const res = await app.inject({ url: `/shops/1/products/?sku=${encodeURIComponent(sku)}`, headers: auth });
  expect(res.statusCode).toBe(200);
  return (res.json() as StoredProduct[])[0];
};
const drop = (inbox: string, name: string, content: string | Buffer) => fs.writeFileSync(path.join(inbox, name), content);
const dropFixture = (inbox: string, fixture: string, as = path.basename(fixture)) =>
  fs.copyFileSync(path.join(fixtures, fixture), path.join(inbox, as));

describe('each format end to end', () => {
  it.each([
    ['csv', 'products.csv', ['TEE-1', 'MUG-2'], 2],
    ['json', 'products.json', ['J-1', 'J-2'], 2],
    ['xml', 'products.xml', ['X-1', 'X-2'], 2],
  ] as const)(
    '%s: file in, feed done, products readable, file in .done/ with its report',
    async (format, fixture, skus, variationsOfFirst) => {
      const inbox = inboxes[format];
      dropFixture(inbox, fixture);
      const r = await run(format);
      expect(r).toMatchObject({ outcome: 'succeeded', counts: { files_done: 1, products_sent: 2 } });
      expect(r.feed_pks).toHaveLength(1);
      expect(ls(inbox)).toEqual(['.done', '.error', '.processing']);
      expect(ls(path.join(inbox, '.done'))).toEqual([fixture, `${fixture}.report.json`]);
      const rep = report(path.join(inbox, '.done'), fixture);
      expect(rep).toMatchObject({
        file: fixture,
        connector: format,
        run_id: r.id,
        format,
        outcome: 'done',
        reason: null,
        counts: { products: 2, valid: 2, invalid: 0, unchanged: 0, sent: 2 },
      });
      expect(rep.feeds).toEqual([{ pk: r.feed_pks[0], url: `http://127.0.0.1:${daemon.config.port}/feeds/${r.feed_pks[0]}/`, items: 2 }]);
      const feed = await feedDone(r.feed_pks[0]!);
      expect(feed).toMatchObject({ state: 'done', status: 'Complete', counts: { total: 2, succeeded: 2, failed: 0 } });
      const first = await product(skus[0]);
      expect(first).toMatchObject({ sku: skus[0] });
      expect(first!.variations).toHaveLength(variationsOfFirst);
      expect(await product(skus[1])).toMatchObject({ sku: skus[1] });
    },
  );
});

describe('column mapping', () => {
  it('an Akeneo export and a German ERP header set become Products', async () => {
    dropFixture(inboxes.akeneo, 'akeneo.csv');
    dropFixture(inboxes.erp, 'erp-de.csv');
    const [a, e] = [await run('akeneo'), await run('erp')];
    await feedDone(a.feed_pks[0]!);
    await feedDone(e.feed_pks[0]!);
    expect(await product('AK-1')).toMatchObject({ sku: 'AK-1', name: 'Desk lamp', price: 49.9, stock: 3, description: 'A lamp; bright' });
    const shoe = await product('SCHUH-1');
    expect(shoe).toMatchObject({ sku: 'SCHUH-1', name: 'Wanderschuh', price: 89.95, stock: 12, delivery_time: 3, brand: 'Bergwerk' });
    expect(shoe!.variations.map((v: { sku: string; size: string; stock: number }) => [v.sku, v.size, v.stock])).toEqual([
      ['SCHUH-1-42', '42', 5],
      ['SCHUH-1-43', '43', 7],
    ]);
    // Columns outside the field catalog are category attributes: kept as sent, never a warning.
    expect(await product('AK-1')).toMatchObject({ categories: 'lighting', enabled: '1' });
    const rep = report(path.join(inboxes.akeneo, '.done'), 'akeneo.csv');
    expect(rep.warnings).toEqual([]);
  });
});

describe('settling', () => {
  it('a half-written file is not picked up early', async () => {
    const file = path.join(inboxes.slow, 'big.csv');
    fs.writeFileSync(file, 'sku,name,price,stock\nS-1,Half,1,1\n');
    const writer = setInterval(() => fs.appendFileSync(file, 'S-2,More,2,2\n'), 200);
    const r = await run('slow');
    clearInterval(writer);
    expect(r.counts).toEqual({ files_waiting: 1 });
    expect(ls(inboxes.slow)).toContain('big.csv');
    expect(ls(path.join(inboxes.slow, '.processing'))).toEqual([]);
    // Once quiet for settle_ms, the next run takes it whole.
    const later = await run('slow');
    expect(
      later.counts,
      JSON.stringify(
        ls(path.join(inboxes.slow, '.error')).map((f) =>
          f.endsWith('.json') ? fs.readFileSync(path.join(inboxes.slow, '.error', f), 'utf8') : f,
        ),
      ),
    ).toMatchObject({ files_done: 1 });
    const rep = report(path.join(inboxes.slow, '.done'), 'big.csv');
    expect(rep.counts.rows).toBeGreaterThan(1);
  });
});

describe('delta detection', () => {
  const header = 'sku,name,price,stock\n';
  it('sends only changed products; a byte-identical file is skipped; invalid rows are reported by line', async () => {
    drop(inboxes.delta, 'export-1.csv', `${header}D-1,One,1,1\nD-2,Two,2,2\nD-3,Three,3,3\n`);
    const first = await run('delta');
    expect(first.counts).toMatchObject({ files_done: 1, products_sent: 3 });
    await feedDone(first.feed_pks[0]!);

    // A re-export: D-2's price changed, D-3 unchanged but the row order differs, D-4 is invalid.
    drop(inboxes.delta, 'export-2.csv', `${header}D-3,Three,3,3\nD-1,One,1,1\nD-2,Two,2.5,2\nD-4,,-1,x\n`);
    const second = await run('delta');
    expect(second.counts).toMatchObject({ files_done: 1, products_sent: 1, products_unchanged: 2, products_invalid: 1 });
    const rep = report(path.join(inboxes.delta, '.done'), 'export-2.csv');
    expect(rep.counts).toMatchObject({ rows: 4, products: 4, valid: 3, invalid: 1, unchanged: 2, sent: 1 });
    expect(rep.errors).toEqual([
      {
        line: 5,
        sku: 'D-4',
        errors: [
          { pointer: '/name', code: 'required', message: 'is required', line: 5 },
          { pointer: '/price', code: 'too_small', message: 'must be >= 0', line: 5 },
          { pointer: '/stock', code: 'invalid_type', message: 'must be integer', line: 5 },
        ],
      },
    ]);
    // The feed holds the changed valid product only; the invalid row stays in the file's report.
    const feed = await feedDone(second.feed_pks[0]!);
    expect(feed.counts).toMatchObject({ total: 1, succeeded: 1, failed: 0 });
    expect(feed.result.errors).toEqual([]);
    expect(feed.result.success).toMatchObject([{ sku: 'D-2' }]);
    expect(await product('D-2')).toMatchObject({ price: 2.5 });

    // The same bytes again (another name): skipped, no feed.
    drop(inboxes.delta, 'export-3.csv', `${header}D-3,Three,3,3\nD-1,One,1,1\nD-2,Two,2.5,2\nD-4,,-1,x\n`);
    const third = await run('delta');
    expect(third.counts).toMatchObject({ files_skipped: 1 });
    expect(third.feed_pks).toEqual([]);
    expect(report(path.join(inboxes.delta, '.done'), 'export-3.csv')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/^The file is byte-identical to export-2\.csv, done at .+: nothing to do\.$/),
    });

    // An unchanged re-export with other bytes (a new column order) creates no feed items.
    drop(inboxes.delta, 'export-4.csv', `stock,price,name,sku\n1,1,One,D-1\n2,2.5,Two,D-2\n`);
    const fourth = await run('delta');
    expect(fourth.counts).toMatchObject({ files_done: 1, products_unchanged: 2 });
    expect(fourth.feed_pks).toEqual([]);
  });

  it('a file left in .processing/ by a crash is processed again on the next run, sending only what was not sent', async () => {
    drop(path.join(inboxes.delta, '.processing'), 'crashed.csv', `${header}D-1,One,1,1\nD-5,Five,5,5\n`);
    const r = await run('delta');
    expect(r.counts).toMatchObject({ files_done: 1, products_sent: 1, products_unchanged: 1 });
    expect(ls(path.join(inboxes.delta, '.processing'))).toEqual([]);
    expect(ls(path.join(inboxes.delta, '.done'))).toContain('crashed.csv');
    await feedDone(r.feed_pks[0]!);
    expect(await product('D-5')).toMatchObject({ sku: 'D-5', price: 5 });
  });
});

describe('bad input', () => {
  it('each bad file ends in .error/ with a one-sentence reason, and the run goes on', async () => {
    const bad = inboxes.bad;
    for (const f of ['empty.csv', 'header-only.csv', 'wrong-delimiter.csv', 'broken-quoting.csv', 'invalid-utf8.csv'])
      dropFixture(bad, `bad/${f}`);
    // A 2 GB file: sparse, so the test writes nothing; it must be refused unread.
    fs.writeFileSync(path.join(bad, 'huge.csv'), '');
    fs.truncateSync(path.join(bad, 'huge.csv'), 2 * 1024 ** 3 + 1);
    drop(bad, '..%2F..%2Fetc%2Fpasswd.csv', 'sku,name,price,stock\nP-1,x,1,1\n');
    drop(bad, 'back\\slash.csv', 'sku,name,price,stock\nP-2,x,1,1\n');
    drop(bad, 'new\nline.csv', 'sku,name,price,stock\nP-3,x,1,1\n');
    fs.symlinkSync('/etc/hostname', path.join(bad, 'link.csv'));
    drop(bad, 'good.csv', 'sku,name,price,stock\nG-1,Good,1,1\n');

    const r = await run('bad');
    // The run went on, but files were refused: partial.
    expect(r.outcome).toBe('partial');
    expect(r.counts).toMatchObject({ files_error: 10, files_done: 1 });
    expect(ls(bad)).toEqual(['.done', '.error', '.processing']);
    expect(ls(path.join(bad, '.done'))).toEqual(['good.csv', 'good.csv.report.json']);
    const errorDir = path.join(bad, '.error');
    const reasons = Object.fromEntries(
      ls(errorDir)
        .filter((f) => f.endsWith('.report.json'))
        .map((f) => [f.replace(/\.report\.json$/, ''), report(errorDir, f.replace(/\.report\.json$/, '')).reason as string]),
    );
    expect(reasons).toEqual({
      'empty.csv': 'The file is empty.',
      'header-only.csv': 'The file has a header row but no product rows.',
      'wrong-delimiter.csv': expect.stringMatching(
        /^The header row is one field .*: the delimiter must be , or ; \(tab and \| are not read\)\.$/,
      ),
      'broken-quoting.csv': expect.stringMatching(/^Broken CSV quoting at line 2/),
      'invalid-utf8.csv': expect.stringMatching(/^The file is not valid UTF-8/),
      'huge.csv': "The file is 2048 MB, over this connector's limit of 1024 MB (option max_bytes).",
      '2F__2Fetc_2Fpasswd.csv': expect.stringMatching(/^The file name "\.\.%2F\.\.%2Fetc%2Fpasswd\.csv" has characters other than/),
      'back_slash.csv': expect.stringMatching(/^The file name "back\\\\slash\.csv" has characters other than/),
      'new_line.csv': expect.stringMatching(/^The file name "new\\nline\.csv" has characters other than/),
      'link.csv': 'The file is a symbolic link; only regular files in the inbox are read.',
    });
    for (const reason of Object.values(reasons)) expect(reason.split(/\.\s+[A-Z]/).length).toBe(1); // one sentence
    // Nothing left the inbox: /etc is untouched and every refused file sits in .error/.
    expect(fs.existsSync('/etc/hostname')).toBe(true);
  });

  it('an XML bomb and a JSON that is not an array or object end in .error/', async () => {
    dropFixture(inboxes.badXml, 'bad/xml-bomb.xml');
    dropFixture(inboxes.badJson, 'bad/not-array.json');
    drop(inboxes.badJson, 'text.json', '"just text"');
    await run('bad-xml');
    await run('bad-json');
    expect(report(path.join(inboxes.badXml, '.error'), 'xml-bomb.xml').reason).toBe(
      'The XML has a DOCTYPE or ENTITY declaration, which is refused (entity expansion is off: no XML bombs).',
    );
    expect(report(path.join(inboxes.badJson, '.error'), 'not-array.json').reason).toBe(
      'The JSON is a number, not an array or object of products.',
    );
    expect(report(path.join(inboxes.badJson, '.error'), 'text.json').reason).toBe(
      'The JSON is a string, not an array or object of products.',
    );
    // The daemon goes on.
    expect((await app.inject('/healthz')).statusCode).toBe(200);
  });
});
