// Products: POST (create or update by sku), PUT (partial update by pk or sku), DELETE (by pk or
// sku) and GET (list) on /shops/{shop}/products/; GET and DELETE of one product. Every write
// answers 201 with the feed that carries it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parseTimestamp } from '../validation/timestamp.ts';
import { allowOnly } from '../http/plugins/methods.ts';
import { bodyCheckedByService } from '../http/validation.ts';
import { PageOf, PageQuery, streamPage } from '../http/list-reply.ts';
import { FeedJson } from '../feeds/feeds.schemas.ts';
import type { CatalogService } from './catalog.service.ts';
import type { FeedSubmitService } from '../feeds/feed-submit.service.ts';
import { feedCreated, itemsOf, ProductParams, ShopParams } from './catalog-http.ts';
import { baseUrl } from '../system/base-url.ts';
import { sourceOf } from '../http/plugins/auth.ts';
import { oneOrMany, Product, ProductRef, ProductUpdate, StoredProduct } from './catalog.schemas.ts';
import type { FeedType } from '../feeds/feeds.schemas.ts';

export interface CatalogRoutesOptions {
  services: { catalog: CatalogService; feedSubmit: Pick<FeedSubmitService, 'submit'> };
  publicUrl: string | undefined;
}

const PRODUCTS = '/shops/:shop/products/';
const PRODUCTS_ALLOW = 'GET, POST, PUT, DELETE, OPTIONS';
const PRODUCT = '/shops/:shop/products/:product/';
const PRODUCT_ALLOW = 'GET, DELETE, OPTIONS';

const ProductQuery = Type.Object({
  ...PageQuery,
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  updated_since: Type.Optional(
    Type.String({
      format: 'timestamp-zone',
      description: 'YYYY-MM-DDThh:mm:ss (UTC) or with a zone (Z, +01:00): a real date, years 0001-9999',
    }),
  ),
});

/** The instant of a validated `updated_since` (the query's format is the body timestamps' rule). */
const sinceOf = (v: string | undefined): Date | undefined => (v === undefined ? undefined : parseTimestamp(v, true));

export const catalogRoutes: FastifyPluginAsyncTypebox<CatalogRoutesOptions> = async (app, { services, publicUrl }) => {
  const write = (summary: string, body: object) => ({
    config: { auth: 'shop' as const, allow: PRODUCTS_ALLOW, idempotent: true },
    validatorCompiler: bodyCheckedByService,
    schema: { tags: ['catalog'], summary, params: ShopParams, body, response: { 201: FeedJson } },
  });
  const submit = (type: FeedType) => async (request: FastifyRequest, reply: FastifyReply) => {
    const base = baseUrl(request, publicUrl);
    const { items, single } = itemsOf(request.body);
    const feed = await services.feedSubmit.submit({
      shopPk: (request.params as { shop: number }).shop,
      type,
      items,
      single,
      source: sourceOf(request),
      baseUrl: base,
    });
    return feedCreated(reply, feed, base);
  };

  app.post(
    PRODUCTS,
    write('Create or update products (by sku), one or many: a feed', oneOrMany(Product, 'one Product or an array of them')),
    submit('product_create'),
  );
  app.put(
    PRODUCTS,
    write(
      'Partial update of products identified by pk or sku: a feed',
      oneOrMany(ProductUpdate, 'one partial Product (pk or sku) or an array of them'),
    ),
    submit('product_update'),
  );
  app.delete(
    PRODUCTS,
    write('Soft-delete products by pk or sku: a feed', oneOrMany(ProductRef, '{"pk"} or {"sku"}, or an array of them')),
    submit('product_delete'),
  );

  app.get(
    PRODUCTS,
    {
      config: { auth: 'shop', allow: PRODUCTS_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'List products (with images and variations), by pk',
        params: ShopParams,
        querystring: ProductQuery,
        response: { 200: PageOf(StoredProduct, 'The products of the page, oldest pk first') },
      },
    },
    async (request, reply) => {
      const { page, page_size: pageSize, sku, updated_since: since } = request.query;
      const r = await services.catalog.listProducts(request.params.shop, { page, pageSize, sku, updatedSince: sinceOf(since) });
      return streamPage(reply, request, baseUrl(request, publicUrl), { page, pageSize, total: r.count }, r.batches, StoredProduct);
    },
  );
  allowOnly(app, PRODUCTS, PRODUCTS_ALLOW);

  app.get(
    PRODUCT,
    {
      config: { auth: 'shop', allow: PRODUCT_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'One product with its images and variations',
        params: ProductParams,
        response: { 200: StoredProduct },
      },
    },
    async (request) => services.catalog.getProduct(request.params.shop, request.params.product),
  );

  app.delete(
    PRODUCT,
    {
      config: { auth: 'shop', allow: PRODUCT_ALLOW, idempotent: true },
      schema: {
        tags: ['catalog'],
        summary: 'Soft-delete one product now',
        params: ProductParams,
        response: { 204: Type.Null({ description: 'No Content' }) },
      },
    },
    async (request, reply) => {
      await services.catalog.deleteProduct(request.params.shop, request.params.product);
      return reply.code(204).send(null);
    },
  );
  allowOnly(app, PRODUCT, PRODUCT_ALLOW);
};
