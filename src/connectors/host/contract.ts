// The connector contract. A connector TYPE is a folder under connectors/ exporting one
// definition; an INSTANCE is an entry of the WAYBILL_CONNECTORS file. A connector gets
// everything through its context and never touches the database or Fastify.
import type { Static, TSchema } from 'typebox';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';

/** Small persistent JSON per connector (cursors, last-seen markers); not for large sets. */
export interface StateStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

/** What a run did: counters and the feeds it created, stored on the run record. */
export interface RunReport {
  count(name: string, n?: number): void;
  feed(feedPk: string | number): void;
  readonly counts: Readonly<Record<string, number>>;
  readonly feeds: readonly string[];
}

/** One product to compare with the last content a connector sent for its (shop, sku). */
export interface DeltaItem<T> {
  sku: string;
  product: T;
  /** The product's content hash when already computed (contentHash of run-context.ts). */
  hash?: string;
}

/**
 * Delta detection: a sha256 of each product's normalized content (keys sorted) per shop+sku.
 * `changed` keeps the products whose hash differs from the stored one. The stored hash is
 * that of the content last applied: a connector hands each item's hash to its feed
 * (`feeds.submitValidated` items' `hash`, or `feeds.submit` with `contentHashes`), and the
 * feed worker records it in the transaction that applies the item. A product whose item
 * failed, or whose feed never ran, is sent again next time.
 */
export interface DeltaStore {
  changed<T>(shopPk: number, items: DeltaItem<T>[]): Promise<(DeltaItem<T> & { hash: string })[]>;
}

/** Things a connector finished, by a key of its choosing (a file's sha256): done once, skipped after. */
export interface ProcessedStore {
  /** A file processed before whose feeds were all applied in full; null: process it (again). */
  seen(key: string): Promise<{ label: string; at: string } | null>;
  remember(key: string, label: string, feedPks: string[]): Promise<void>;
}

export interface ConnectorContext<O = unknown> {
  /** The instance's name in the config file. */
  name: string;
  type: string;
  /** The shop the instance works for; null: every shop. */
  shopPk: number | null;
  /** The options of the config file, validated against the type's schema, defaults applied. */
  options: O;
  /** pino child carrying `connector` and `runId`. */
  log: Logger;
  /** Aborted when the daemon shuts down or the job expires: stop early, state stays consistent. */
  signal: AbortSignal;
  state: StateStore;
  /** The value of the environment variable named in the options (`api_key_env`); throws a user error when unset. */
  secret(envName: string): string;
  /** The domain services (feeds, catalog, orders...). */
  services: Services;
  report: RunReport;
  delta: DeltaStore;
  processed: ProcessedStore;
  /** The run record's id (0 for pushed requests). */
  runId: number;
  /** `{base_url}` of Locations built outside a request: PUBLIC_URL, else http://HOST:PORT. */
  baseUrl: string;
}

/** A pushed HTTP request, without Fastify: what a receiver sees. */
export interface ReceiverRequest {
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as sent (signatures are computed over these bytes). */
  rawBody: Buffer;
  params: Record<string, string>;
  /** `{base_url}` of this request (PUBLIC_URL, else its protocol and Host). */
  baseUrl: string;
}

export interface ReceiverResponse {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON (objects, arrays) or as is (strings); omitted: no body. */
  body?: unknown;
}

export interface ReceiverContext<O = unknown> extends Omit<ConnectorContext<O>, 'signal'> {
  /**
   * Runs fn once per delivery key (e.g. `webhook-id`): a duplicate gets the stored first reply
   * and does no work. While the first is still being handled a duplicate gets 409.
   */
  once(key: string, fn: () => Promise<ReceiverResponse>): Promise<ReceiverResponse>;
}

export interface ConnectorDefinition<S extends TSchema = TSchema> {
  /** The `type` of config entries, e.g. "catalog-file". */
  type: string;
  description: string;
  /** TypeBox schema of `options` (use additionalProperties: false so a typo is named at start-up). */
  options: S;
  /** true: an entry must name its shop_pk. */
  needsShop?: boolean;
  /** One run (a scheduled tick, run now). Throw userError() for bad input, other errors are retried when transient. */
  run(ctx: ConnectorContext<Static<S>>): Promise<void>;
  /**
   * Folders whose changes should start a run at once (the scheduler role watches them). Only
   * for speed: a missed event is picked up by the next scheduled run.
   */
  watchPaths?(options: Static<S>): string[];
  /**
   * Called once when a process that runs connectors (role worker) starts, for each enabled
   * instance: load what its first run would otherwise wait for (catalog-file: a CSV reader
   * thread). Only for speed: it must not throw, and runs work without it.
   */
  prepare?(options: Static<S>): void;
  /** Push receivers, by name; "webhook" is mounted at POST /connectors/{name}/webhook. */
  receivers?: Record<string, (request: ReceiverRequest, ctx: ReceiverContext<Static<S>>) => Promise<ReceiverResponse>>;
}

/** Keeps the options type of a definition while typing it (no runtime effect). */
export const defineConnector = <S extends TSchema>(definition: ConnectorDefinition<S>): ConnectorDefinition<S> => definition;

// Options differ by type; the registry holds them all (each run gets its own, validated).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyConnectorDefinition = ConnectorDefinition<any>;

/**
 * A user error: bad input or a bad option. The run is recorded as failed and not retried
 * (retrying cannot fix a bad file). Transient errors (database away, network) are retried.
 */
export const userError = (message: string, options: { cause?: unknown } = {}): AppError =>
  new AppError('connector_input', 422, message, options);

/** The longest a remote API's Retry-After throttles a connector, ms (24 hours). */
export const MAX_THROTTLE_MS = 86_400_000;

/**
 * The remote API asked to be left alone for longer than a run waits (a 429 or 503 with
 * Retry-After). The run is recorded as `throttled`, and no run of this connector starts before
 * `until`: the time is stored with the run, so restarts and other replicas honour it too.
 */
export class ThrottledError extends AppError {
  readonly until: Date;

  constructor(until: Date, message: string) {
    super('connector_throttled', 429, message);
    this.until = until;
  }
}

export const throttled = (until: Date, message: string): ThrottledError => new ThrottledError(until, message);
