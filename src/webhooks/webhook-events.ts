// What a webhook delivery says and how its answer is judged: pure rules, tested alone.

/** waybill's own names, kept in the body's `type` for receivers written against them. */
export type WebhookType = 'feed.completed' | 'order.created' | 'order.status_changed';

/**
 * The names existing clients match (X-Madkting-Event and the body's `event`). They use the
 * order's created event for every update too.
 */
export const EVENT_NAMES: Record<WebhookType, string> = {
  'feed.completed': 'product_feed:feed:finish',
  'order.created': 'product_feed:order:created',
  'order.status_changed': 'product_feed:order:created',
};

/** The client-facing name of a type (a job queued before a name existed keeps its own). */
export const eventNameOf = (type: string): string => EVENT_NAMES[type as WebhookType] ?? type;

/** Characters of a receiver's answer kept in the delivery record. */
export const EXCERPT_CHARS = 1_000;
/** Bytes of a receiver's answer read at most: the excerpt and the error check need only its start. */
export const ANSWER_READ_BYTES = 4_096;

/**
 * A 2xx answer that is an error all the same: its first non-blank text is the word `error`
 * (`error`, `ERROR: database down`), or a JSON object whose first member is `"error"` with a
 * value other than null, false or "" (`{"error":"invalid signature"}`). Receivers built on
 * frameworks that always answer 200 report failures this way.
 */
export function isErrorAnswer(body: string): boolean {
  const text = body.replace(/^\uFEFF/, '').trimStart();
  if (/^error\b/i.test(text)) return true;
  return /^\{\s*"error"\s*:\s*(?!null\b|false\b|""\s*[,}])\S/i.test(text);
}

export type AttemptOutcome = 'delivered' | 'failed' | 'refused';

/**
 * What an answer means: 2xx (without an error body) is delivered; 410 Gone is the receiver
 * saying the endpoint is gone for good (refused: not retried); any other status, and a 2xx
 * error body, failed (retried with backoff).
 */
export function outcomeOf(status: number, body: string): AttemptOutcome {
  if (status >= 200 && status < 300) return isErrorAnswer(body) ? 'failed' : 'delivered';
  return status === 410 ? 'refused' : 'failed';
}
