// catalog-shopify: pulls the products a Shopify store changed since the last accepted cursor
// (Admin GraphQL API, a pinned version) into the connector's shop; archived products follow
// on_delete. The query-cost throttle is waited out, never run into.
import { Type } from 'typebox';
import { checkBaseUrl, defineConnector, ENV_NAME, pullApi, pullCatalog, pullOptions } from '../sdk/index.ts';
import { shopifyProducts } from './client.ts';
import { mapShopifyProduct } from './map.ts';

/** The Admin API version asked for unless the entry names one (Shopify supports each for a year). */
export const SHOPIFY_API_VERSION = '2025-07';

export const CatalogShopifyOptions = Type.Object(
  {
    ...pullOptions,
    /** Env var holding the Admin API access token (shpat_..., scopes read_products and read_inventory). */
    access_token_env: Type.String({ pattern: ENV_NAME }),
    /** Admin API version, YYYY-MM. */
    api_version: Type.String({ pattern: '^\\d{4}-(01|04|07|10)$', default: SHOPIFY_API_VERSION }),
  },
  { additionalProperties: false },
);

export const catalogShopify = defineConnector({
  type: 'catalog-shopify',
  description: "Pulls the products a Shopify store changed (Admin GraphQL API) into the shop's catalog.",
  options: CatalogShopifyOptions,
  needsShop: true,
  async run(ctx) {
    const o = ctx.options;
    await checkBaseUrl(o.base_url);
    const client = {
      api: pullApi(ctx, 'Shopify'),
      baseUrl: o.base_url,
      apiVersion: o.api_version,
      accessToken: ctx.secret(o.access_token_env),
      signal: ctx.signal,
      onWait: (ms: number) => {
        ctx.report.count('throttle_waits');
        ctx.log.info({ ms }, "waiting for Shopify's query cost bucket to refill");
      },
    };
    await pullCatalog(ctx, {
      async *pages(since) {
        for await (const page of shopifyProducts(client, since)) yield page.map(mapShopifyProduct);
      },
    });
  },
});
