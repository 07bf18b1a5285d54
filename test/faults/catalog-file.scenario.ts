// Hostile catalog files, each against a fresh target and daemon:
// - inbox-race: files swapped for symbolic links (to a CSV outside the inbox and to a key) after
//   the settle check, while the file before them is being read (held at a lock the test takes on
//   the processed-files table): nothing outside is imported, the key is written nowhere;
// - wide-header: a 100,000-column header is refused naming the column limit, and a 30,000-row
//   file and 80 MB JSON and XML documents are read, while the API stays quick (its slowest
//   answer meanwhile is the figure);
// - nul-row: a NUL byte in one CSV row, \u0000 in one JSON product: that row's (element's)
//   error with its line, the other rows imported;
// - proto-names: CSV headers and XML elements named __proto__, constructor, toString are
//   names like others (no attribute named "[object Object]", the XML file not refused).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  freshTarget,
  runCli,
  shopWithKey,
  spawnDaemon,
  until,
  type DaemonProcess,
  type Outcome,
  type Scenario,
  type ShopKey,
  type Target,
} from './harness.ts';

interface Report {
  outcome: string;
  reason: string | null;
  counts: { products: number; valid: number; invalid: number; sent: number; warnings: number };
  /** Absent from the report of a file refused unread. */
  feeds?: { url: string }[];
  errors: { line?: number; element?: number; sku: string | null; errors: { pointer: string; code: string; line?: number }[] }[];
}

interface Env {
  target: Target;
  daemon: DaemonProcess;
  shop: ShopKey;
  dir: string;
  /** The inbox of the connector of `format` (named erp-<format>). */
  inbox(format: 'csv' | 'json' | 'xml'): string;
  /** Env of a CLI command that sees the connectors (the daemon does only when `watched`). */
  cliEnv: Record<string, string>;
  problems: string[];
  figures: Outcome['figures'];
}

/**
 * A target, a shop, one catalog-file connector per format (inbox-<format>), and a daemon that
 * applies their feeds. `watched`: the daemon runs the connectors itself (watching the inboxes);
 * otherwise only the test's CLI commands do.
 */
async function withInboxes(watched: boolean, body: (env: Env) => Promise<void>): Promise<Outcome> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-files-'));
  const target = await freshTarget();
  const problems: string[] = [];
  const figures: Outcome['figures'] = {};
  let daemon: DaemonProcess | null = null;
  try {
    const shop = await shopWithKey(target);
    const inbox = (format: string): string => path.join(dir, `inbox-${format}`);
    for (const f of ['csv', 'json', 'xml']) await fs.mkdir(inbox(f));
    const config = path.join(dir, 'connectors.json');
    await fs.writeFile(
      config,
      JSON.stringify({
        connectors: ['csv', 'json', 'xml'].map((format) => ({
          name: `erp-${format}`,
          type: 'catalog-file',
          shop_pk: shop.shopPk,
          schedule: '0 0 1 1 *',
          enabled: true,
          options: { inbox: inbox(format), format, settle_ms: 0 },
        })),
      }),
    );
    const cliEnv = { ...target.env, WAYBILL_CONNECTORS: config };
    daemon = await spawnDaemon(watched ? cliEnv : target.env);
    await body({ target, daemon, shop, dir, inbox, cliEnv, problems, figures });
    if (
      !(await fetch(`${daemon.url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      problems.push(`the daemon died:\n${daemon.output().slice(-3000)}`);
  } finally {
    if (daemon !== null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await target.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  return { pass: problems.length === 0, figures, detail: problems.join('\n') };
}

const readReport = async (file: string): Promise<Report> => JSON.parse(await fs.readFile(file, 'utf8')) as Report;

/** Runs a connector with the CLI; its report of `name` (from .done or .error) once its feeds are applied. */
async function runAndReport(env: Env, format: 'csv' | 'json' | 'xml', name: string): Promise<Report | null> {
  const run = await runCli(['connectors', 'run', `erp-${format}`, '--json'], env.cliEnv);
  for (const d of ['.done', '.error']) {
    const report = await readReport(path.join(env.inbox(format), d, `${name}.report.json`)).catch(() => null);
    if (report === null) continue;
    await feedsApplied(env, report);
    return report;
  }
  env.problems.push(`${name}: no report (connectors run exited ${run.code}: ${run.stderr.slice(-500)})`);
  return null;
}

async function feedsApplied(env: Env, report: Report): Promise<void> {
  for (const f of report.feeds ?? []) {
    await until(`feed ${f.url}`, async () => {
      const feed = (await (await fetch(`${env.daemon.url}${new URL(f.url).pathname}`, { headers: env.shop.headers })).json()) as {
        state: string;
      };
      return feed.state === 'done' || feed.state === 'failed';
    });
  }
}

/** The shop's product of `sku`, as the API lists it; null when there is none. */
async function productOf(env: Env, sku: string): Promise<Record<string, unknown> | null> {
  const r = await fetch(`${env.daemon.url}/shops/${env.shop.shopPk}/products/?sku=${encodeURIComponent(sku)}`, {
    headers: env.shop.headers,
  });
  const list = (await r.json()) as Record<string, unknown>[];
  return list[0] ?? null;
}

/** Every file under `dir` whose content holds `text`. */
async function filesHolding(dir: string, text: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    if ((await fs.readFile(full, 'utf8')).includes(text)) out.push(full);
  }
  return out;
}

export const inboxRace: Scenario = {
  name: 'inbox-race',
  run: () =>
    withInboxes(false, async (env) => {
      const inbox = env.inbox('csv');
      const outside = path.join(env.dir, 'outside.csv');
      const key = path.join(env.dir, 'secret.key');
      const secret = `KEY-${randomBytes(24).toString('hex')}`;
      await fs.writeFile(outside, 'sku,name,price,stock\nSECRET-1,Outside the inbox,1,1\n');
      await fs.writeFile(key, `${secret}\n`, { mode: 0o600 });
      const csv = (sku: string): string => `sku,name,price,stock\n${sku},In the inbox,1,1\n`;
      await fs.writeFile(path.join(inbox, 'a-first.csv'), csv('RACE-A'));
      await fs.writeFile(path.join(inbox, 'b-swapped.csv'), csv('RACE-B'));
      await fs.writeFile(path.join(inbox, 'c-swapped.csv'), csv('RACE-C'));

      // The hook: the first file's processing waits on the table of processed files, locked here,
      // while the other two (settled, still regular files) are swapped for links.
      const lock = new pg.Client({ connectionString: await env.target.connectionString() });
      await lock.connect();
      let run: ReturnType<typeof runCli> | undefined;
      try {
        await lock.query('begin');
        await lock.query('lock table connector_files in access exclusive mode');
        run = runCli(['connectors', 'run', 'erp-csv', '--json'], env.cliEnv);
        await until(
          'the first file to wait at the lock',
          async () => {
            const waiting = await env.target.query<{ n: number }>(
              `select count(*)::int n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = 'connector_files' and not l.granted`,
            );
            return (waiting[0]?.n ?? 0) > 0;
          },
          60_000,
          20,
        );
        for (const [name, to] of [
          ['b-swapped.csv', outside],
          ['c-swapped.csv', key],
        ] as const) {
          await fs.rm(path.join(inbox, name));
          await fs.symlink(to, path.join(inbox, name));
        }
      } finally {
        await lock.query('commit').catch(() => undefined);
        await lock.end();
      }
      const result = await run;
      const reports: Report[] = [];
      for (const d of ['.done', '.error']) {
        for (const n of (await fs.readdir(path.join(inbox, d))).filter((x) => x.endsWith('.report.json')))
          reports.push(await readReport(path.join(inbox, d, n)));
      }
      for (const r of reports) await feedsApplied(env, r);
      env.figures.files_refused = (await fs.readdir(path.join(inbox, '.error'))).filter((n) => n.endsWith('.report.json')).length;
      if ((await productOf(env, 'SECRET-1')) !== null)
        env.problems.push('a file outside the inbox was imported through a link swapped in after the settle check');
      if ((await productOf(env, 'RACE-A')) === null) env.problems.push('the first file was not imported');
      for (const n of ['b-swapped.csv', 'c-swapped.csv']) {
        const r = await readReport(path.join(inbox, '.error', `${n}.report.json`)).catch(() => null);
        if (r === null || !/symbolic link/.test(r.reason ?? ''))
          env.problems.push(`${n}: not refused as a symbolic link (${JSON.stringify(r?.reason ?? r?.outcome ?? 'no report in .error')})`);
      }
      // The key is quoted nowhere: reports, the CLI's output, the daemon's, the stored log lines.
      const leaks = await filesHolding(inbox, secret);
      if (`${result.stdout}${result.stderr}`.includes(secret)) leaks.push('the CLI output');
      if (env.daemon.output().includes(secret)) leaks.push('the daemon output');
      const logged = await env.target.query<{ n: number }>(`select count(*)::int n from log_lines l where l::text like $1`, [
        `%${secret}%`,
      ]);
      if ((logged[0]?.n ?? 0) > 0) leaks.push('log_lines');
      if (leaks.length > 0) env.problems.push(`the key was written into ${leaks.join(', ')}`);
    }),
};

export const wideHeader: Scenario = {
  name: 'wide-header',
  run: () =>
    withInboxes(true, async (env) => {
      const inbox = env.inbox('csv');
      const columns = 100_000;
      const header = ['sku', 'name', 'price', 'stock', ...Array.from({ length: columns - 4 }, (_, i) => `attr${i}`)].join(',');
      const row = ['WIDE-1', 'Wide', '1', '1', ...new Array<string>(columns - 4).fill('')].join(',');
      // The API's latency while the daemon reads the file: one request after the other (after a
      // few to warm it up, and its slowest answer before the file as a figure).
      const list = (): Promise<ArrayBuffer> =>
        fetch(`${env.daemon.url}/shops/${env.shop.shopPk}/products/?page_size=1`, { headers: env.shop.headers }).then((r) =>
          r.arrayBuffer(),
        );
      let before = 0;
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await list();
        if (i >= 10) before = Math.max(before, performance.now() - t);
      }
      env.figures.api_slowest_before_ms = Math.round(before);
      /** `body` while the API is asked one request after the other; the slowest answer, ms. */
      const slowestDuring = async (body: () => Promise<void>): Promise<number> => {
        let slowest = 0;
        let done = false;
        const probe = (async () => {
          while (!done) {
            const t = performance.now();
            await list();
            slowest = Math.max(slowest, performance.now() - t);
          }
        })();
        try {
          await body();
        } finally {
          done = true;
          await probe;
        }
        return Math.round(slowest);
      };
      const filed = (file: string): Promise<unknown> =>
        until(
          `${file} to be filed`,
          () =>
            fs.access(file).then(
              () => true,
              () => false,
            ),
          180_000,
          50,
        );

      env.figures.api_slowest_wide_ms = await slowestDuring(async () => {
        await fs.writeFile(path.join(inbox, 'wide.csv'), `${header}\n${row}\n`);
        await filed(path.join(inbox, '.error', 'wide.csv.report.json'));
      });
      const report = await readReport(path.join(inbox, '.error', 'wide.csv.report.json'));
      if (!/at most 2,000/.test(report.reason ?? ''))
        env.problems.push(`the wide header's reason does not name the column limit: ${report.reason}`);
      // ~50 ms of event loop per step of reading; the rest is room for a machine shared with others.
      if (env.figures.api_slowest_wide_ms > 300)
        env.problems.push(`the API's slowest answer while the wide file was read took ${env.figures.api_slowest_wide_ms} ms`);

      // A long file of ordinary rows, read, validated and sent a slice at a time; the figure also
      // holds the daemon applying its feeds meanwhile (the same process and database).
      const rows = Array.from({ length: 30_000 }, (_, i) => `ROW-${i},Product ${i},${i}.5,${i % 9},red`);
      env.figures.api_slowest_rows_ms = await slowestDuring(async () => {
        await fs.writeFile(path.join(inbox, 'rows.csv'), `sku,name,price,stock,color\n${rows.join('\n')}\n`);
        await filed(path.join(inbox, '.done', 'rows.csv.report.json'));
      });
      env.figures.rows_sent = (await readReport(path.join(inbox, '.done', 'rows.csv.report.json'))).counts.sent;
      if (env.figures.rows_sent !== 30_000) env.problems.push(`rows.csv: ${env.figures.rows_sent} of 30000 products sent`);
      if (env.figures.api_slowest_rows_ms > 2_000)
        env.problems.push(`the API's slowest answer while 30,000 rows were read took ${env.figures.api_slowest_rows_ms} ms`);

      // JSON and XML documents of about 80 MB (20,000 products of 4 KB): read as streams, a chunk
      // at a time (read whole, the API's slowest answer was 0.5 s meanwhile for JSON, 2.6 s for
      // XML). The bound leaves room for the feeds applied meanwhile, as for the rows above.
      const description = 'd'.repeat(4_000);
      const big = Array.from({ length: 20_000 }, (_, i) => ({ sku: `DOC-${i}`, name: `Doc ${i}`, price: 2, stock: 1, description }));
      const documents = {
        json: JSON.stringify(big),
        // Other SKUs: the same products again would be unchanged, and not sent.
        xml: `<products>${big.map((p) => `<product><sku>X${p.sku}</sku><name>${p.name}</name><price>2</price><stock>1</stock><description>${description}</description></product>`).join('\n')}</products>`,
      };
      for (const format of ['json', 'xml'] as const) {
        const folder = env.inbox(format);
        const figure = `api_slowest_${format}_ms`;
        env.figures[figure] = await slowestDuring(async () => {
          await fs.writeFile(path.join(folder, `big.${format}`), documents[format]);
          await filed(path.join(folder, '.done', `big.${format}.report.json`));
        });
        const sent = (await readReport(path.join(folder, '.done', `big.${format}.report.json`))).counts.sent;
        if (sent !== big.length) env.problems.push(`big.${format}: ${sent} of ${big.length} products sent`);
        if (env.figures[figure] > 1_500)
          env.problems.push(`the API's slowest answer while big.${format} was read took ${env.figures[figure]} ms`);
      }
    }),
};

export const nulRow: Scenario = {
  name: 'nul-row',
  run: () =>
    withInboxes(false, async (env) => {
      const rows = ['sku,name,price,stock', 'NUL-1,One,1,1', 'NUL-2,Two,2,2', 'NUL-3,Th\0ree,3,3', 'NUL-4,Four,4,4'];
      await fs.writeFile(path.join(env.inbox('csv'), 'nul.csv'), `${rows.join('\n')}\n`);
      const products = [1, 2, 3].map((i) => ({ sku: `NULJ-${i}`, name: i === 2 ? 'Tw\u0000o' : `Json ${i}`, price: i, stock: 1 }));
      await fs.writeFile(path.join(env.inbox('json'), 'nul.json'), JSON.stringify(products));
      const csv = await runAndReport(env, 'csv', 'nul.csv');
      const json = await runAndReport(env, 'json', 'nul.json');
      const stored = async (skus: string[]): Promise<string[]> => {
        const out: string[] = [];
        for (const s of skus) if ((await productOf(env, s)) !== null) out.push(s);
        return out;
      };
      const csvStored = await stored(['NUL-1', 'NUL-2', 'NUL-3', 'NUL-4']);
      const jsonStored = await stored(['NULJ-1', 'NULJ-2', 'NULJ-3']);
      env.figures.csv_stored = csvStored.length;
      env.figures.json_stored = jsonStored.length;
      if (csv?.outcome !== 'done' || csvStored.join() !== 'NUL-1,NUL-2,NUL-4')
        env.problems.push(`CSV: ${csv?.outcome} (${csv?.reason}), stored ${csvStored.join() || 'none'}`);
      const csvError = csv?.errors[0];
      if (csv?.errors.length !== 1 || csvError?.line !== 4 || csvError.errors[0]?.pointer !== '/name')
        env.problems.push(`CSV errors: ${JSON.stringify(csv?.errors)}`);
      if (json?.outcome !== 'done' || jsonStored.join() !== 'NULJ-1,NULJ-3')
        env.problems.push(`JSON: ${json?.outcome} (${json?.reason}), stored ${jsonStored.join() || 'none'}`);
      const jsonError = json?.errors[0];
      if (json?.errors.length !== 1 || jsonError?.element !== 2 || jsonError.errors[0]?.pointer !== '/name')
        env.problems.push(`JSON errors: ${JSON.stringify(json?.errors)}`);
    }),
};

export const protoNames: Scenario = {
  name: 'proto-names',
  run: () =>
    withInboxes(false, async (env) => {
      await fs.writeFile(
        path.join(env.inbox('csv'), 'proto.csv'),
        'sku,name,price,stock,__proto__,constructor,toString\nPROTO-C,Csv,1,1,polluted,made-of-wood,a string\n',
      );
      await fs.writeFile(
        path.join(env.inbox('xml'), 'proto.xml'),
        '<products><product><sku>PROTO-X</sku><name>Xml</name><price>1</price><stock>1</stock>' +
          '<__proto__><polluted>yes</polluted></__proto__><constructor>made-of-stone</constructor><toString>a string</toString></product></products>',
      );
      const csv = await runAndReport(env, 'csv', 'proto.csv');
      const xml = await runAndReport(env, 'xml', 'proto.xml');
      for (const [label, report, sku, material] of [
        ['CSV', csv, 'PROTO-C', 'made-of-wood'],
        ['XML', xml, 'PROTO-X', 'made-of-stone'],
      ] as const) {
        const p = await productOf(env, sku);
        if (report?.outcome !== 'done' || p === null) {
          env.problems.push(`${label}: ${report?.outcome} (${report?.reason}), product ${p === null ? 'not stored' : 'stored'}`);
          continue;
        }
        const odd = Object.keys(p).filter((k) => k.includes('[object') || k.includes('native code'));
        if (odd.length > 0) env.problems.push(`${label}: attributes named ${JSON.stringify(odd)}`);
        const own = new Map(Object.entries(p));
        if (own.get('constructor') !== material || own.get('toString') !== 'a string')
          env.problems.push(
            `${label}: constructor=${JSON.stringify(own.get('constructor'))} toString=${JSON.stringify(own.get('toString'))}`,
          );
        if (Object.hasOwn(p, '__proto__') || Object.hasOwn(p, 'polluted'))
          env.problems.push(`${label}: __proto__ was stored: ${JSON.stringify(Object.keys(p))}`);
      }
      env.figures.products = [csv, xml].filter((r) => r?.outcome === 'done').length;
    }),
};
