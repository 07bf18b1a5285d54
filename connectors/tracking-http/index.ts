// tracking-http: a carrier without its own adapter, described by options alone: the URL
// template, the auth header, where the status and events are in the JSON answer, and what the
// carrier's codes mean. Polling, retries and order actions are the shared engine's.
import { Type } from 'typebox';
import { defineConnector, userError, TRACKING_STATUSES, pollShipments, ENV_NAME, pollingOptions } from '../sdk/index.ts';
import { httpBody, httpRequest } from './client.ts';
import { mapHttpResponse } from './map.ts';

export const TrackingHttpOptions = Type.Object(
  {
    ...pollingOptions,
    /** GET URL with {base_url}, {tracking_code} and {carrier} placeholders. */
    url_template: Type.String({ pattern: '\\{tracking_code\\}', description: 'e.g. {base_url}/v1/parcels/{tracking_code}' }),
    /** Header carrying the key (Authorization, X-Api-Key...); omitted: no auth header. */
    auth_header: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]+$' })),
    /** Put before the key in the header, e.g. "Bearer ". */
    auth_prefix: Type.String({ default: '' }),
    /** Env var holding the key (needed with auth_header). */
    api_key_env: Type.Optional(Type.String({ pattern: ENV_NAME })),
    /** Fixed headers sent on every request (no secrets here: use auth_header + api_key_env). */
    headers: Type.Record(Type.String(), Type.String(), { default: {} }),
    /** JSON path of the parcel's current status code, e.g. "data.status.code". */
    status_path: Type.String({ minLength: 1 }),
    /** JSON path of the events array; omitted: the carrier lists no events. */
    events_path: Type.Optional(Type.String({ minLength: 1 })),
    /** Paths inside one event. */
    event_fields: Type.Object(
      {
        time: Type.String({ minLength: 1 }),
        code: Type.String({ minLength: 1 }),
        text: Type.Optional(Type.String({ minLength: 1 })),
        location: Type.Optional(Type.String({ minLength: 1 })),
      },
      { additionalProperties: false, default: { time: 'time', code: 'code', text: 'text', location: 'location' } },
    ),
    /** The carrier's codes -> normalized statuses; a code not listed is `unknown` (recorded only). */
    status_map: Type.Record(Type.String(), Type.Enum([...TRACKING_STATUSES])),
    /** Codes meaning a failure the carrier will not recover from (lost, destroyed): not_delivered. */
    final_failure_codes: Type.Array(Type.String(), { default: [] }),
  },
  { additionalProperties: false },
);

export const trackingHttp = defineConnector({
  type: 'tracking-http',
  description: 'Polls any JSON tracking API described by options (URL template, auth header, JSON paths, status map).',
  options: TrackingHttpOptions,
  async run(ctx) {
    const o = ctx.options;
    if (o.auth_header !== undefined && o.api_key_env === undefined)
      throw userError(`Connector ${ctx.name}: auth_header needs api_key_env.`);
    const apiKey = o.api_key_env === undefined ? null : ctx.secret(o.api_key_env);
    await pollShipments(ctx, {
      async track(shipment, get) {
        const req = httpRequest(o, apiKey, shipment.trackingCode, shipment.carrier);
        return mapHttpResponse(httpBody(await get(req.url, req.headers), o.status_path), o);
      },
    });
  },
});
