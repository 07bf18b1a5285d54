// The images of a product as a resource: GET (list, in order), POST (add addresses after the
// product's images), PUT (move images to 0-based positions), DELETE (remove images and their
// variation links) on /shops/{shop}/products/{product}/images/, and GET of one image. Writes
// answer 201 with a feed, like every catalog write.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { allowOnly } from '../http/plugins/methods.ts';
import { bodyCheckedByService } from '../http/validation.ts';
import { PageQuery, sendPage } from '../http/list-reply.ts';
import { FeedJson, type FeedType } from '../feeds/feeds.schemas.ts';
import { feedCreated, itemsOf, ProductParams } from './catalog-http.ts';
import { baseUrl } from '../system/base-url.ts';
import { sourceOf } from '../http/plugins/auth.ts';
import { ImageInput, ImagePosition, ImageRef, oneOrMany, StoredImage } from './catalog.schemas.ts';
import type { CatalogRoutesOptions } from './catalog.routes.ts';

const IMAGES = '/shops/:shop/products/:product/images/';
const IMAGES_ALLOW = 'GET, POST, PUT, DELETE, OPTIONS';
const IMAGE = '/shops/:shop/products/:product/images/:image/';
const IMAGE_ALLOW = 'GET, OPTIONS';

export const imageRoutes: FastifyPluginAsyncTypebox<CatalogRoutesOptions> = async (app, { services, publicUrl }) => {
  const write = (summary: string, body: object, description: string) => ({
    config: { auth: 'shop' as const, allow: IMAGES_ALLOW, idempotent: true },
    validatorCompiler: bodyCheckedByService,
    schema: { tags: ['catalog'], summary, description, params: ProductParams, body, response: { 201: FeedJson } },
  });
  const submit = (type: FeedType) => async (request: FastifyRequest, reply: FastifyReply) => {
    const base = baseUrl(request, publicUrl);
    const { shop, product } = request.params as { shop: number; product: number };
    // An address alone is one image to add.
    const { items, single } =
      typeof request.body === 'string' && type === 'product_image_add' ? { items: [request.body], single: true } : itemsOf(request.body);
    const feed = await services.feedSubmit.submit({
      shopPk: shop,
      type,
      items,
      single,
      productPk: product,
      source: sourceOf(request),
      baseUrl: base,
    });
    return feedCreated(reply, feed, base);
  };
  const report = 'Its report has one success item per image: {sku, product_pk, image_pk, url_source, position}.';

  app.get(
    IMAGES,
    {
      config: { auth: 'shop', allow: IMAGES_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'The images of a product, in order (positions 0-based)',
        params: ProductParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(StoredImage) },
      },
    },
    async (request, reply) => {
      const { page, page_size: pageSize } = request.query;
      const r = await services.catalog.productImages(request.params.shop, request.params.product, page, pageSize);
      return sendPage(reply, request, baseUrl(request, publicUrl), { page, pageSize, total: r.total }, r.results);
    },
  );
  app.post(
    IMAGES,
    write(
      'Add images to a product, after the ones it has: a feed',
      oneOrMany(ImageInput, '{"url"} or an address string, or an array of them'),
      `An address the product has already is reported with its image and not added twice. ${report}`,
    ),
    submit('product_image_add'),
  );
  app.put(
    IMAGES,
    write(
      'Reorder the images of a product: a feed',
      oneOrMany(ImagePosition, '{"pk","position"} (0-based), or an array of them'),
      `Each image sent moves to its position (past the end: the end); the others keep their order around them. ${report}`,
    ),
    submit('product_image_reorder'),
  );
  app.delete(
    IMAGES,
    write(
      'Remove images from a product (and from its variations): a feed',
      oneOrMany(ImageRef, '{"pk"} of an image, or an array of them'),
      `The remaining images close up (positions 0..n-1). ${report}`,
    ),
    submit('product_image_delete'),
  );
  allowOnly(app, IMAGES, IMAGES_ALLOW);

  app.get(
    IMAGE,
    {
      config: { auth: 'shop', allow: IMAGE_ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'One image of a product',
        params: Type.Object({ ...ProductParams.properties, image: Type.Integer({ minimum: 1 }) }),
        response: { 200: StoredImage },
      },
    },
    async (request) => services.catalog.productImage(request.params.shop, request.params.product, request.params.image),
  );
  allowOnly(app, IMAGE, IMAGE_ALLOW);
};
