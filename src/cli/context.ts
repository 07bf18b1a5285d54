// What a CLI command gets: config, a quiet logger (stderr), and services over the database
// (the daemon's embedded one when it runs, else started for the command and stopped after),
// built by the daemon's own composition (main.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { connect } from '../db/connect.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { buildServices, type Services } from '../main.ts';
import type { Output } from './output.ts';

export interface CliContext {
  config: Config;
  logger: Logger;
  out: Output;
}

/** A failure the user fixes from the message alone: printed as one line, with its exit code and --json code. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(code: string, message: string, exitCode: number) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** An embedded database has been initialised in dataDir (its state file is written by initdb's caller). */
export const embeddedExists = (dataDir: string): boolean => fs.existsSync(path.join(dataDir, 'embedded.json'));

/**
 * Commands other than `init` and `start` never create a database: run from another folder
 * without the daemon's environment, they would otherwise make a second, empty one and write to
 * it while the daemon reads its own.
 */
function requireDatabase(config: Config): void {
  if (config.databaseUrl !== undefined || embeddedExists(config.dataDir)) return;
  throw new CliError(
    'no_database',
    `no database: set DATABASE_URL, or WAYBILL_DATA_DIR to the daemon's data folder (${config.dataDir} holds none; \`waybill init\` creates one there)`,
    2,
  );
}

/** Error codes of a database that cannot be reached or entered (Node's socket codes, Postgres's SQLSTATEs). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  '28P01',
  '28000',
  '3D000',
]);
const SQLSTATE_TEXT: Record<string, string> = {
  '28P01': 'password authentication failed',
  '28000': 'access refused (pg_hba.conf)',
  '3D000': 'the database does not exist',
};

/** The first unreachable-database code in an error, its causes and an AggregateError's errors. */
function unreachableCode(error: unknown, depth = 0): string | null {
  if (depth > 8 || typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
  if (/timeout expired|Connection terminated due to connection timeout/i.test((error as Error).message ?? '')) return 'ETIMEDOUT';
  for (const inner of [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])]) {
    const found = unreachableCode(inner, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** `cannot reach the database at host:port: ECONNREFUSED` when the error is that; else null. */
export function describeDatabaseError(error: unknown, config: Config): CliError | null {
  const code = unreachableCode(error);
  if (code === null) return null;
  const reason = SQLSTATE_TEXT[code] ?? code;
  if (config.databaseUrl === undefined)
    return new CliError('database_unreachable', `cannot reach the embedded database in ${config.dataDir}: ${reason}`, 1);
  const url = new URL(config.databaseUrl);
  const where = `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  // The server answered but refused: name the database too.
  return new CliError(
    'database_unreachable',
    SQLSTATE_TEXT[code] === undefined
      ? `cannot reach the database at ${where}: ${reason}`
      : `cannot use the database at ${where}${url.pathname}: ${reason}`,
    1,
  );
}

/** Runs fn with services; jobs are sent through a queue that is started only if fn sends one. */
export async function withServices<T>(ctx: CliContext, fn: (services: Services) => Promise<T>): Promise<T> {
  requireDatabase(ctx.config);
  const connection = await connect(ctx.config, ctx.logger, { applicationName: 'waybill-cli' });
  let queue: JobQueue | null = null;
  let starting: Promise<JobQueue> | null = null;
  // Memoized: two sends at once start one queue.
  const started = (): Promise<JobQueue> =>
    (starting ??= (async () => {
      queue = new JobQueue({ connectionString: connection.connectionString, logger: ctx.logger, supervise: false, max: 2 });
      await queue.start();
      return queue;
    })());
  const lazyJobs: JobSender & { ready(): Promise<boolean> } = {
    send: async (db, name, data, options) => (await started()).send(db, name, data, options),
    sendMany: async (db, name, jobs) => (await started()).sendMany(db, name, jobs),
    ready: async () => true,
  };
  try {
    return await fn(buildServices({ db: connection.db, jobs: lazyJobs, config: ctx.config, logger: ctx.logger }));
  } finally {
    await (queue as JobQueue | null)?.stop(5_000);
    await connection.close();
  }
}
