// What the feed worker needs from outside the feed area, as ports the composition root fills
// in (src/main.ts), so that feeds import none of the areas above them.
import type { Executor } from '../db/database.ts';

/**
 * Where the content hashes of a connector feed's applied items go (the connector host's delta
 * detection, src/connectors/host/content-hashes.ts). Called in the transaction that applied
 * the items: an item that failed, or a chunk rolled back, keeps the product's old hash.
 */
export interface AppliedHashes {
  record(trx: Executor, shopPk: number, items: { sku: string; hash: string }[]): Promise<void>;
  /** A deleted product's hash is forgotten, so the same content created again is sent. */
  forget(trx: Executor, shopPk: number, skus: string[]): Promise<void>;
}
