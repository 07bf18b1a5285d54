// The log_lines table: batches written by every process's log sink, read by the Logs page and
// the overview's error chart.
import { sql, type Insertable } from 'kysely';
import type { Database, Executor } from '../db/database.ts';

export type NewLogLine = Insertable<Database['log_lines']> & { time: string; fields: string };

export const insertLines = async (db: Executor, rows: NewLogLine[]): Promise<void> => {
  if (rows.length > 0) await db.insertInto('log_lines').values(rows).execute();
};

/** Deletes every line but the newest `keep` (by id: the order they were stored in). */
export const pruneLines = async (db: Executor, keep: number): Promise<number> => {
  const r = await db
    .deleteFrom('log_lines')
    .where('id', '<=', sql<number>`(select max(id) from log_lines) - ${keep}`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
};

export interface LineFilter {
  /** Minimum numeric level. */
  level?: number;
  request?: string;
  feed?: string;
  run?: string;
  job?: string;
  /** Case-insensitive text in the message or the fields. */
  text?: string;
  /** Only lines with a larger id (the live tail). */
  after?: number;
  /** Only lines with a smaller id (an older page). */
  before?: number;
  limit: number;
}

/** The newest `limit` matching lines, newest first. */
export const queryLines = (db: Executor, f: LineFilter) => {
  let q = db.selectFrom('log_lines').select(['id', 'time', 'level', 'msg', 'pid', 'hostname', 'fields']);
  if (f.level !== undefined) q = q.where('level', '>=', f.level);
  if (f.request !== undefined) q = q.where('req_id', '=', f.request);
  if (f.feed !== undefined) q = q.where('feed', '=', f.feed);
  if (f.run !== undefined) q = q.where('run', '=', f.run);
  if (f.job !== undefined) q = q.where('job', '=', f.job);
  if (f.after !== undefined) q = q.where('id', '>', f.after);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  if (f.text !== undefined) {
    const like = `%${f.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb('msg', 'ilike', like), eb(sql<string>`fields::text`, 'ilike', like)]));
  }
  return q.orderBy('id', 'desc').limit(f.limit).execute();
};
export type LogLineRow = Awaited<ReturnType<typeof queryLines>>[number];

export const lastLineId = async (db: Executor): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('log_lines')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst()
    )?.id ?? 0,
  );
