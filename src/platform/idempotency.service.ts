// Idempotency-Key: the same key and body within 24 h returns the first reply and does no new
// work; the same key with another body is refused (422). A request still in flight with the
// same key is waited for, so concurrent retries are applied once.
import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import * as repo from './idempotency.repository.ts';

export interface StoredReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim = { kind: 'new' } | { kind: 'replay'; reply: StoredReply };

/** How long a duplicate waits for the first request with its key to finish, ms. */
const WAIT_MS = 30_000;

export const bodyHash = (method: string, path: string, body: unknown): string =>
  createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');

export class IdempotencyService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async claim(shopPk: number, key: string, method: string, path: string, body: unknown): Promise<Claim> {
    if (key.length === 0 || key.length > 255) {
      throw new AppError('invalid_idempotency_key', 400, 'Idempotency-Key must be 1-255 characters.');
    }
    const hash = bodyHash(method, path, body);
    const deadline = Date.now() + WAIT_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      if (await repo.claimKey(this.#db, { shop_pk: shopPk, key, method, path, body_hash: hash })) return { kind: 'new' };
      const row = await repo.findKey(this.#db, shopPk, key);
      if (row === undefined) {
        // Expired (older than 24 h) or released meanwhile: start afresh.
        await repo.deleteKey(this.#db, shopPk, key);
        continue;
      }
      if (row.body_hash !== hash) {
        throw new AppError('idempotency_key_reused', 422, 'This Idempotency-Key was used with another request body.');
      }
      if (row.status !== null) {
        return { kind: 'replay', reply: { status: row.status, headers: row.headers ?? {}, body: JSON.stringify(row.body) } };
      }
      if (Date.now() > deadline) {
        throw new AppError('idempotency_key_in_flight', 409, 'A request with this Idempotency-Key is still being processed; retry later.');
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** Stores the reply of a successful request; a failed one frees the key for a retry. */
  async finish(shopPk: number, key: string, reply: StoredReply): Promise<void> {
    if (reply.status >= 200 && reply.status < 300) await repo.saveReply(this.#db, shopPk, key, reply);
    else await repo.releaseKey(this.#db, shopPk, key);
  }

  prune(): Promise<number> {
    return repo.pruneKeys(this.#db);
  }
}
