// The connector contract. A connector TYPE is a folder under connectors/ exporting one
// definition; an INSTANCE is an entry of the WAYBILL_CONNECTORS file. A connector gets
// everything through its context: narrow ports the host (src/connectors/host) implements.
// It never touches the database, Fastify or the services behind the ports.
import type { Static, TSchema } from 'typebox';
import { AppError } from '../../src/errors.ts';
import type { Logger } from '../../src/logger.ts';
import type { RecordOutcome, SelectOptions, TrackedShipment, TrackingResult } from '../../src/tracking/tracking.schemas.ts';

/**
 * The state key a connector keeps its last input's summary under (a file connector: the last
 * file's counts and summary); the dashboard's connector page shows it.
 */
export const LAST_INPUT_KEY = 'last_input';

/** Small persistent JSON per connector (cursors, last-seen markers); not for large sets. */
export interface StateStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

/**
 * What a run did: counters and the feeds it created, stored on the run record. A count named
 * `*_error`, `*_failed`, `*_invalid` or `*_refused` (`files_error`, `products_invalid`,
 * `checks_failed`) counts things the run could not do: a run that ends with one above 0 is
 * `partial`, not `succeeded` (isProblemCount).
 */
export interface RunReport {
  count(name: string, n?: number): void;
  feed(feedPk: string | number): void;
  readonly counts: Readonly<Record<string, number>>;
  readonly feeds: readonly string[];
}

/** A count of things a run could not do (see RunReport): its run ends `partial`. */
export const isProblemCount = (name: string): boolean => /_(error|errors|failed|invalid|refused)$/.test(name);

/** One product to compare with the last content a connector sent for its (shop, sku). */
export interface DeltaItem<T> {
  sku: string;
  product: T;
  /** The product's content hash when already computed (contentHash of the SDK). */
  hash?: string;
}

/**
 * Delta detection: a sha256 of each product's normalized content (keys sorted) per shop+sku.
 * `changed` keeps the products whose hash differs from the stored one. The stored hash is
 * that of the content last applied: a connector hands each item's hash to its feed
 * (`catalog.submitValidated` items' `hash`; `catalog.submitProducts` hashes each), and the
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

/** A feed a connector created, as the API shows it. */
export interface SubmittedFeed {
  pk: string;
  /** The feed's URL ({base_url}/feeds/{pk}/). */
  url: string;
  /** Items in the feed. */
  total: number;
  /** The feed as the products POST answers it (201 body). */
  json: unknown;
}

/** A product already validated by `validateProducts` (the products POST's rules), as its canonical JSON. */
export interface ValidatedProduct {
  sku: string;
  json: string;
  /** Its content hash (hashOfCanonical of json), recorded once the feed applies it. */
  hash: string;
}

/** Catalog writes of the instance's shop (shop_pk); each becomes a product feed (product_create). */
export interface CatalogPort {
  /** False when the shop the entry names does not exist (any more). */
  shopExists(): Promise<boolean>;
  /**
   * A products POST body (one product or an array), validated with the POST's rules: any
   * invalid field refuses the whole body (400 problem JSON, as the POST). Each product's content
   * hash is recorded when the feed applies it.
   */
  submitProducts(body: unknown, options?: { baseUrl?: string }): Promise<SubmittedFeed>;
  /**
   * Products validated already (by the connector with `validateProducts`): recorded as they are.
   * `merge`: each json is `{"product": {...}, "defaults": {...}}` (product validated with
   * `partial`): an existing product keeps the fields not sent, a new one takes the defaults.
   */
  submitValidated(products: ValidatedProduct[], options?: { merge?: boolean }): Promise<SubmittedFeed>;
  /**
   * Soft-deletes the shop's products with these skus (a product_delete feed, as the products
   * DELETE with `[{"sku"}]`). Once applied, their content hashes are forgotten, so a product
   * created again with the same content is sent again.
   */
  deleteProducts(skus: string[]): Promise<SubmittedFeed>;
}

/** Carrier tracking: which shipments to check, and what the carrier said (order actions follow). */
export interface TrackingPort {
  /** Shipments due for a check, oldest check first. */
  due(query: SelectOptions): Promise<TrackedShipment[]>;
  /** The shipments of these carriers (and shop, null: any) with this tracking code. */
  byTrackingCode(carriers: string[], shopPk: number | null, trackingCode: string): Promise<TrackedShipment[]>;
  /** Stores what the carrier said; the order action it implies is applied through the order rules. */
  record(shipment: TrackedShipment, result: TrackingResult, options: { followDeliveredDays: number }): Promise<RecordOutcome>;
  /** A check that failed, recorded against its shipment. */
  recordError(shipmentId: number, message: string): Promise<void>;
}

/**
 * An outbound call refused by the rules (too large, a redirect elsewhere, a refused
 * destination): the outbound client's own error, reaching connectors as it is.
 */
export { OutboundError, type OutboundFailure } from '../../src/outbound/outbound-http.ts';

export interface HttpGet {
  headers?: Record<string, string>;
  /** Aborts the call, body included (time-out, shutdown). */
  signal: AbortSignal;
  /** Largest body read, bytes; past it the call fails with OutboundError('too_large'). */
  maxBytes?: number;
  /** Same-origin redirects followed (default 0); another origin fails with OutboundError. */
  maxRedirects?: number;
  /** Counts the call in waybill_carrier_calls_total under this carrier name. */
  carrier?: string;
}

/** Any request (an API's token POST, a GraphQL query), under the same rules as HttpGet. */
export interface HttpRequest extends HttpGet {
  /** Default GET; redirects are followed for GET only. */
  method?: 'GET' | 'POST';
  body?: string;
}

export interface HttpAnswer {
  status: number;
  /** A header, null when absent. */
  header(name: string): string | null;
  body: Buffer;
}

/** Calls to the outside under waybill's outbound rules (capped answers, same-origin redirects only). */
export interface HttpPort {
  get(url: string, request: HttpGet): Promise<HttpAnswer>;
  request(url: string, request: HttpRequest): Promise<HttpAnswer>;
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
  catalog: CatalogPort;
  tracking: TrackingPort;
  http: HttpPort;
  report: RunReport;
  delta: DeltaStore;
  processed: ProcessedStore;
  /** The run record's id (0 for pushed requests). */
  runId: number;
  /**
   * `waybill connectors run <name> --full`: read everything again, ignoring the incremental
   * cursor in the state (a resync). False for scheduled runs and pushed requests.
   */
  full: boolean;
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
  /**
   * TypeBox schema of `options` (use additionalProperties: false so a typo is named at start-up).
   * A string option marked `'x-folder': true` is a folder: relative to the connectors file (and then created when missing).
   */
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
   * What the connector would make of one input file, writing nothing (`waybill connectors
   * preview`): its first `limit` products as they would be sent, and the file's summary.
   */
  preview?(options: Static<S>, file: string, limit: number): Promise<{ products: unknown[]; summary: unknown }>;
  /** Push receivers, by name; "webhook" is mounted at POST /connectors/{name}/webhook. */
  receivers?: Record<string, (request: ReceiverRequest, ctx: ReceiverContext<Static<S>>) => Promise<ReceiverResponse>>;
}

/** Keeps the options type of a definition while typing it (no runtime effect). */
export const defineConnector = <S extends TSchema>(definition: ConnectorDefinition<S>): ConnectorDefinition<S> => definition;

// Options differ by type; the host's list holds them all (each run gets its own, validated).
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
