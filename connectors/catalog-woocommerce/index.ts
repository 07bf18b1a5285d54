// catalog-woocommerce: pulls the products a WooCommerce shop changed since the last accepted
// cursor (REST API v3) into the connector's shop; trashed products follow on_delete.
import { Type } from 'typebox';
import { checkBaseUrl, defineConnector, ENV_NAME, pullApi, pullCatalog, pullOptions } from '../sdk/index.ts';
import { wooProducts, wooVariations, type WooClient } from './client.ts';
import { mapWooProduct } from './map.ts';

export const CatalogWooOptions = Type.Object(
  {
    ...pullOptions,
    /** Env var holding the REST API consumer key (ck_...). */
    consumer_key_env: Type.String({ pattern: ENV_NAME }),
    /** Env var holding the consumer secret (cs_...). */
    consumer_secret_env: Type.String({ pattern: ENV_NAME }),
    /** The store's weight unit (WooCommerce > Settings > Products), given to products with a weight. */
    weight_unit: Type.Optional(Type.Union(['kg', 'g', 'lb', 'oz'].map((u) => Type.Literal(u)))),
    /** The store's dimensions unit, given to products with a width, height or length. */
    dimensions_unit: Type.Optional(Type.Union(['cm', 'mm', 'm', 'in'].map((u) => Type.Literal(u)))),
  },
  { additionalProperties: false },
);

export const catalogWoocommerce = defineConnector({
  type: 'catalog-woocommerce',
  description: "Pulls the products a WooCommerce shop changed (REST API v3) into the shop's catalog.",
  options: CatalogWooOptions,
  needsShop: true,
  async run(ctx) {
    const o = ctx.options;
    await checkBaseUrl(o.base_url);
    const client: WooClient = {
      api: pullApi(ctx, 'WooCommerce'),
      baseUrl: o.base_url,
      consumerKey: ctx.secret(o.consumer_key_env),
      consumerSecret: ctx.secret(o.consumer_secret_env),
    };
    const units = {
      ...(o.weight_unit === undefined ? {} : { weight_unit: o.weight_unit }),
      ...(o.dimensions_unit === undefined ? {} : { dimensions_unit: o.dimensions_unit }),
    };
    await pullCatalog(ctx, {
      async *pages(since) {
        for await (const page of wooProducts(client, since)) {
          const mapped = [];
          for (const p of page) {
            const variations = p.type === 'variable' && p.status !== 'trash' ? await wooVariations(client, p.id) : [];
            mapped.push(mapWooProduct(p, variations, units));
          }
          yield mapped;
        }
      },
    });
  },
});
