// The connector how-to's sample (docs/connectors.md) is real: its CSV, dropped in an inbox and
// run, gives the report the page shows (ids, hashes and times aside).
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { useTestDaemon } from '../helpers/daemon.ts';

const doc = fs.readFileSync(path.join(repoRoot, 'docs/connectors.md'), 'utf8');
const howTo = doc.slice(doc.indexOf('### How-to: the catalog file connector'));
/** The first fenced block of a language in the how-to, its indentation removed. */
const block = (lang: string, after = 0): string => {
  const start = howTo.indexOf(`\`\`\`${lang}\n`, after);
  const body = howTo.slice(start + lang.length + 4, howTo.indexOf('```', start + lang.length + 4));
  return body
    .split('\n')
    .map((l) => l.replace(/^ {3}/, ''))
    .join('\n')
    .trim();
};

const inbox = tempDir();
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'erp-main', type: 'catalog-file', shop_pk: 1, enabled: false, options: { inbox, format: 'csv', settle_ms: 0 } },
    ]),
  },
});
await daemon.shopWithKey();

/** What differs from one run to the next: ids, the hash, times, feed ids. */
const stable = (report: Record<string, unknown>): Record<string, unknown> => ({
  ...report,
  run_id: 0,
  sha256: '...',
  started_at: '...',
  finished_at: '...',
  feeds: (report.feeds as { items: number }[]).map((f) => ({ pk: '...', url: '...', items: f.items })),
});

it("the how-to's sample CSV gives the report the how-to shows", async () => {
  fs.writeFileSync(path.join(inbox, 'products.csv'), `${block('csv')}\n`);
  const r = await daemon.services.connectors.execute({ name: 'erp-main', trigger: 'cli' });
  expect(r.status).toBe('done');
  const dir = fs.existsSync(path.join(inbox, '.done', 'products.csv.report.json')) ? '.done' : '.error';
  const real = JSON.parse(fs.readFileSync(path.join(inbox, dir, 'products.csv.report.json'), 'utf8')) as Record<string, unknown>;
  if (process.env.PRINT_REPORT !== undefined) console.log(JSON.stringify(real, null, 1));
  const shown = JSON.parse(block('json', howTo.indexOf('Read the report'))) as Record<string, unknown>;
  expect(stable(shown)).toEqual(stable(real));
});
