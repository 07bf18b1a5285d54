// Events out to shops' webhook URLs: enqueued with the write that caused them, delivered by
// the webhook.deliver job (signed per Standard Webhooks, retried with backoff).
import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { signedHeaders } from './signature.ts';

export type WebhookEvent = 'feed.completed' | 'order.status_changed';

export interface DeliveryResult {
  status: number;
}

/** One HTTP POST; throws an AppError that says whether a retry may help. */
export type Poster = (url: string, headers: Record<string, string>, body: string, signal: AbortSignal) => Promise<number>;

const defaultPoster: Poster = async (url, headers, body, signal) => {
  const res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
  await res.body?.cancel();
  return res.status;
};

export class WebhookService {
  readonly #jobs: JobSender;
  readonly #shops: ShopService;
  readonly #post: Poster;

  constructor(jobs: JobSender, shops: ShopService, post: Poster = defaultPoster) {
    this.#jobs = jobs;
    this.#shops = shops;
    this.#post = post;
  }

  /** Enqueues an event inside the caller's transaction (so it goes out only if the write commits). */
  async emit(db: Executor, shopPk: number, event: WebhookEvent, payload: Record<string, unknown>, hasWebhook: boolean): Promise<void> {
    if (!hasWebhook) return;
    await this.#jobs.send(db, 'webhook.deliver', { shopPk, messageId: `msg_${randomUUID()}`, event, payload });
  }

  /**
   * Sends one event now. 2xx: done. 408, 429, 5xx, network errors: transient (the job retries
   * with backoff). Other 4xx: permanent, the receiver refuses it.
   */
  async deliver(shopPk: number, messageId: string, event: string, payload: Record<string, unknown>, signal: AbortSignal): Promise<DeliveryResult> {
    const target = await this.#shops.webhookTarget(shopPk);
    if (target === null) return { status: 0 };
    const body = JSON.stringify({ event, ...payload });
    const headers = { 'content-type': 'application/json', 'user-agent': 'waybill-webhooks/1', ...signedHeaders(target.secret, messageId, body) };
    let status: number;
    try {
      status = await this.#post(target.url, headers, body, AbortSignal.any([signal, AbortSignal.timeout(15_000)]));
    } catch (error) {
      throw new AppError('webhook_unreachable', 503, `webhook ${target.url} unreachable: ${(error as Error).message}`, { cause: error });
    }
    if (status >= 200 && status < 300) return { status };
    if (status === 408 || status === 429 || status >= 500) throw new AppError('webhook_failed', 503, `webhook ${target.url} answered ${status}`);
    throw new AppError('webhook_refused', 400, `webhook ${target.url} answered ${status}; not retried`);
  }
}
