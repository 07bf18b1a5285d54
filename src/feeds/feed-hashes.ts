// The content hashes of a connector feed's applied items (its delta detection), handed to the
// connector host's port (feed-ports.ts) by the feed worker, in the transaction that applied them.
import type { ItemSuccess } from '../catalog/apply/items.ts';
import type { Trx } from '../db/database.ts';
import type { AppliedHashes } from './feed-ports.ts';

/** Feeds whose items carry a connector's content hash (delta detection). */
const HASHED: ReadonlySet<string> = new Set(['product_create', 'product_merge']);

/**
 * Hands the content hashes of a connector feed's applied items to the connector host's port:
 * an item that failed, or a chunk rolled back, keeps the product's old hash, so the connector
 * sends it again next time.
 */
export async function rememberApplied(
  appliedHashes: AppliedHashes,
  trx: Trx,
  feed: { shop_pk: number; type: string; payload_hashes: (string | null)[] | null },
  success: ItemSuccess[],
): Promise<void> {
  // A deleted product's hash is the content it had: kept, the same content created again
  // would look unchanged to a connector and never be sent.
  if (feed.type === 'product_delete') {
    await appliedHashes.forget(trx, feed.shop_pk, [...new Set(success.flatMap((s) => (typeof s.sku === 'string' ? [s.sku] : [])))]);
    return;
  }
  const hashes = feed.payload_hashes;
  if (hashes === null || !HASHED.has(feed.type)) return;
  // By index: of two items of one sku, the later one is what the product now holds.
  const bySku = new Map<string, string>();
  for (const s of [...success].sort((a, b) => a.index - b.index)) {
    const hash = hashes[s.index];
    if (typeof s.sku === 'string' && typeof hash === 'string') bySku.set(s.sku, hash);
  }
  if (bySku.size > 0)
    await appliedHashes.record(
      trx,
      feed.shop_pk,
      [...bySku].map(([sku, hash]) => ({ sku, hash })),
    );
}
