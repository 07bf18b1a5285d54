// Admin API and pages of the feeds, connectors, orders and webhooks areas.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';
import { connectorsAdmin } from './connectors-admin.routes.ts';
import { feedsAdmin } from './feeds-admin.routes.ts';
import { ordersAdmin } from './orders-admin.routes.ts';
import { webhooksAdmin } from './webhooks-admin.routes.ts';
import type { Nav } from './views/layout.ts';

export const areaPages: FastifyPluginAsyncTypebox<{ services: Services; nav: Nav; publicUrl?: string }> = async (app, opts) => {
  await app.register(feedsAdmin, opts);
  await app.register(connectorsAdmin, opts);
  await app.register(ordersAdmin, opts);
  await app.register(webhooksAdmin, opts);
};
