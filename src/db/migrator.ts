// Runs migrations/ with Kysely's Migrator (it takes a lock, so replicas may start together).
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { FileMigrationProvider, Migrator, type MigrationResultSet } from 'kysely/migration';

export const migrationFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export interface MigrationReport {
  applied: string[];
  latest: string | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationReport> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
    // Areas (catalog, orders, connectors...) add migrations independently; one landing with an
    // earlier timestamp than another already applied must still run rather than stop start-up.
    allowUnorderedMigrations: true,
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const all = await migrator.getMigrations();
  const done = all.filter((m) => m.executedAt !== undefined);
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    latest: done.at(-1)?.name ?? null,
  };
}
