// Orders API: intake, read, list, and the eight actions of the documented interface
// (POST .../orders/{order}/{action}/ -> 204, Allow: POST, OPTIONS on every reply).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { baseUrl } from '../system/base-url.ts';
import { sourceOf } from '../http/plugins/auth.ts';
import { allowOnly } from '../http/plugins/methods.ts';
import { bodyCheckedByService } from '../http/validation.ts';
import { sendPage } from '../http/list-reply.ts';
import type { OrderService } from './orders.service.ts';
import type { ModuleIntegrationService } from './module-integrations.service.ts';
import type { LabelService } from './label.service.ts';
import { ORDER_ACTIONS, STATE_TABLE, type OrderAction } from './order-state.ts';
import { orderRecordRoutes } from './order-records.routes.ts';
import {
  ActionBody,
  CancelBody,
  Order,
  OrderIntake,
  OrderList,
  OrderListQuery,
  ShipBody,
  type CancelBody as CancelBodyT,
  type ShipBody as ShipBodyT,
} from './orders.schemas.ts';

export interface OrderRoutesOptions {
  services: { orders: OrderService; moduleIntegrations: ModuleIntegrationService; labels: LabelService };
  publicUrl: string | undefined;
}

const ShopParams = Type.Object({ shop: Type.Integer({ minimum: 1 }) });
const ShopMarketplace = Type.Object({ shop: Type.Integer({ minimum: 1 }), mp: Type.Integer({ minimum: 1 }) });
const OrderParams = Type.Object({ ...ShopMarketplace.properties, order: Type.Integer({ minimum: 1 }) });
const NoContent = Type.Null({ description: 'No Content' });

const LIST_URL = '/shops/:shop/marketplace/:mp/orders/';
const ORDER_URL = '/shops/:shop/marketplace/:mp/orders/:order/';
const LIST_ALLOW = 'GET, POST, OPTIONS';
const SHOP_ORDERS_URL = '/shops/:shop/orders/';
const SHOP_ORDERS_ALLOW = 'GET, OPTIONS';
const ORDER_ALLOW = 'GET, OPTIONS';
const ACTION_ALLOW = 'POST, OPTIONS';

const summaries: Record<string, string> = {
  ship: 'Order shipped; updates its shipping data',
  cancel: 'Cancels the items',
  delivered: 'Order delivered',
  not_delivered: 'Order not delivered',
  packed_by_marketplace: "Shipped with the marketplace's own carrier",
  pending: 'Order pending',
  ready_to_ship: 'Order ready to ship',
  returned: 'Order returned',
};

/** Path segment -> action: each action under its own name, and `no_delivered` (what existing clients call) as not_delivered. */
const ACTION_PATHS: [string, OrderAction][] = [
  ...ORDER_ACTIONS.map((a): [string, OrderAction] => [a, a]),
  ['no_delivered', 'not_delivered'],
];
const bodyOf = (action: OrderAction) => (action === 'ship' ? ShipBody : action === 'cancel' ? CancelBody : ActionBody);

export const orderRoutes: FastifyPluginAsyncTypebox<OrderRoutesOptions> = async (app, { services, publicUrl }) => {
  const orderUrl = (request: FastifyRequest, shop: number, mp: number, order: number): string =>
    `${baseUrl(request, publicUrl)}/shops/${shop}/marketplace/${mp}/orders/${order}/`;

  app.post(
    LIST_URL,
    {
      config: { auth: 'shop', allow: LIST_ALLOW, idempotent: true },
      // The body is checked once, by the order service (order-intake.ts), as connectors' orders are.
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags: ['orders'],
        summary: 'Take in a marketplace order (the same order_pk again: 200, nothing changes)',
        params: ShopMarketplace,
        body: OrderIntake,
        response: { 200: Order, 201: Order },
      },
    },
    async (request, reply) => {
      const { shop, mp } = request.params;
      const { created, order } = await services.orders.intake(shop, mp, request.body, sourceOf(request), baseUrl(request, publicUrl));
      reply.header('location', orderUrl(request, shop, mp, order.order_pk));
      return reply.code(created ? 201 : 200).send(order);
    },
  );

  const list = async (request: FastifyRequest, reply: FastifyReply, shop: number, mp: number | undefined) => {
    const { status, page, page_size: pageSize } = request.query as Static<typeof OrderListQuery>;
    const { count, results } = await services.orders.list(shop, mp, { status, page, pageSize });
    return sendPage(reply, request, baseUrl(request, publicUrl), { page, pageSize, total: count }, results);
  };

  app.get(
    LIST_URL,
    {
      config: { auth: 'shop', allow: LIST_ALLOW },
      schema: {
        tags: ['orders'],
        summary: 'List the orders of a marketplace',
        params: ShopMarketplace,
        querystring: OrderListQuery,
        response: { 200: OrderList },
      },
    },
    async (request, reply) => list(request, reply, request.params.shop, request.params.mp),
  );
  allowOnly(app, LIST_URL, LIST_ALLOW);

  app.get(
    SHOP_ORDERS_URL,
    {
      config: { auth: 'shop', allow: SHOP_ORDERS_ALLOW },
      schema: {
        tags: ['orders'],
        summary: 'List the orders of the shop, of every marketplace',
        params: ShopParams,
        querystring: OrderListQuery,
        response: { 200: OrderList },
      },
    },
    async (request, reply) => list(request, reply, request.params.shop, undefined),
  );
  allowOnly(app, SHOP_ORDERS_URL, SHOP_ORDERS_ALLOW);

  app.get(
    ORDER_URL,
    {
      config: { auth: 'shop', allow: ORDER_ALLOW },
      schema: {
        tags: ['orders'],
        summary: 'One order: items (status, shipment), shipments, history',
        params: OrderParams,
        response: { 200: Order },
      },
    },
    async (request) => services.orders.get(request.params.shop, request.params.mp, request.params.order),
  );
  allowOnly(app, ORDER_URL, ORDER_ALLOW);

  for (const [segment, action] of ACTION_PATHS) {
    const url = `${ORDER_URL}${segment}/`;
    const move = STATE_TABLE[action];
    app.post(
      url,
      {
        config: { auth: 'shop', allow: ACTION_ALLOW, idempotent: true, bodyOptional: true },
        // Every field is optional, so a POST with no body at all means "all items".
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: {
          tags: ['orders'],
          summary: segment === action ? summaries[action] : `${summaries[action]} (the same action as ${action})`,
          description:
            `Moves the items to \`${move.to}\` from ${move.from.map((s) => `\`${s}\``).join(', ')}. ` +
            '`items` omitted: every item not cancelled' +
            (action === 'cancel' ? ' (cancel: every item)' : '') +
            '. ' +
            'One action is atomic: 409 names each item that cannot move, and nothing changes. A repeat is a 204 no-op.' +
            (action === 'cancel'
              ? ' `message`, `reason`, `rating`, `fulfilled`, `restock_item`: the feedback the marketplace takes, recorded in the history rows of the items cancelled.'
              : ''),
          params: OrderParams,
          body: bodyOf(action),
          response: { 204: NoContent },
        },
      },
      async (request, reply) => {
        const body = request.body as ShipBodyT & CancelBodyT;
        const { carrier, tracking_code, delivery_time, comments, message, reason, rating, fulfilled, restock_item } = body;
        await services.orders.applyAction({
          shopPk: request.params.shop,
          marketplacePk: request.params.mp,
          orderPk: request.params.order,
          action,
          ...(body.items === undefined ? {} : { items: body.items.map((i) => i.item_pk) }),
          ...(action === 'ship' ? { shipping: { carrier, tracking_code, delivery_time, comments } } : {}),
          ...(action === 'cancel' ? { feedback: { message, reason, rating, fulfilled, restock_item } } : {}),
          source: sourceOf(request),
        });
        return reply.code(204).send(null);
      },
    );
    allowOnly(app, url, ACTION_ALLOW);
  }

  await app.register(orderRecordRoutes, { services, publicUrl });
};
