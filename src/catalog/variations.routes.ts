// Variations of a product (GET list, PUT update by pk, POST create, DELETE by pk) and the
// images of a variation (GET, POST replace, DELETE detach). Writes answer 201 with a feed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { allowOnly } from '../http/plugins/methods.ts';
import { bodyCheckedByService } from '../http/validation.ts';
import { PageOf, PageQuery, sendPage } from '../http/list-reply.ts';
import { FeedJson, type FeedType } from '../feeds/feeds.schemas.ts';
import { feedCreated, itemsOf, ProductParams, VariationParams } from './catalog-http.ts';
import { baseUrl } from '../system/base-url.ts';
import { sourceOf } from '../http/plugins/auth.ts';
import { ImageRef, oneOrMany, StoredImage, StoredVariation, VariationCreate, VariationUpdate } from './catalog.schemas.ts';
import type { CatalogRoutesOptions } from './catalog.routes.ts';

const VARIATIONS = '/shops/:shop/products/:product/variations/';
const VARIATIONS_ALLOW = 'GET, PUT, POST, DELETE, OPTIONS';
const VARIATION = '/shops/:shop/products/:product/variations/:variation/';
const ONE_ALLOW = 'GET, OPTIONS';
const IMAGES = '/shops/:shop/products/:product/variations/:variation/images/';
const IMAGES_ALLOW = 'GET, POST, DELETE, OPTIONS';
const IMAGE = '/shops/:shop/products/:product/variations/:variation/images/:image/';
const ImageParams = Type.Object({ ...VariationParams.properties, image: Type.Integer({ minimum: 1 }) });

export const variationRoutes: FastifyPluginAsyncTypebox<CatalogRoutesOptions> = async (app, { services, publicUrl }) => {
  const write = (allow: string, params: object, summary: string, body: object, description?: string, bodyOptional = false) => ({
    config: { auth: 'shop' as const, allow, idempotent: true, bodyOptional },
    validatorCompiler: bodyCheckedByService,
    schema: { tags: ['catalog'], summary, description, params, body, response: { 201: FeedJson } },
  });
  // A product's variations and a variation's images are few (tens), read whole with the
  // product, and paged here like every other list.
  const pageOfAll = <T>(request: FastifyRequest, reply: FastifyReply, all: T[]) => {
    const { page, page_size: pageSize } = request.query as { page: number; page_size: number };
    return sendPage(
      reply,
      request,
      baseUrl(request, publicUrl),
      { page, pageSize, total: all.length },
      all.slice((page - 1) * pageSize, page * pageSize),
    );
  };
  const submit =
    (type: FeedType, emptyMeansAll = false) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const base = baseUrl(request, publicUrl);
      const { shop, product, variation } = request.params as { shop: number; product: number; variation?: number };
      let body = request.body;
      // DELETE .../images/ without a body detaches every image of the variation.
      if (emptyMeansAll && (body === undefined || body === null)) {
        body = (await services.catalog.variationImagePks(shop, product, variation!)).map((pk) => ({ pk }));
        if ((body as unknown[]).length === 0) body = undefined;
      }
      const { items, single } = body === undefined ? { items: [], single: false } : itemsOf(body);
      const feed = await services.feedSubmit.submit({
        shopPk: shop,
        type,
        items,
        single,
        productPk: product,
        variationPk: variation,
        source: sourceOf(request),
        baseUrl: base,
      });
      return feedCreated(reply, feed, base);
    };

  app.get(
    VARIATIONS,
    {
      config: { auth: 'shop', allow: VARIATIONS_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'The variations of a product',
        params: ProductParams,
        querystring: Type.Object(PageQuery),
        response: { 200: PageOf(StoredVariation, 'The variations of the page, by pk') },
      },
    },
    async (request, reply) => pageOfAll(request, reply, await services.catalog.listVariations(request.params.shop, request.params.product)),
  );
  app.put(
    VARIATIONS,
    write(
      VARIATIONS_ALLOW,
      ProductParams,
      'Update variations by pk (images as [{"pk"}] of product images): a feed',
      oneOrMany(VariationUpdate, 'one Variation update (with pk) or an array of them'),
    ),
    submit('variation_update'),
  );
  app.post(
    VARIATIONS,
    write(
      VARIATIONS_ALLOW,
      ProductParams,
      'Create variations (or update them, by sku): a feed',
      oneOrMany(VariationCreate, 'one Variation or an array of them'),
    ),
    submit('variation_create'),
  );
  app.delete(
    VARIATIONS,
    write(
      VARIATIONS_ALLOW,
      ProductParams,
      'Soft-delete variations by pk: a feed',
      oneOrMany(ImageRef, '{"pk"} of a variation, or an array of them'),
    ),
    submit('variation_delete'),
  );
  allowOnly(app, VARIATIONS, VARIATIONS_ALLOW);

  app.get(
    VARIATION,
    {
      config: { auth: 'shop', allow: ONE_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'One variation of a product, with its images',
        params: VariationParams,
        response: { 200: StoredVariation },
      },
    },
    async (request) => services.catalog.getVariation(request.params.shop, request.params.product, request.params.variation),
  );
  allowOnly(app, VARIATION, ONE_ALLOW);

  app.get(
    IMAGES,
    {
      config: { auth: 'shop', allow: IMAGES_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'The images of a variation, in order',
        params: VariationParams,
        querystring: Type.Object(PageQuery),
        response: { 200: PageOf(StoredImage, 'The images of the page, in order') },
      },
    },
    async (request, reply) =>
      pageOfAll(
        request,
        reply,
        await services.catalog.variationImages(request.params.shop, request.params.product, request.params.variation),
      ),
  );
  app.post(
    IMAGES,
    write(
      IMAGES_ALLOW,
      VariationParams,
      'Replace the images of a variation: the set sent becomes its images, in order; a feed',
      oneOrMany(ImageRef, '{"pk"} of a product image, or an array of them'),
    ),
    submit('image_replace'),
  );
  app.delete(
    IMAGES,
    write(
      IMAGES_ALLOW,
      VariationParams,
      'Detach images from a variation: a feed',
      Type.Optional(oneOrMany(ImageRef, '{"pk"} of a linked image, or an array of them')),
      'Without a body every image of the variation is detached. The product keeps its images.',
      true,
    ),
    submit('image_delete', true),
  );
  allowOnly(app, IMAGES, IMAGES_ALLOW);

  app.get(
    IMAGE,
    {
      config: { auth: 'shop', allow: ONE_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: "One image of a variation (position: its place among the variation's images)",
        params: ImageParams,
        response: { 200: StoredImage },
      },
    },
    async (request) =>
      services.catalog.variationImage(request.params.shop, request.params.product, request.params.variation, request.params.image),
  );
  allowOnly(app, IMAGE, ONE_ALLOW);
};
