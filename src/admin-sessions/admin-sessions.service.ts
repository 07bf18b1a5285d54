// Dashboard sessions kept in Postgres, so every replica sees a logout at once. A login gets a
// random id (the cookie's value, signed by the HTTP layer with a key derived from the admin
// token); the table keeps only its sha256. A session ends at logout, after SESSION_IDLE_SECONDS
// without a request, or SESSION_MAX_SECONDS after login however active.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import * as repo from './admin-sessions.repository.ts';

/** Idle limit, seconds: 30 minutes without a request ends a session. */
export const SESSION_IDLE_SECONDS = 30 * 60;
/** Absolute limit, seconds: a session ends 12 hours (a working day) after login. */
export const SESSION_MAX_SECONDS = 12 * 3_600;
/**
 * last_seen_at is written at most once a minute per session, not on each of the dashboard's
 * polls (every few seconds): the idle limit is therefore exact to the minute.
 */
const TOUCH_SECONDS = 60;

const hashOf = (id: string): string => createHash('sha256').update(id).digest('hex');

export class AdminSessionService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** A new session; returns its id (the cookie value). Ended sessions are swept meanwhile. */
  async start(): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await repo.pruneSessions(this.#db, SESSION_IDLE_SECONDS);
    await repo.insertSession(this.#db, hashOf(id), SESSION_MAX_SECONDS);
    return id;
  }

  /** True while the session is valid; a use moves its idle limit on. */
  async check(id: string): Promise<boolean> {
    const idHash = hashOf(id);
    const live = await repo.findLiveSession(this.#db, idHash, SESSION_IDLE_SECONDS, TOUCH_SECONDS);
    if (live === undefined) return false;
    if (live.stale) await repo.touchSession(this.#db, idHash);
    return true;
  }

  /** Ends the session (logout): its cookie is refused by every replica from now on. */
  async end(id: string): Promise<void> {
    await repo.deleteSession(this.#db, hashOf(id));
  }
}
