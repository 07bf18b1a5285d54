// tracking-aftership: polls AfterShip's tracking API for the shipments of its carriers, and
// takes AfterShip's pushed updates at POST /webhooks/carriers/{name}/ (signed with the
// aftership-hmac-sha256 header; a wrong signature is a 401; a repeated event_id is applied once).
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
import { aftershipRequest, slugOf, verifyAftership } from './client.ts';
import { mapAftershipTracking, trackingOfResponse, type AftershipTracking } from './map.ts';

export const TrackingAftershipOptions = Type.Object(
  {
    ...pollingOptions,
    /** Env var holding the AfterShip API key (as-api-key); needed to poll, not for webhooks. */
    api_key_env: Type.Optional(Type.String({ pattern: ENV_NAME })),
    /** Env var holding the webhook secret (Settings > Webhooks); needed to accept webhooks. */
    webhook_secret_env: Type.Optional(Type.String({ pattern: ENV_NAME })),
    /** A shop's carrier name -> AfterShip courier slug ("DHL Paket": "dhl-germany"); default: the name lower-cased. */
    slugs: Type.Record(Type.String(), Type.String({ minLength: 1 }), { default: {} }),
  },
  { additionalProperties: false },
);

interface WebhookBody {
  event?: string;
  event_id?: string;
  msg?: AftershipTracking;
}

export const trackingAftership = defineConnector({
  type: 'tracking-aftership',
  description: 'Polls AfterShip for the shipments of its carriers and accepts its signed webhooks at POST /webhooks/carriers/{name}/.',
  options: TrackingAftershipOptions,
  async run(ctx) {
    const o = ctx.options;
    if (o.api_key_env === undefined)
      throw userError(`Connector ${ctx.name} has no api_key_env: it cannot poll AfterShip (webhooks need only webhook_secret_env).`);
    const apiKey = ctx.secret(o.api_key_env);
    await pollShipments(ctx, {
      async track(shipment, get) {
        const req = aftershipRequest(o.base_url, apiKey, slugOf(shipment.carrier, o.slugs), shipment.trackingCode);
        const tracking = trackingOfResponse((await get(req.url, req.headers)).body);
        if (tracking === null) throw new CarrierError('AfterShip answered 200 without a tracking', 200);
        return mapAftershipTracking(tracking);
      },
    });
  },
  receivers: {
    async 'carrier-webhook'(request, ctx) {
      const o = ctx.options;
      if (o.webhook_secret_env === undefined) throw notFound(`Webhooks of connector ${ctx.name}`);
      if (!verifyAftership(ctx.secret(o.webhook_secret_env), request.rawBody, request.headers['aftership-hmac-sha256'])) {
        ctx.log.warn('AfterShip webhook refused: bad aftership-hmac-sha256');
        throw new AppError('invalid_signature', 401, 'The aftership-hmac-sha256 signature does not match the body.');
      }
      let body: WebhookBody;
      try {
        body = JSON.parse(request.rawBody.toString('utf8')) as WebhookBody;
      } catch {
        throw new AppError('invalid_json', 400, 'The body is not valid JSON.');
      }
      // Signed is not well-formed: JSON null, a msg that is not an object answer 400, not a crash.
      if (typeof body !== 'object' || body === null || typeof body.event_id !== 'string') {
        throw new AppError('invalid_webhook', 400, 'An AfterShip webhook needs an event_id.');
      }
      const eventId = body.event_id;
      // Other events (edd_revise...) say nothing about where the parcel is, and need not name one.
      if (body.event !== 'tracking_update')
        return ctx.once(`aftership:${eventId}`, async () => ({ status: 200, body: { received: true, shipments: 0 } }));
      const msg = body.msg;
      if (typeof msg !== 'object' || msg === null || typeof msg.tracking_number !== 'string') {
        throw new AppError('invalid_webhook', 400, 'An AfterShip tracking_update needs msg.tracking_number.');
      }
      const trackingNumber = msg.tracking_number;
      return ctx.once(`aftership:${eventId}`, async () => {
        const result = mapAftershipTracking(msg);
        const applied = await applyPushed(ctx, {
          trackingCode: trackingNumber,
          result,
          matches: (s) => msg.slug === undefined || slugOf(s.carrier, o.slugs) === msg.slug.toLowerCase(),
        });
        ctx.log.info({ eventId, trackingNumber, shipments: applied.shipments, status: result.status }, 'AfterShip webhook applied');
        return { status: 200, body: { received: true, shipments: applied.shipments, status: result.status, actions: applied.actions } };
      });
    },
  },
});
