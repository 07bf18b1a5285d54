import type { Db } from '../db/database.ts';
import * as repo from './health.repository.ts';

export interface ReadinessCheck {
  ready: boolean;
  checks: Record<string, 'ok' | 'failing'>;
}

/** Readiness: the database answers within timeoutMs, and so does the job queue. */
export class HealthService {
  readonly #db: Db;
  readonly #queueReady: () => Promise<boolean>;

  constructor(db: Db, queueReady: () => Promise<boolean>) {
    this.#db = db;
    this.#queueReady = queueReady;
  }

  async readiness(timeoutMs = 2_000): Promise<ReadinessCheck> {
    const within = <T>(p: Promise<T>): Promise<T> =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
    const [database, queue] = await Promise.all([
      within(repo.ping(this.#db)).then(
        () => 'ok' as const,
        () => 'failing' as const,
      ),
      within(this.#queueReady()).then(
        (ok) => (ok ? ('ok' as const) : ('failing' as const)),
        () => 'failing' as const,
      ),
    ]);
    return { ready: database === 'ok' && queue === 'ok', checks: { database, job_queue: queue } };
  }
}
