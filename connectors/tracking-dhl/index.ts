// tracking-dhl: polls DHL Shipment Tracking - Unified API for the shipments of its carriers and
// applies what DHL says (delivered, returned...) to the orders (see src/tracking).
import { Type } from 'typebox';
import { defineConnector, pollShipments, ENV_NAME, pollingOptions } from '../sdk/index.ts';
import { dhlBody, dhlRequest } from './client.ts';
import { mapDhlResponse } from './map.ts';

export const TrackingDhlOptions = Type.Object(
  {
    ...pollingOptions,
    /** Env var holding the DHL API key (sent as DHL-API-Key). */
    api_key_env: Type.String({ pattern: ENV_NAME }),
    /** DHL service filter (express, parcel-de, ecommerce, freight...); omitted: DHL picks. */
    service: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    /** Language of DHL's descriptions (ISO 639-1). */
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
  },
  { additionalProperties: false },
);

export const trackingDhl = defineConnector({
  type: 'tracking-dhl',
  description:
    'Polls DHL Shipment Tracking (Unified API) for the shipments of its carriers; delivered/returned parcels move their order items.',
  options: TrackingDhlOptions,
  async run(ctx) {
    const o = ctx.options;
    const apiKey = ctx.secret(o.api_key_env);
    await pollShipments(ctx, {
      async track(shipment, get) {
        const req = dhlRequest({
          baseUrl: o.base_url,
          apiKey,
          trackingNumber: shipment.trackingCode,
          ...(o.service === undefined ? {} : { service: o.service }),
          ...(o.language === undefined ? {} : { language: o.language }),
        });
        const body = dhlBody(await get(req.url, req.headers));
        return mapDhlResponse(body)!;
      },
    });
  },
});
