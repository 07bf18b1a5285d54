// tracking-easypost: polls EasyPost's trackers for the shipments of its carriers, and takes
// EasyPost's tracker.updated events at POST /webhooks/carriers/{name}/ (X-Hmac-Signature; a
// wrong signature is a 401; a repeated event id is applied once).
import { Type } from 'typebox';
import {
  defineConnector,
  userError,
  AppError,
  notFound,
  pollShipments,
  CarrierError,
  ENV_NAME,
  pollingOptions,
  applyPushed,
} from '../sdk/index.ts';
import { carrierOf, easypostRequest, verifyEasypost } from './client.ts';
import { mapEasypostTracker, trackerOfList, type EasypostTracker } from './map.ts';

export const TrackingEasypostOptions = Type.Object(
  {
    ...pollingOptions,
    /** Env var holding the EasyPost API key (HTTP Basic user); needed to poll, not for webhooks. */
    api_key_env: Type.Optional(Type.String({ pattern: ENV_NAME })),
    /** Env var holding the webhook's webhook_secret; needed to accept webhooks. */
    webhook_secret_env: Type.Optional(Type.String({ pattern: ENV_NAME })),
    /** A shop's carrier name -> EasyPost's carrier ("UPS Ground": "UPS"); a name not listed is not sent. */
    carrier_names: Type.Record(Type.String(), Type.String({ minLength: 1 }), { default: {} }),
  },
  { additionalProperties: false },
);

interface EventBody {
  id?: unknown;
  description?: unknown;
  result?: EasypostTracker | null;
}

export const trackingEasypost = defineConnector({
  type: 'tracking-easypost',
  description:
    'Polls EasyPost trackers for the shipments of its carriers and accepts its signed tracker.updated events at POST /webhooks/carriers/{name}/.',
  options: TrackingEasypostOptions,
  async run(ctx) {
    const o = ctx.options;
    if (o.api_key_env === undefined)
      throw userError(`Connector ${ctx.name} has no api_key_env: it cannot poll EasyPost (webhooks need only webhook_secret_env).`);
    const apiKey = ctx.secret(o.api_key_env);
    await pollShipments(ctx, {
      async track(shipment, get) {
        const req = easypostRequest(o.base_url, apiKey, shipment.trackingCode, carrierOf(shipment.carrier, o.carrier_names));
        const tracker = trackerOfList((await get(req.url, req.headers)).body);
        if (tracker === null) throw new CarrierError('EasyPost has no tracker of this tracking code (create one in EasyPost)', 200);
        return mapEasypostTracker(tracker);
      },
    });
  },
  receivers: {
    async 'carrier-webhook'(request, ctx) {
      const o = ctx.options;
      if (o.webhook_secret_env === undefined) throw notFound(`Webhooks of connector ${ctx.name}`);
      if (!verifyEasypost(ctx.secret(o.webhook_secret_env), request.rawBody, request.headers['x-hmac-signature'])) {
        ctx.log.warn('EasyPost webhook refused: bad X-Hmac-Signature');
        throw new AppError('invalid_signature', 401, 'The X-Hmac-Signature does not match the body.');
      }
      let body: EventBody;
      try {
        body = JSON.parse(request.rawBody.toString('utf8')) as EventBody;
      } catch {
        throw new AppError('invalid_json', 400, 'The body is not valid JSON.');
      }
      if (typeof body !== 'object' || body === null || typeof body.id !== 'string')
        throw new AppError('invalid_webhook', 400, 'An EasyPost event needs an id.');
      const eventId = body.id;
      // Other events (batch.updated, shipment.invoice...) say nothing about a parcel.
      if (body.description !== 'tracker.updated')
        return ctx.once(`easypost:${eventId}`, async () => ({ status: 200, body: { received: true, shipments: 0 } }));
      const tracker = body.result;
      if (typeof tracker !== 'object' || tracker === null || typeof tracker.tracking_code !== 'string') {
        throw new AppError('invalid_webhook', 400, 'An EasyPost tracker.updated event needs result.tracking_code.');
      }
      const trackingCode = tracker.tracking_code;
      return ctx.once(`easypost:${eventId}`, async () => {
        const result = mapEasypostTracker(tracker);
        const applied = await applyPushed(ctx, { trackingCode, result });
        ctx.log.info({ eventId, trackingCode, shipments: applied.shipments, status: result.status }, 'EasyPost webhook applied');
        return { status: 200, body: { received: true, shipments: applied.shipments, status: result.status, actions: applied.actions } };
      });
    },
  },
});
