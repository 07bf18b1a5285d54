import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export const ping = async (db: Executor): Promise<void> => {
  await sql`select 1`.execute(db);
};
