// Idempotency-Key: the same key and body within 24 h returns the first reply and does no new
// work; the same key with another body is refused (422). A request still in flight with the
// same key is waited for (src/idempotency/claims.ts), so concurrent retries are applied once.
import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { claim, settle, type Claim, type ClaimStore, type StoredReply } from './claims.ts';
import * as repo from './idempotency.repository.ts';

/** A reply as sent: its body is the serialized text. */
export type IdempotentReply = StoredReply<string>;

export const bodyHash = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');

export class IdempotencyService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** The claim of (shop, key); `request` is what claiming it records (finish() only saves or releases). */
  #store(shopPk: number, key: string, request: { method: string; path: string; body_hash: string } | null = null): ClaimStore<string> {
    const db = this.#db;
    return {
      claim: async () => request !== null && repo.claimKey(db, { shop_pk: shopPk, key, ...request }),
      find: async () => {
        const row = await repo.findKey(db, shopPk, key);
        if (row === undefined) return undefined;
        const reply = row.status === null ? null : { status: row.status, headers: row.headers ?? {}, body: JSON.stringify(row.body) };
        return { fingerprint: row.body_hash, reply };
      },
      dropExpired: async () => void (await repo.deleteExpiredKey(db, shopPk, key)),
      save: async (reply) => void (await repo.saveReply(db, shopPk, key, reply)),
      release: async () => void (await repo.releaseKey(db, shopPk, key)),
    };
  }

  async claim(shopPk: number, key: string, method: string, path: string, body: unknown): Promise<Claim<string>> {
    if (key.length === 0 || key.length > 255) {
      throw new AppError('invalid_idempotency_key', 400, 'Idempotency-Key must be 1-255 characters.');
    }
    const hash = bodyHash(method, path, body);
    return claim(this.#store(shopPk, key, { method, path, body_hash: hash }), {
      fingerprint: {
        hash,
        reused: () => new AppError('idempotency_key_reused', 422, 'This Idempotency-Key was used with another request body.'),
      },
      inFlight: () =>
        new AppError('idempotency_key_in_flight', 409, 'A request with this Idempotency-Key is still being processed; retry later.'),
    });
  }

  /** Stores the reply of a successful request; a failed one frees the key for a retry. */
  finish(shopPk: number, key: string, reply: IdempotentReply): Promise<void> {
    return settle(this.#store(shopPk, key), reply);
  }

  prune(): Promise<number> {
    return repo.pruneKeys(this.#db);
  }
}
