// The connectors' content hashes (delta detection: an unchanged product is not sent again), as
// the port the feed worker writes them through (src/feeds/feed-ports.ts): the hash of each
// applied item of a connector's feed, in the transaction that applied it.
import type { AppliedHashes } from '../../feeds/feed-ports.ts';
import { forgetHashes, upsertHashes } from './connectors.repository.ts';

export const connectorHashes: AppliedHashes = { record: upsertHashes, forget: forgetHashes };
