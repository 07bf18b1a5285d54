// The ports of a connector's context (connectors/sdk/contract.ts), implemented with the
// services behind them. A connector sees these narrow functions, never the services.
import { bodyItems } from '../../catalog/product-validation.ts';
import { badRequest } from '../../errors.ts';
import { feedUrl, presentApi } from '../../feeds/feeds.presenter.ts';
import type { FeedSubmitService } from '../../feeds/feed-submit.service.ts';
import type { Feed } from '../../feeds/feeds.schemas.ts';
import { metrics } from '../../metrics/metrics.ts';
import { outboundRequest } from '../../outbound/outbound-http.ts';
import type { ShopService } from '../../shops/shops.service.ts';
import type { TrackingService } from '../../tracking/tracking.service.ts';
import {
  userError,
  type CatalogPort,
  type ConnectorContext,
  type HttpPort,
  type SubmittedFeed,
  type TrackingPort,
} from '../../../connectors/sdk/index.ts';

/** The services the ports use. */
export interface PortServices {
  feeds: Pick<FeedSubmitService, 'submit' | 'submitValidated'>;
  shops: Pick<ShopService, 'exists'>;
  tracking: Pick<TrackingService, 'due' | 'byTrackingCode' | 'record' | 'recordError'>;
}

/** Whom the ports work for: the instance, its shop, and the {base_url} of the feeds it creates. */
export interface PortScope {
  name: string;
  shopPk: number | null;
  baseUrl: string;
}

export type DomainPorts = Pick<ConnectorContext, 'catalog' | 'tracking' | 'http'>;
export type PortFactory = (scope: PortScope) => DomainPorts;

const submitted = (feed: Feed, baseUrl: string): SubmittedFeed => ({
  pk: feed.pk,
  url: feedUrl(baseUrl, feed.pk),
  total: feed.counts.total,
  json: presentApi(feed, baseUrl),
});

function catalogPort(s: PortServices, scope: PortScope): CatalogPort {
  const shopPk = (): number => {
    // needsShop types are refused at start-up without a shop_pk; a type without it has no shop to write to.
    if (scope.shopPk === null) throw userError(`Connector ${scope.name} has no shop_pk: it cannot write to a catalog.`);
    return scope.shopPk;
  };
  const source = `connector:${scope.name}`;
  return {
    shopExists: () => s.shops.exists(shopPk()),
    async submitProducts(body, options = {}) {
      const { items, single, errors } = bodyItems(body);
      if (errors.length > 0) throw badRequest('The body must be a product or a non-empty array of products.', errors);
      const baseUrl = options.baseUrl ?? scope.baseUrl;
      // The products POST's own path: the same validation, caps and feed.
      return submitted(
        await s.feeds.submit({ shopPk: shopPk(), type: 'product_create', items, single, source, baseUrl, contentHashes: true }),
        baseUrl,
      );
    },
    async submitValidated(products, options = {}) {
      const type = options.merge === true ? 'product_merge' : 'product_create';
      return submitted(
        await s.feeds.submitValidated({ shopPk: shopPk(), type, items: products, source, baseUrl: scope.baseUrl }),
        scope.baseUrl,
      );
    },
    async deleteProducts(skus) {
      // The products DELETE's own path: [{"sku"}] items, validated and capped the same way.
      return submitted(
        await s.feeds.submit({
          shopPk: shopPk(),
          type: 'product_delete',
          items: skus.map((sku) => ({ sku })),
          source,
          baseUrl: scope.baseUrl,
        }),
        scope.baseUrl,
      );
    },
  };
}

const trackingPort = (s: PortServices, scope: PortScope): TrackingPort => ({
  due: (query) => s.tracking.due(query),
  byTrackingCode: (carriers, shopPk, trackingCode) => s.tracking.byTrackingCode(carriers, shopPk, trackingCode),
  record: (shipment, result, options) =>
    s.tracking.record(shipment, result, { connector: scope.name, followDeliveredDays: options.followDeliveredDays }),
  recordError: (shipmentId, message) => s.tracking.recordError(shipmentId, scope.name, message),
});

/** Outbound calls under the shared rules (src/outbound/outbound-http.ts), counted per carrier. */
export const httpPort: HttpPort = {
  get: (url, request) => httpPort.request(url, { ...request, method: 'GET' }),
  async request(url, request) {
    const { carrier, ...rest } = request;
    try {
      const res = await outboundRequest(url, rest);
      if (carrier !== undefined) metrics.carrierCall(carrier, String(res.status));
      return res;
    } catch (error) {
      if (carrier !== undefined) metrics.carrierCall(carrier, 'error');
      throw error;
    }
  },
};

/** The ports of each connector instance, over these services. */
export const connectorPorts =
  (services: PortServices): PortFactory =>
  (scope) => ({
    catalog: catalogPort(services, scope),
    tracking: trackingPort(services, scope),
    http: httpPort,
  });
