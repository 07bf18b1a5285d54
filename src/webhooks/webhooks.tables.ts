import type { ColumnType, Generated } from 'kysely';

/** Outgoing webhooks: one row per attempt to deliver an event (migration 20261123T2200). */
export interface WebhookTables {
  webhook_deliveries: {
    id: Generated<number>;
    /** The delivery's id (webhook-id, X-Madkting-Delivery): the same for every attempt of one event. */
    message_id: string;
    shop_pk: number;
    /** The name the clients read (X-Madkting-Event), e.g. product_feed:order:created. */
    event: string;
    /** waybill's own name (the body's `type`), e.g. order.status_changed. */
    type: string;
    /** The body's `pk`: a feed's pk or an order's order_pk. */
    resource_pk: string | null;
    location: string | null;
    /** The URL posted to (the shop's webhook URL at the time). */
    url: string;
    /** 1 for the first attempt of the delivery, counted across quick and queued retries. */
    attempt: number;
    started_at: ColumnType<Date, Date, never>;
    duration_ms: number;
    /** The receiver's HTTP status; null when it did not answer (time-out, refused connection). */
    status: number | null;
    /** delivered, failed (retried with backoff) or refused (not retried: 410 Gone, an internal destination). */
    outcome: string;
    /** The start of the receiver's answer, at most 1,000 characters. */
    response_excerpt: string | null;
    error: string | null;
  };
}
