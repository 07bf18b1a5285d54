// Admin API and pages of the feeds, connectors, orders and webhooks areas.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import type { OrderService } from '../orders/orders.service.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';
import type { FeedService } from '../feeds/feeds.service.ts';
import type { FeedRecoveryService } from '../feeds/feed-recovery.service.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { connectorsAdmin } from './connectors-admin.routes.ts';
import { feedsAdmin } from './feeds-admin.routes.ts';
import { ordersAdmin } from './orders-admin.routes.ts';
import { webhooksAdmin } from './webhooks-admin.routes.ts';
import type { Nav } from './views/layout.ts';

export const areaPages: FastifyPluginAsyncTypebox<{
  services: {
    shops: ShopService;
    webhooks: WebhookService;
    orders: OrderService;
    marketplaces: MarketplaceService;
    connectors: ConnectorService;
    feeds: FeedService;
    feedRecovery: FeedRecoveryService;
  };
  nav: Nav;
  publicUrl?: string;
}> = async (app, opts) => {
  await app.register(feedsAdmin, opts);
  await app.register(connectorsAdmin, opts);
  await app.register(ordersAdmin, opts);
  await app.register(webhooksAdmin, opts);
};
