// Events out to shops' webhook URLs: enqueued with the write that caused them, delivered by
// the webhook.deliver job, signed twice (Standard Webhooks, and the X-Madkting-Signature the
// existing clients check), retried with backoff, and every attempt recorded for the dashboard.
import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { DestinationPolicy } from '../outbound/destination-policy.ts';
import { outboundRequest, OutboundError, type DestinationGuard } from '../outbound/outbound-http.ts';
import { WAYBILL_VERSION } from '../system/version.ts';
import type { ShopService, WebhookTarget } from '../shops/shops.service.ts';
import { madktingSignature, signedHeaders } from './signature.ts';
import { ANSWER_READ_BYTES, EXCERPT_CHARS, eventNameOf, outcomeOf, type AttemptOutcome, type WebhookType } from './webhook-events.ts';
import * as repo from './webhooks.repository.ts';
import type { DeliveryQuery, WebhookDelivery } from './webhooks.schemas.ts';

export type { WebhookType } from './webhook-events.ts';

export interface DeliveryResult {
  /** The receiver's status; 0 when the shop has no webhook URL (any more). */
  status: number;
  /** The attempt could not be recorded (the delivery itself went through). */
  recordError?: Error;
}

export interface WebhookServiceDeps {
  db: Db;
  jobs: JobSender;
  shops: ShopService;
  /** Where deliveries may connect (default: no internal address allowed). */
  guard?: DestinationGuard;
  /** How long one attempt may take (connect, send, the answer), ms; default 15 s. */
  timeoutMs?: number;
}

/** Delivery records are kept this long, days (pruned daily with old feeds). */
export const DELIVERY_RETENTION_DAYS = 30;

const stateOf = (outcome: string): WebhookDelivery['state'] =>
  outcome === 'delivered' ? 'delivered' : outcome === 'refused' ? 'refused' : 'failing';

export class WebhookService {
  readonly #d: Required<WebhookServiceDeps>;

  constructor(deps: WebhookServiceDeps) {
    this.#d = { guard: new DestinationPolicy(), timeoutMs: 15_000, ...deps };
  }

  /**
   * Enqueues an event inside the caller's transaction (so it goes out only if the write
   * commits). `hasWebhook`: whether the shop has a webhook URL, when the caller read it already.
   */
  async emit(db: Executor, shopPk: number, type: WebhookType, payload: Record<string, unknown>, hasWebhook?: boolean): Promise<void> {
    if (!(hasWebhook ?? (await this.#d.shops.hasWebhook(shopPk, db)))) return;
    await this.#d.jobs.send(db, 'webhook.deliver', { shopPk, messageId: `msg_${randomUUID()}`, event: type, payload });
  }

  /**
   * Sends one event now and records the attempt. A 2xx answer that is not an error body:
   * delivered. 410 Gone, or a destination that is internal: refused (permanent, not retried).
   * Anything else (another status, a 2xx error body, a time-out, a network error): transient,
   * retried with backoff.
   */
  async deliver(
    shopPk: number,
    messageId: string,
    type: string,
    payload: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<DeliveryResult> {
    const target = await this.#d.shops.webhookTarget(shopPk);
    if (target === null) return { status: 0 };
    const event = eventNameOf(type);
    const body = JSON.stringify({ event, type, ...payload });
    const location = typeof payload.location === 'string' ? payload.location : null;
    const record = {
      message_id: messageId,
      shop_pk: shopPk,
      event,
      type,
      resource_pk: payload.pk === undefined ? null : String(payload.pk),
      location,
      url: target.url,
    };
    const started = new Date();
    const attempt = await this.#attempt(target, messageId, event, body, location, signal);
    const recordError = await repo
      .insertAttempt(this.#d.db, {
        ...record,
        started_at: started,
        duration_ms: Date.now() - started.getTime(),
        ...attempt,
      })
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    const where = `webhook ${target.url}`;
    if (attempt.outcome === 'delivered') return { status: attempt.status!, ...(recordError === undefined ? {} : { recordError }) };
    if (attempt.outcome === 'refused')
      throw new AppError('webhook_refused', 400, `${where} ${attempt.error ?? `answered ${attempt.status}`}; not retried`);
    throw new AppError('webhook_failed', 503, `${where} ${attempt.error ?? `answered ${attempt.status}`}`);
  }

  /** One POST; what the record says about it. */
  async #attempt(
    target: WebhookTarget,
    messageId: string,
    event: string,
    body: string,
    location: string | null,
    signal: AbortSignal,
  ): Promise<{
    status: number | null;
    outcome: AttemptOutcome;
    response_excerpt: string | null;
    error: string | null;
  }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `mad-hookshot/${WAYBILL_VERSION}`,
      'x-madkting-event': event,
      'x-madkting-delivery': messageId,
      'x-madkting-signature': madktingSignature(target.secret, body),
      ...(location === null ? {} : { location }),
      ...signedHeaders(target.previous === null ? target.secret : [target.secret, target.previous], messageId, body),
    };
    const timeout = AbortSignal.timeout(this.#d.timeoutMs);
    try {
      // Redirects are not followed (a 3xx fails like any other status); the answer is read up
      // to ANSWER_READ_BYTES, the rest left unread.
      const res = await outboundRequest(target.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.any([signal, timeout]),
        maxBytes: ANSWER_READ_BYTES,
        overflow: 'truncate',
        guard: this.#d.guard,
      });
      const text = res.body.toString('utf8');
      const outcome = outcomeOf(res.status, text);
      const error =
        outcome === 'delivered' ? null : res.status >= 200 && res.status < 300 ? `answered ${res.status} with an error body` : null;
      return { status: res.status, outcome, response_excerpt: text === '' ? null : text.slice(0, EXCERPT_CHARS), error };
    } catch (error) {
      // An internal destination stays internal: refused for good (the job ends in the dead-letter queue).
      if (error instanceof OutboundError)
        return { status: null, outcome: 'refused', response_excerpt: null, error: `refused: ${error.message}` };
      const why = timeout.aborted
        ? `gave no answer within ${this.#d.timeoutMs} ms`
        : signal.aborted
          ? 'was interrupted (shutdown)'
          : `unreachable: ${(error as Error).message}`;
      return { status: null, outcome: 'failed', response_excerpt: null, error: why };
    }
  }

  /** Deliveries, the latest attempted first, each with all its attempts. */
  async listDeliveries(query: DeliveryQuery = {}): Promise<WebhookDelivery[]> {
    const outcome = query.state === undefined ? undefined : query.state === 'failing' ? 'failed' : query.state;
    const ids = await repo.listMessageIds(this.#d.db, {
      shopPk: query.shop,
      event: query.event,
      pk: query.pk,
      messageId: query.delivery,
      outcome,
      limit: query.limit ?? 50,
      offset: query.offset ?? 0,
    });
    const byMessage = new Map<string, repo.AttemptRow[]>(ids.map((id) => [id, []]));
    for (const row of await repo.attemptsOf(this.#d.db, ids)) byMessage.get(row.message_id)!.push(row);
    return ids.map((id) => toDelivery(byMessage.get(id)!));
  }

  async getDelivery(messageId: string): Promise<WebhookDelivery> {
    const rows = await repo.attemptsOf(this.#d.db, [messageId]);
    if (rows.length === 0) throw notFound(`Webhook delivery ${messageId}`);
    return toDelivery(rows);
  }

  /** Deliveries attempted since `since` whose last attempt failed (retried, or given up) or was refused. */
  async undelivered(since: Date): Promise<{ failing: number; refused: number }> {
    const rows = await repo.undeliveredCounts(this.#d.db, since);
    const n = (outcome: string): number => Number(rows.find((r) => r.outcome === outcome)?.n ?? 0);
    return { failing: n('failed'), refused: n('refused') };
  }

  /** Drops attempt records older than `days`; how many. */
  async prune(days = DELIVERY_RETENTION_DAYS): Promise<number> {
    let total = 0;
    for (let n = -1; n !== 0;) {
      n = await repo.pruneAttempts(this.#d.db, days, 5_000);
      total += n;
    }
    return total;
  }
}

function toDelivery(rows: repo.AttemptRow[]): WebhookDelivery {
  const first = rows[0]!;
  const last = rows.at(-1)!;
  return {
    delivery_id: first.message_id,
    shop_pk: first.shop_pk,
    event: first.event,
    type: first.type,
    pk: first.resource_pk,
    location: first.location,
    state: stateOf(last.outcome),
    first_attempt_at: first.started_at.toISOString(),
    last_attempt_at: last.started_at.toISOString(),
    attempts: rows.map((r) => ({
      attempt: r.attempt,
      at: r.started_at.toISOString(),
      url: r.url,
      status: r.status,
      outcome: r.outcome as AttemptOutcome,
      duration_ms: r.duration_ms,
      response_excerpt: r.response_excerpt,
      error: r.error,
    })),
  };
}
