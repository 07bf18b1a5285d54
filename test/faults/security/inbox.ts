// Path traversal through a catalog-file inbox: files named like escapes (`..%2fx.csv`,
// `..x.csv`, `..\x.csv`), with newlines, control and bidi characters, odd unicode, a symbolic
// link to a file outside, and a folder named `..x`. After a run, nothing outside the inbox was
// created, changed or removed, and every dropped file is inside the inbox (.done or .error)
// once the daemon (its inbox watcher, or a run asked through the admin API) has filed them.
// A name with a slash (`../x.csv`) cannot exist in a folder on POSIX: the symbolic link and
// the `..` look-alikes are what a hostile drop can really do.
import fs from 'node:fs/promises';
import path from 'node:path';
import { until, type Target } from '../harness.ts';
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

const CSV = 'sku,name,price,stock\nINBOX-1,From the inbox,1,1\n';

export const HOSTILE_NAMES = [
  '..%2fx.csv',
  '..%2F..%2Fescape.csv',
  '..x.csv',
  '..\\x.csv',
  'a\nb.csv',
  'a\rb.csv',
  'tab\there.csv',
  'bell\u0007.csv',
  'evil\u202egsv.csv',
  'zero\u200bwidth.csv',
  '-rf.csv',
  '~x.csv',
  '$HOME.csv',
  '`id`.csv',
  "quote'.csv",
  'CON.csv',
  'nul.csv',
  'é-nfd-e\u0301.csv',
  '漢字.csv',
  '😀.csv',
  ' leading.csv',
  'x'.repeat(250) + '.csv',
  '...csv',
];

/** Every path under `dir` with its size, skipping `skip` (the inbox). */
async function snapshot(dir: string, skip: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (full === skip) continue;
      if (e.isDirectory()) await walk(full);
      else out.set(full, (await fs.lstat(full)).size);
    }
  };
  await walk(dir);
  return out;
}

export async function checkInbox(world: World, target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const inbox = path.join(world.dir, 'inbox');
  const outsideFile = path.join(world.dir, 'outside.csv');
  await fs.writeFile(outsideFile, 'sku,name,price,stock\nSECRET-1,Outside,1,1\n');
  await fs.mkdir(path.join(world.dir, 'escape-target'), { recursive: true });
  const dropped: string[] = [];
  for (const name of HOSTILE_NAMES) {
    try {
      await fs.writeFile(path.join(inbox, name), CSV.replace('INBOX-1', `INBOX-${dropped.length}`));
      dropped.push(name);
    } catch {
      // The filesystem itself refuses the name (too long): nothing to test.
    }
  }
  await fs.symlink(outsideFile, path.join(inbox, 'link.csv'));
  await fs.symlink('../outside.csv', path.join(inbox, 'relative-link.csv'));
  await fs.mkdir(path.join(inbox, '..x'));
  await fs.writeFile(path.join(inbox, '..x', 'inner.csv'), CSV);
  const before = await snapshot(world.dir, inbox);
  const outsideBefore = await fs.readFile(outsideFile, 'utf8');

  // The daemon watches the inbox and runs the connector on its own; ask for a run too, in case
  // the last drop came after the watcher's run started, and wait until every file is filed.
  const list = (d: string): Promise<string[]> => fs.readdir(path.join(inbox, d)).catch(() => []);
  const filedNow = async (): Promise<string[]> =>
    [...(await list('.done')), ...(await list('.error'))].filter((n) => !n.endsWith('.report.json'));
  const expected = dropped.length + 2;
  await until(
    'every dropped file to be filed',
    async () => {
      if ((await filedNow()).length >= expected) return true;
      await fetch(`${world.daemon.url}/admin/api/connectors/erp-main/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }).then(
        (r) => r.text(),
        () => '',
      );
      return false;
    },
    60_000,
    500,
  ).catch(() => undefined);

  const after = await snapshot(world.dir, inbox);
  for (const [p, size] of after) if (before.get(p) !== size) problems.push(`outside the inbox, ${p} was created or changed`);
  for (const p of before.keys()) if (!after.has(p)) problems.push(`outside the inbox, ${p} was removed`);
  if ((await fs.readFile(outsideFile, 'utf8')) !== outsideBefore) problems.push('the file a link pointed at was changed');
  const secret = await target.query<{ n: number }>(`select count(*)::int n from products where sku = 'SECRET-1'`);
  if (secret[0]?.n !== 0) problems.push('a symbolic link made the daemon read a file outside the inbox');
  // Every dropped file left the top of the inbox for .done/ or .error/, each beside a report.
  const top = (await fs.readdir(inbox)).filter((n) => !n.startsWith('.') || n.startsWith('..'));
  const leftover = top.filter((n) => n !== '..x');
  if (leftover.length > 0) problems.push(`left at the top of the inbox: ${leftover.map((n) => JSON.stringify(n)).join(', ')}`);
  const filed = await filedNow();
  if (filed.length !== expected) problems.push(`${filed.length} files filed in .done/.error, ${expected} dropped`);
  return { figures: { inbox_files: expected, inbox_filed: filed.length }, problems };
}
