// catalog-akeneo: pulls the products an Akeneo PIM changed since the last accepted cursor into
// the connector's shop. A variant product brings its whole model (root model, its values and all
// its variants) as one waybill product; disabled products follow on_delete.
import { Type } from 'typebox';
import {
  checkBaseUrl,
  defineConnector,
  ENV_NAME,
  pullCatalog,
  pullOptions,
  rawPullApi,
  runError,
  type PulledProduct,
} from '../sdk/index.ts';
import { AkeneoClient } from './client.ts';
import { mapAkeneoModel, mapAkeneoProduct, type AkeneoMapOptions, type AkeneoModel } from './map.ts';

export const CatalogAkeneoOptions = Type.Object(
  {
    ...pullOptions,
    /** Env vars of the API connection (Connect > Connection settings): client id, secret, username, password. */
    client_id_env: Type.String({ pattern: ENV_NAME }),
    secret_env: Type.String({ pattern: ENV_NAME }),
    username_env: Type.String({ pattern: ENV_NAME }),
    password_env: Type.String({ pattern: ENV_NAME }),
    /** Locale of localizable values (en_US); omitted: the first value given. */
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 20 })),
    /** Channel of scopable values (ecommerce); omitted: the first value given. */
    scope: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** Currency of price collections (EUR); omitted: the first price given. */
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    /** Attribute codes of waybill fields where the catalog's differ: {"name": "product_title", "images": "packshot"}. */
    attributes: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);

export const catalogAkeneo = defineConnector({
  type: 'catalog-akeneo',
  description:
    "Pulls the products an Akeneo PIM changed (REST API) into the shop's catalog; product models become products with variations.",
  options: CatalogAkeneoOptions,
  needsShop: true,
  async run(ctx) {
    const o = ctx.options;
    await checkBaseUrl(o.base_url);
    const client = new AkeneoClient(rawPullApi(ctx), o.base_url, {
      clientId: ctx.secret(o.client_id_env),
      secret: ctx.secret(o.secret_env),
      username: ctx.secret(o.username_env),
      password: ctx.secret(o.password_env),
    });
    const m: AkeneoMapOptions = { locale: o.locale, scope: o.scope, currency: o.currency, attributes: o.attributes };
    const rootOf = async (code: string): Promise<AkeneoModel> => {
      const model = await client.model(code);
      return model.parent === null ? model : client.model(model.parent);
    };
    try {
      await pullCatalog(ctx, {
        async *pages(since) {
          for await (const page of client.products(since)) {
            const out: PulledProduct[] = [];
            const models = new Set<string>();
            for (const p of page) {
              if (p.parent === null || p.parent === undefined) out.push(mapAkeneoProduct(p, m));
              else if (!models.has(p.parent)) models.add(p.parent);
            }
            const roots = new Set<string>();
            for (const code of models) {
              const root = await rootOf(code);
              if (roots.has(root.code)) continue;
              roots.add(root.code);
              out.push(mapAkeneoModel(root, await client.variants(root.code), m));
            }
            yield out;
          }
        },
      });
    } catch (error) {
      throw runError(error, 'Akeneo');
    }
  },
});
