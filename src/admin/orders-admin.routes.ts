// Admin API and page of orders: search across shops by order_pk, reference or tracking code.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Order } from '../orders/orders.schemas.ts';
import type { Services } from '../services.ts';
import { apiConfig, pageConfig, security, sendHtml, tags } from './admin-http.ts';
import { page, type Nav } from './views/layout.ts';
import { ordersBody } from './views/orders.view.ts';

const Search = Type.Object({
  order_pk: Type.Optional(Type.Integer({ minimum: 1 })),
  reference: Type.Optional(Type.String({ maxLength: 200 })),
  tracking_code: Type.Optional(Type.String({ maxLength: 100 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })),
});
// The page's form sends every field, empty ones as "".
const PageSearch = Type.Object({
  order_pk: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('')])),
  reference: Type.Optional(Type.String({ maxLength: 200 })),
  tracking_code: Type.Optional(Type.String({ maxLength: 100 })),
});

const criteria = (q: { order_pk?: number | ''; reference?: string; tracking_code?: string }) => ({
  orderPk: q.order_pk === '' ? undefined : q.order_pk,
  reference: q.reference?.trim() || undefined,
  trackingCode: q.tracking_code?.trim() || undefined,
});

export const ordersAdmin: FastifyPluginAsyncTypebox<{ services: Services; nav: Nav }> = async (app, { services, nav }) => {
  app.get('/admin/api/orders', {
    config: apiConfig,
    schema: { tags, security, summary: 'Orders of any shop by order_pk, reference or tracking code (at least one), with items and history', querystring: Search, response: { 200: Type.Array(Order) } },
  }, async (request) => {
    const c = criteria(request.query);
    if (c.orderPk === undefined && c.reference === undefined && c.trackingCode === undefined) return [];
    return services.orders.search({ ...c, limit: request.query.limit ?? 20 });
  });

  app.get('/admin/orders', { config: pageConfig, schema: { hide: true, querystring: PageSearch } }, async (request, reply) => {
    const c = criteria(request.query);
    const any = c.orderPk !== undefined || c.reference !== undefined || c.trackingCode !== undefined;
    const orders = any ? await services.orders.search({ ...c, limit: 20 }) : null;
    return sendHtml(reply, page('Orders', 'orders', nav, ordersBody({ order_pk: c.orderPk, reference: c.reference, tracking_code: c.trackingCode }, orders)));
  });
};
