// waybill connectors list | run NAME, as a user runs them (a child process, external database).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { ls } from './helpers.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';

const database = await createTestDatabase();
afterAll(() => database.drop());
const inbox = tempDir();
const env = {
  DATABASE_URL: database.url,
  WAYBILL_CONNECTORS: connectorsFile([
    { name: 'erp', type: 'catalog-file', shop_pk: 1, schedule: '*/5 * * * *', options: { inbox, format: 'csv', settle_ms: 0 } },
  ]),
};

// Each step starts a real process; on a loaded 2-core machine one takes several seconds.
describe('waybill connectors', { timeout: 120_000 }, () => {
  it('run NAME runs it once here and prints the run summary; list shows it', async () => {
    expect((await runCli(['shops', 'create', '--name', 'S', '--json'], env)).code).toBe(0);
    fs.writeFileSync(path.join(inbox, 'p.csv'), 'sku,name,price,stock\nC-1,One,1,1\nC-2,Two,2,2\n');
    const r = await runCli(['connectors', 'run', 'erp', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const { run } = r.json<{
      run: { id: number; connector: string; trigger: string; outcome: string; counts: Record<string, number>; feed_pks: string[] };
    }>();
    expect(run).toMatchObject({ connector: 'erp', trigger: 'cli', outcome: 'succeeded', counts: { files_done: 1, products_sent: 2 } });
    expect(run.feed_pks).toHaveLength(1);
    expect(ls(path.join(inbox, '.done'))).toEqual(['p.csv', 'p.csv.report.json']);

    const list = await runCli(['connectors', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(list.json<{ connectors: unknown[] }>().connectors).toEqual([
      expect.objectContaining({
        name: 'erp',
        type: 'catalog-file',
        shop_pk: 1,
        schedule: '*/5 * * * *',
        enabled: true,
        last_runs: [expect.objectContaining({ id: run.id, outcome: 'succeeded' })],
      }),
    ]);
    // A file with a refused product: partial, exit 1, the refusals named.
    fs.writeFileSync(path.join(inbox, 'q.csv'), 'sku,name,price,stock\nC-3,Three,3,3\nC-4,Four,-1,4\n');
    const partial = await runCli(['connectors', 'run', 'erp'], env);
    expect(partial.code).toBe(1);
    const [first, second] = partial.stdout.split('\n');
    expect(first).toMatch(/^run \d+ of erp: partial in \d+ ms; .*; feeds: \S+$/);
    expect(first).toContain('products_invalid=1');
    expect(second).toBe('partial: it refused some of its input (products_invalid=1); the reports say what and why');
    const text = await runCli(['connectors', 'list'], env);
    expect(text.stdout).toMatch(/name\s+type\s+shop_pk\s+schedule/);
    expect(text.stdout).toMatch(/erp\s+catalog-file\s+1\s+\*\/5 \* \* \* \*\s+true\s+-\s+\S+\s+partial/);
  });

  it('names an unknown connector (exit code 1) and a bad connectors file (exit code 2, a configuration error)', async () => {
    const r = await runCli(['connectors', 'run', 'nope', '--json'], env);
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({ error: { code: 'not_found', message: 'Connector nope was not found.' } });
    // A slip of the keyboard is named with the connector it was probably meant to be.
    const typo = await runCli(['connectors', 'run', 'ERP-'], env);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe('waybill: Connector ERP- was not found (did you mean erp?).\n');
    const bad = await runCli(['connectors', 'list'], { ...env, WAYBILL_CONNECTORS: connectorsFile([{ name: 'x', type: 'nope' }]) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('connectors[0] "x": type: unknown connector type "nope"');
    // Every problem of the file at once, each with the fix it probably needs.
    const typos = await runCli(['connectors', 'list'], {
      ...env,
      WAYBILL_CONNECTORS: connectorsFile([
        { name: 'Erp Main', type: 'catalog-flie', shop_pk: 1, shedule: '61 * * * *' },
        { name: 'b', type: 'catalog-file', shop_pk: 1, schedule: '61 * * * *', options: { inbox, format: 'csv', colums: {} } },
      ]),
    });
    expect(typos.code).toBe(2);
    expect(typos.stderr).toContain('connectors[0] "Erp Main": name: must be lower-case letters, digits, - and _');
    expect(typos.stderr).toContain('connectors[0] "Erp Main": shedule: is not a known option (did you mean schedule?)');
    expect(typos.stderr).toContain(
      'connectors[0] "Erp Main": type: unknown connector type "catalog-flie" (did you mean catalog-file? known: ',
    );
    expect(typos.stderr).toContain('connectors[1] "b": schedule: "61 * * * *" is not a valid cron expression');
    expect(typos.stderr).toContain('connectors[1] "b": options.colums: is not a known option (did you mean columns?)');
  });
});
