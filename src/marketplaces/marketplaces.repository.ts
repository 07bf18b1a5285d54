import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export const insertMarketplace = (db: Executor, row: { pk?: number; name: string }) =>
  db
    .insertInto('marketplaces')
    .values({
      pk: row.pk ?? sql<number>`(select coalesce(max(pk), 0) + 1 from marketplaces)`,
      name: row.name,
    })
    .returning(['pk', 'name'])
    .executeTakeFirstOrThrow();

export const listMarketplaces = (db: Executor) => db.selectFrom('marketplaces').select(['pk', 'name']).orderBy('pk').execute();

export const findMarketplace = (db: Executor, pk: number) =>
  db.selectFrom('marketplaces').select(['pk', 'name']).where('pk', '=', pk).executeTakeFirst();
