// One claim/replay for requests that must take effect once: API writes sent with an
// Idempotency-Key and deliveries pushed to connectors (their webhook-id). The first request
// claims its key and does the work; a duplicate arriving meanwhile waits for it (up to 30 s)
// and replays its reply; a first attempt that failed releases the key, so a retry does the work.
import type { AppError } from '../errors.ts';

export interface StoredReply<B> {
  status: number;
  headers: Record<string, string>;
  body: B;
}

/** Where one kind of claim is kept (a table); each function acts on the one key it was made for. */
export interface ClaimStore<B> {
  /** Inserts the claim; false when the key is held. */
  claim(): Promise<boolean>;
  /** The claim holding the key, or undefined when it is gone or past its retention. */
  find(): Promise<{ fingerprint: string | null; reply: StoredReply<B> | null } | undefined>;
  /** Deletes the key's claim when it is past its retention, so the key can be claimed afresh. */
  dropExpired(): Promise<void>;
  save(reply: StoredReply<B>): Promise<void>;
  /** Deletes the key's claim unless it holds a reply. */
  release(): Promise<void>;
}

export type Claim<B> = { kind: 'new' } | { kind: 'replay'; reply: StoredReply<B> };

export interface ClaimOptions {
  /** What the request was (a body hash) and the error for the same key sent with another one. */
  fingerprint?: { hash: string; reused: () => AppError };
  /** The error when the first request is still in flight after the wait. */
  inFlight: () => AppError;
}

/** How long a duplicate waits for the first request with its key to finish, ms. */
const WAIT_MS = 30_000;

/** Claims the key, or answers the first request's reply once it has one. */
export async function claim<B>(store: ClaimStore<B>, options: ClaimOptions): Promise<Claim<B>> {
  const deadline = Date.now() + WAIT_MS;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    if (await store.claim()) return { kind: 'new' };
    const held = await store.find();
    if (held === undefined) {
      // Released meanwhile, or expired: claim afresh.
      await store.dropExpired();
      continue;
    }
    if (options.fingerprint !== undefined && held.fingerprint !== options.fingerprint.hash) throw options.fingerprint.reused();
    if (held.reply !== null) return { kind: 'replay', reply: held.reply };
    if (Date.now() > deadline) throw options.inFlight();
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** Keeps the reply of work done (2xx) for replays; any other reply frees the key for a retry. */
export async function settle<B>(store: ClaimStore<B>, reply: StoredReply<B>): Promise<void> {
  if (reply.status >= 200 && reply.status < 300) await store.save(reply);
  else await store.release();
}

/** claim, then the work, then settle: a duplicate gets the first reply (`replayed`), a throw frees the key. */
export async function once<B>(
  store: ClaimStore<B>,
  options: ClaimOptions,
  work: () => Promise<StoredReply<B>>,
): Promise<{ reply: StoredReply<B>; replayed: boolean }> {
  const claimed = await claim(store, options);
  if (claimed.kind === 'replay') return { reply: claimed.reply, replayed: true };
  try {
    const reply = await work();
    await settle(store, reply);
    return { reply, replayed: false };
  } catch (error) {
    await store.release().catch(() => undefined);
    throw error;
  }
}
