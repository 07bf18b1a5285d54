// What hangs off one order besides its actions: the records the shop's systems keep against it
// (module integrations) and its shipping label, with the signed link that opens the label
// without the API key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../errors.ts';
import { baseUrl } from '../system/base-url.ts';
import { preferredType } from '../http/plugins/accept.ts';
import { sourceOf } from '../http/plugins/auth.ts';
import { problemResponse } from '../http/plugins/problem-responses.ts';
import { allowOnly } from '../http/plugins/methods.ts';
import type { ModuleIntegrationService } from './module-integrations.service.ts';
import type { LabelService } from './label.service.ts';
import { LABEL_FORMATS, type LabelFormat } from './label.service.ts';
import { ModuleIntegration, ModuleIntegrationInput } from './orders.schemas.ts';

export interface OrderRecordRoutesOptions {
  services: { moduleIntegrations: ModuleIntegrationService; labels: LabelService };
  publicUrl: string | undefined;
}

const OrderParams = Type.Object({
  shop: Type.Integer({ minimum: 1 }),
  mp: Type.Integer({ minimum: 1 }),
  order: Type.Integer({ minimum: 1 }),
});
const RecordParams = Type.Object({ ...OrderParams.properties, id: Type.Integer({ minimum: 1 }) });
const NoContent = Type.Null({ description: 'No Content' });

const ORDER_URL = '/shops/:shop/marketplace/:mp/orders/:order/';
const MODULES_URL = `${ORDER_URL}module-integrations/`;
const MODULE_URL = `${MODULES_URL}:id/`;
const LABEL_URL = `${ORDER_URL}label/`;
const MODULES_ALLOW = 'GET, POST, PUT, OPTIONS';
const MODULE_ALLOW = 'DELETE, OPTIONS';
const LABEL_ALLOW = 'GET, POST, OPTIONS';

const refOf = (p: { shop: number; mp: number; order: number }) => ({ shopPk: p.shop, marketplacePk: p.mp, orderPk: p.order });

const MEDIA_TYPES = Object.values(LABEL_FORMATS);
const formatOf = (mediaType: string): LabelFormat =>
  (Object.keys(LABEL_FORMATS) as LabelFormat[]).find((f) => LABEL_FORMATS[f] === mediaType)!;
const labelContent = {
  description: 'The label: a 4 x 6 in PDF page, or ZPL for a label printer',
  content: Object.fromEntries(MEDIA_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
};

export const orderRecordRoutes: FastifyPluginAsyncTypebox<OrderRecordRoutesOptions> = async (app, { services, publicUrl }) => {
  const orderBase = (request: FastifyRequest, p: { shop: number; mp: number; order: number }): string =>
    `${baseUrl(request, publicUrl)}/shops/${p.shop}/marketplace/${p.mp}/orders/${p.order}/`;

  app.get(
    MODULES_URL,
    {
      config: { auth: 'shop', allow: MODULES_ALLOW },
      schema: {
        tags: ['orders'],
        summary: "What the shop's systems recorded against the order, oldest first",
        params: OrderParams,
        response: { 200: Type.Array(ModuleIntegration) },
      },
    },
    async (request) => services.moduleIntegrations.list(refOf(request.params)),
  );

  app.post(
    MODULES_URL,
    {
      config: { auth: 'shop', allow: MODULES_ALLOW, idempotent: true },
      schema: {
        tags: ['orders'],
        summary: 'Record what a shop system did with the order (adds one record; shown in the history)',
        params: OrderParams,
        body: ModuleIntegrationInput,
        response: { 201: ModuleIntegration },
      },
    },
    async (request, reply) => {
      const record = await services.moduleIntegrations.create(refOf(request.params), request.body, sourceOf(request));
      reply.header('location', `${orderBase(request, request.params)}module-integrations/${record.id}/`);
      return reply.code(201).send(record);
    },
  );

  app.put(
    MODULES_URL,
    {
      config: { auth: 'shop', allow: MODULES_ALLOW, idempotent: true },
      schema: {
        tags: ['orders'],
        summary: 'Replace the latest record of (module_name, type), or add one',
        params: OrderParams,
        body: ModuleIntegrationInput,
        response: { 200: ModuleIntegration, 201: ModuleIntegration },
      },
    },
    async (request, reply) => {
      const { created, record } = await services.moduleIntegrations.put(refOf(request.params), request.body, sourceOf(request));
      reply.header('location', `${orderBase(request, request.params)}module-integrations/${record.id}/`);
      return reply.code(created ? 201 : 200).send(record);
    },
  );
  allowOnly(app, MODULES_URL, MODULES_ALLOW);

  app.delete(
    MODULE_URL,
    {
      config: { auth: 'shop', allow: MODULE_ALLOW, idempotent: true, bodyOptional: true },
      schema: {
        tags: ['orders'],
        summary: 'Remove one record (the history keeps that it was there)',
        params: RecordParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await services.moduleIntegrations.delete(refOf(request.params), request.params.id, sourceOf(request));
      return reply.code(204).send(null);
    },
  );
  allowOnly(app, MODULE_URL, MODULE_ALLOW);

  app.post(
    LABEL_URL,
    {
      config: { auth: 'shop', allow: LABEL_ALLOW, bodyOptional: true, produces: MEDIA_TYPES },
      schema: {
        tags: ['orders'],
        summary: "The shipping label of the order's latest shipment (Accept: application/pdf or application/zpl)",
        description:
          '201 with the label as the body and `Location`: a link that opens the same label without the API key ' +
          'for 15 minutes (signed; for a browser or a printer driver). The same shipment always gives the same document. ' +
          '409 (`label_unavailable`, `missing`) when the order has no shipment, its shipment no carrier or tracking code, or no shipping address.',
        params: OrderParams,
        response: {
          201: labelContent,
          409: problemResponse(
            'No label can be made: `missing` names what the order lacks (shipment, carrier, tracking_code, shipping_address)',
          ),
        },
      },
    },
    async (request, reply) => {
      const type = preferredType(request.headers.accept, MEDIA_TYPES);
      if (type === undefined)
        throw new AppError('not_acceptable', 406, `A label is ${MEDIA_TYPES.join(' or ')}; send one of them in Accept.`);
      const ref = { ...refOf(request.params), format: formatOf(type) };
      const label = await services.labels.render(ref);
      reply.header('location', `${orderBase(request, request.params)}label/?${services.labels.signedQuery(ref)}`);
      return sendLabel(reply.code(201), ref.orderPk, ref.format, label);
    },
  );

  // The link's parts as sent, before validation turns them into numbers (`015` into 15).
  const sentParts = new WeakMap<FastifyRequest, { ids: string[]; expires: string }>();
  app.get(
    LABEL_URL,
    {
      config: { allow: LABEL_ALLOW, produces: MEDIA_TYPES },
      preValidation: async (request) => {
        const p = request.params as Record<string, unknown>;
        const q = request.query as Record<string, unknown>;
        sentParts.set(request, { ids: [p.shop, p.mp, p.order].map((v) => String(v)), expires: String(q.expires) });
      },
      schema: {
        tags: ['orders'],
        summary: 'Open a label by the signed link POST .../label/ answered (no API key)',
        description: '403 `invalid_signature` for a link altered or not signed here, `link_expired` past its expiry.',
        security: [],
        params: OrderParams,
        querystring: Type.Object({
          format: Type.Enum(Object.keys(LABEL_FORMATS)),
          expires: Type.Integer({ minimum: 0, description: 'unix seconds' }),
          signature: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        response: { 200: labelContent, 403: problemResponse('The link is altered, not signed here, or expired') },
      },
    },
    async (request, reply) => {
      const ref = { ...refOf(request.params), format: request.query.format as LabelFormat };
      services.labels.verify(ref, sentParts.get(request)!, request.query.signature);
      return sendLabel(reply, ref.orderPk, ref.format, await services.labels.render(ref));
    },
  );
  allowOnly(app, LABEL_URL, LABEL_ALLOW);
};

function sendLabel(reply: FastifyReply, orderPk: number, format: LabelFormat, label: { body: Buffer | string; contentType: string }) {
  return (
    reply
      .header('content-type', format === 'zpl' ? `${label.contentType}; charset=utf-8` : label.contentType)
      .header('content-disposition', `inline; filename="label-${orderPk}.${format}"`)
      // It holds the recipient's address: kept by no cache.
      .header('cache-control', 'no-store')
      .send(label.body)
  );
}
