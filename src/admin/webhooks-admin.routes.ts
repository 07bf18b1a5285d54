// Admin API and dashboard page of webhook deliveries: every attempt to reach a shop's webhook
// URL, with its status, time taken and the start of the answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ShopService } from '../shops/shops.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import { DeliveryQuery, WebhookDelivery } from '../webhooks/webhooks.schemas.ts';
import { apiConfig, pageConfig, security, sendHtml, shopNames, tags } from './admin-http.ts';
import { page, type Nav } from './views/layout.ts';
import { webhooksBody, webhooksFragment, type DeliveryFilters } from './views/webhooks.view.ts';

// The page's filter form sends every field, empty ones as "".
const Empty = Type.Literal('');
const PageQuery = Type.Object({
  shop: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Empty])),
  event: Type.Optional(Type.String({ maxLength: 100 })),
  pk: Type.Optional(Type.String({ maxLength: 100 })),
  state: Type.Optional(Type.Union([Type.Literal('delivered'), Type.Literal('failing'), Type.Literal('refused'), Empty])),
  delivery: Type.Optional(Type.String({ maxLength: 100 })),
  fragment: Type.Optional(Type.Literal('1')),
});

export const webhooksAdmin: FastifyPluginAsyncTypebox<{ services: { webhooks: WebhookService; shops: ShopService }; nav: Nav }> = async (
  app,
  { services, nav },
) => {
  app.get(
    '/admin/api/webhooks/deliveries',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        querystring: DeliveryQuery,
        response: { 200: Type.Array(WebhookDelivery) },
        summary:
          'Webhook deliveries of every shop, the latest attempted first, each with its attempts (filter by shop, event, resource pk, state, delivery id)',
      },
    },
    async (request) => services.webhooks.listDeliveries(request.query),
  );

  app.get(
    '/admin/api/webhooks/deliveries/:delivery',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'One webhook delivery (its webhook-id) with every attempt',
        params: Type.Object({ delivery: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: WebhookDelivery },
      },
    },
    async (request) => services.webhooks.getDelivery(request.params.delivery),
  );

  app.get('/admin/webhooks', { config: pageConfig, schema: { hide: true, querystring: PageQuery } }, async (request, reply) => {
    const q = request.query;
    const f: DeliveryFilters = {
      shop: q.shop === '' ? undefined : q.shop,
      event: q.event?.trim() || undefined,
      pk: q.pk?.trim() || undefined,
      state: q.state === '' ? undefined : q.state,
      delivery: q.delivery?.trim() || undefined,
    };
    const [list, names] = await Promise.all([services.webhooks.listDeliveries({ ...f, limit: 100 }), shopNames(services)]);
    return sendHtml(
      reply,
      q.fragment === '1' ? webhooksFragment(list, names) : page('Webhooks', 'webhooks', nav, webhooksBody(f, list, names)),
    );
  });
};
