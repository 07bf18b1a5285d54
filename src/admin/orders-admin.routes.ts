// Admin API and pages of orders: every shop's orders with filters and paging, one order with
// its items, history and tracking, and search by order_pk, reference or tracking code.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Order, OrderStatusSchema } from '../orders/orders.schemas.ts';
import type { OrderService } from '../orders/orders.service.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { apiConfig, pageConfig, security, sendHtml, shopNames, tags } from './admin-http.ts';
import { html } from './views/html.ts';
import { page, type Nav } from './views/layout.ts';
import { orderBody, ordersBody, ordersFragment, orderUrl, ORDERS_PAGE_SIZE, type Lookups, type OrderFilters } from './views/orders.view.ts';

const Search = Type.Object({
  order_pk: Type.Optional(Type.Integer({ minimum: 1 })),
  reference: Type.Optional(Type.String({ maxLength: 200 })),
  tracking_code: Type.Optional(Type.String({ maxLength: 100 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })),
});
// The list's filter form sends every field, empty ones as "".
const Empty = Type.Literal('');
const Day = Type.String({ pattern: '^$|^\\d{4}-\\d{2}-\\d{2}$' });
const PageQuery = Type.Object({
  shop: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Empty])),
  marketplace: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Empty])),
  status: Type.Optional(Type.Union([OrderStatusSchema, Empty])),
  from: Type.Optional(Day),
  to: Type.Optional(Day),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  fragment: Type.Optional(Type.Literal('1')),
});
const OrderParams = Type.Object({
  shop: Type.Integer({ minimum: 1 }),
  marketplace: Type.Integer({ minimum: 1 }),
  order: Type.Integer({ minimum: 1 }),
});

const criteria = (q: { order_pk?: number; reference?: string; tracking_code?: string }) => ({
  orderPk: q.order_pk,
  reference: q.reference?.trim() || undefined,
  trackingCode: q.tracking_code?.trim() || undefined,
});

export const ordersAdmin: FastifyPluginAsyncTypebox<{
  services: { orders: OrderService; shops: ShopService; marketplaces: MarketplaceService };
  nav: Nav;
}> = async (app, { services, nav }) => {
  const lookups = async (): Promise<Lookups> => {
    const [shops, marketplaces] = await Promise.all([shopNames(services), services.marketplaces.list()]);
    return { shops, marketplaces: new Map(marketplaces.map((m) => [m.pk, m.name])) };
  };

  app.get(
    '/admin/api/orders',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Orders of any shop by order_pk, reference or tracking code (at least one), with items and history',
        querystring: Search,
        response: { 200: Type.Array(Order) },
      },
    },
    async (request) => {
      const c = criteria(request.query);
      if (c.orderPk === undefined && c.reference === undefined && c.trackingCode === undefined) return [];
      return services.orders.search({ ...c, limit: request.query.limit ?? 20 });
    },
  );

  app.get('/admin/orders', { config: pageConfig, schema: { hide: true, querystring: PageQuery } }, async (request, reply) => {
    const q = request.query;
    const f: OrderFilters = {
      shop: q.shop === '' ? undefined : q.shop,
      marketplace: q.marketplace === '' ? undefined : q.marketplace,
      status: q.status || undefined,
      from: q.from || undefined,
      to: q.to || undefined,
      page: q.page ?? 1,
    };
    const day = (d: string | undefined, plus = 0): Date | undefined =>
      d === undefined ? undefined : new Date(Date.parse(`${d}T00:00:00Z`) + plus * 86_400_000);
    const [list, l] = await Promise.all([
      services.orders.listAll(
        { shopPk: f.shop, marketplacePk: f.marketplace, status: f.status, since: day(f.from), until: day(f.to, 1) },
        f.page,
        ORDERS_PAGE_SIZE,
      ),
      lookups(),
    ]);
    return sendHtml(reply, q.fragment === '1' ? ordersFragment(list, f, l) : page('Orders', 'orders', nav, ordersBody(list, f, l)));
  });

  // One box for an order pk, a reference or a tracking code: one match opens it, several are listed.
  app.get(
    '/admin/orders/search',
    { config: pageConfig, schema: { hide: true, querystring: Type.Object({ order: Type.String({ minLength: 1, maxLength: 200 }) }) } },
    async (request, reply) => {
      const text = request.query.order.trim();
      const asPk = /^\d{1,16}$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) > 0 ? Number(text) : undefined;
      const found = (
        await Promise.all([
          asPk === undefined ? [] : services.orders.search({ orderPk: asPk, limit: 20 }),
          services.orders.search({ reference: text, limit: 20 }),
          services.orders.search({ trackingCode: text, limit: 20 }),
        ])
      ).flat();
      const orders = [...new Map(found.map((o) => [orderUrl(o), o])).values()];
      if (orders.length === 1) return reply.redirect(orderUrl(orders[0]!), 303);
      const l = await lookups();
      return sendHtml(
        reply,
        page(
          'Orders',
          'orders',
          nav,
          html`<h1>Orders matching <code>${text}</code></h1>${ordersFragment({ count: orders.length, results: orders }, { page: 1 }, l)}`,
        ),
      );
    },
  );

  app.get(
    '/admin/orders/:shop/:marketplace/:order',
    { config: pageConfig, schema: { hide: true, params: OrderParams } },
    async (request, reply) => {
      const p = request.params;
      const [order, l] = await Promise.all([services.orders.get(p.shop, p.marketplace, p.order), lookups()]);
      return sendHtml(reply, page(`Order ${order.order_pk}`, 'orders', nav, orderBody(order, l)));
    },
  );
};
