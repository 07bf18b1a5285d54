// Where a benchmark's daemon keeps its data: with DATABASE_URL, a scratch database made on that
// server (so a run never touches the database the URL names) and dropped by cleanup(); without
// it, a temp folder for an embedded Postgres, removed by cleanup().
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface BenchTarget {
  /** 8 random hex characters, unique to this run: also for the caller's other scratch names. */
  tag: string;
  /** DATABASE_URL of the scratch database, or WAYBILL_DATA_DIR of the embedded server. */
  env: Record<string, string>;
  /** Drops the scratch database, or removes the temp folder this module made. */
  cleanup(): Promise<void>;
}

export interface BenchTargetOptions {
  /** Embedded Postgres data folder inside a folder the caller owns and removes itself. */
  dataDir?: string;
}

/** `area` names the database (`wb_bench_<area>_<tag>`) and the temp folder. */
export async function benchTarget(area: string, options: BenchTargetOptions = {}): Promise<BenchTarget> {
  // The name goes into SQL unquoted: keep it a plain lower-case identifier.
  if (!/^[a-z][a-z0-9_]*$/.test(area)) throw new Error(`bench area must be a lower-case identifier, got ${area}`);
  const tag = randomBytes(4).toString('hex');
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `wb_bench_${area}_${tag}`;
    await execute(adminUrl, `create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { tag, env: { DATABASE_URL: url.toString() }, cleanup: () => execute(adminUrl, `drop database if exists ${name} with (force)`) };
  }
  if (options.dataDir !== undefined) return { tag, env: { WAYBILL_DATA_DIR: options.dataDir }, cleanup: async () => undefined };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `waybill-bench-${area}-`));
  return { tag, env: { WAYBILL_DATA_DIR: dir }, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}

async function execute(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
