// catalog-file: an ERP/PIM drops catalog exports (CSV, JSON, XML) into a folder; each settled
// file is moved to .processing/, sent as product feeds (changed products only), and moved to
// .done/ or .error/ beside <file>.report.json. Polling only: correctness never waits on events.
import fs from 'node:fs/promises';
import path from 'node:path';
import { defineConnector, LAST_INPUT_KEY, userError, type ConnectorContext } from '../sdk/index.ts';
import { DONE, ERROR, PROCESSING, ensureFolders, inside, moveInto, openInboxFile, safeName, scan, settled } from './inbox.ts';
import { CatalogFileOptions } from './options.ts';
import { processFile } from './process-file.ts';
import { previewFile } from './preview.ts';

type Ctx = ConnectorContext<CatalogFileOptions>;

/**
 * Writes a report as a new file: whatever had its name (a link to a file elsewhere, a hard
 * link) is removed first, never written through.
 */
async function writeReport(dir: string, fileName: string, report: object): Promise<void> {
  const file = inside(dir, `${fileName}.report.json`);
  await fs.rm(file, { force: true });
  await fs.writeFile(file, `${JSON.stringify(report, null, 2)}\n`, { flag: 'wx' });
}

/** A file of .processing/ refused unread (a link, not a regular file): filed under .error/ with the reason. */
async function refuse(ctx: Ctx, inbox: string, name: string, reason: string): Promise<void> {
  const final = await moveInto(inside(path.join(inbox, PROCESSING), name), path.join(inbox, ERROR), safeName(name));
  await writeReport(path.join(inbox, ERROR), final, {
    file: final,
    original_name: name,
    connector: ctx.name,
    run_id: ctx.runId,
    outcome: 'error',
    reason,
  });
  ctx.report.count('files_error');
  ctx.log.warn({ file: name, reason }, 'catalog file refused');
}

/**
 * Processes one file of .processing/ and files it under .done/ or .error/ with its report. The
 * file is opened once, here, and read only through that handle.
 */
async function handle(ctx: Ctx, inbox: string, name: string): Promise<void> {
  const opened = await openInboxFile(inbox, path.join(inbox, PROCESSING), name);
  if (opened === null) return;
  if ('refused' in opened) return refuse(ctx, inbox, name, opened.refused);
  const report = await processFile(ctx, opened, name).finally(() => opened.handle.close());
  const dir = path.join(inbox, report.outcome === 'error' ? ERROR : DONE);
  const final = await moveInto(inside(path.join(inbox, PROCESSING), name), dir, name);
  report.file = final;
  await writeReport(dir, final, report);
  ctx.report.count(`files_${report.outcome}`);
  // The dashboard's connector page shows the last file's summary.
  await ctx.state.set(LAST_INPUT_KEY, {
    file: final,
    outcome: report.outcome,
    reason: report.reason,
    finished_at: report.finished_at,
    counts: report.counts,
    summary: report.summary ?? null,
  });
  ctx.report.count('products_invalid', report.counts.invalid);
  const log = { file: final, outcome: report.outcome, counts: report.counts, feeds: report.feeds.length };
  if (report.outcome === 'error') ctx.log.warn({ ...log, reason: report.reason }, 'catalog file refused');
  else ctx.log.info(log, 'catalog file processed');
}

/** The files of one run: those a crash left in .processing/, then the inbox's settled ones. */
async function processInbox(ctx: Ctx, inbox: string): Promise<void> {
  // A crash (or shutdown) mid-file left it in .processing/: process it again. Delta
  // detection makes that idempotent: products already sent are unchanged now.
  for (const d of await fs.readdir(path.join(inbox, PROCESSING), { withFileTypes: true })) {
    if (ctx.signal.aborted) return;
    if (d.isFile() || d.isSymbolicLink()) {
      ctx.log.info({ file: d.name }, 'resuming a file left in .processing');
      await handle(ctx, inbox, d.name);
    }
  }

  // The product model file, when it lies in the inbox itself, is read with the product files, not imported.
  const entries = (await scan(inbox, ctx.options.format)).filter((e) => e.name !== ctx.options.product_models);
  for (const e of entries) {
    if (e.kind !== 'refused') continue;
    const final = await moveInto(inside(inbox, e.name), path.join(inbox, ERROR), safeName(e.name));
    await writeReport(path.join(inbox, ERROR), final, {
      file: final,
      original_name: e.name,
      connector: ctx.name,
      run_id: ctx.runId,
      outcome: 'error',
      reason: e.reason,
    });
    ctx.report.count('files_error');
    ctx.log.warn({ file: e.name, reason: e.reason }, 'catalog file refused');
  }
  const files = entries.filter((e) => e.kind === 'file');
  const { ready, waiting } = await settled(inbox, files, ctx.options.settle_ms, ctx.signal);
  if (waiting.length > 0) {
    ctx.report.count('files_waiting', waiting.length);
    ctx.log.info({ files: waiting }, 'files still being written: left for the next run');
  }
  for (const name of ready) {
    if (ctx.signal.aborted) return;
    const taken = await moveInto(inside(inbox, name), path.join(inbox, PROCESSING), name).catch((error: unknown) => {
      // Gone meanwhile (the ERP replaced it): the next run sees the new one.
      if ((error as { code?: string }).code === 'ENOENT') return null;
      throw error;
    });
    if (taken !== null) await handle(ctx, inbox, taken);
  }
}

export const catalogFile = defineConnector({
  type: 'catalog-file',
  description:
    "Catalog export files (CSV, JSON, XML; shop systems' exports with a preset) dropped into an inbox folder become product feeds.",
  options: CatalogFileOptions,
  needsShop: true,
  // A file dropped in the inbox starts a run now; the schedule stays the floor.
  watchPaths: (options) => [path.resolve(options.inbox)],
  preview: (options, file, limit) => previewFile(options, file, limit),
  async run(ctx) {
    const inbox = path.resolve(ctx.options.inbox);
    const st = await fs.stat(inbox).catch(() => null);
    if (st === null || !st.isDirectory()) throw userError(`The inbox ${inbox} does not exist or is not a folder (option inbox).`);
    if (!(await ctx.catalog.shopExists()))
      throw userError(`Shop ${ctx.shopPk} (shop_pk) does not exist; create it or fix the connector's entry.`);
    await ensureFolders(inbox);
    await processInbox(ctx, inbox);
  },
});
