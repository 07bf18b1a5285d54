import { Type, type Static } from 'typebox';

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first; quick and queued retries alike' }),
  at: Type.String({ format: 'date-time' }),
  url: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status; null when it did not answer" }),
  outcome: Type.Union([Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('refused')]),
  duration_ms: Type.Integer(),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The start of the answer, at most 1,000 characters' }),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

export const WebhookDelivery = Type.Object({
  delivery_id: Type.String({ description: 'webhook-id and X-Madkting-Delivery' }),
  shop_pk: Type.Integer(),
  event: Type.String({ description: 'X-Madkting-Event, e.g. product_feed:order:created' }),
  type: Type.String({ description: "waybill's name, e.g. order.status_changed" }),
  pk: Type.Union([Type.String(), Type.Null()], { description: "The resource: a feed's pk or an order's order_pk" }),
  location: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.Literal('delivered'), Type.Literal('failing'), Type.Literal('refused')], {
    description:
      'delivered; failing (the last attempt failed: retried with backoff until the retries run out, then in webhook.deliver.dead); refused (not retried)',
  }),
  first_attempt_at: Type.String({ format: 'date-time' }),
  last_attempt_at: Type.String({ format: 'date-time' }),
  attempts: Type.Array(DeliveryAttempt),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryQuery = Type.Object({
  shop: Type.Optional(Type.Integer({ minimum: 1 })),
  event: Type.Optional(Type.String({ maxLength: 100, description: 'An event name or a type' })),
  pk: Type.Optional(Type.String({ maxLength: 100 })),
  state: Type.Optional(Type.Union([Type.Literal('delivered'), Type.Literal('failing'), Type.Literal('refused')])),
  delivery: Type.Optional(Type.String({ maxLength: 100, description: 'One delivery, by its webhook-id' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export type DeliveryQuery = Static<typeof DeliveryQuery>;
