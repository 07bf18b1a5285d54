// The shops a key may see: GET /shops/ (its own shop, as a list: `?page_size=1` is how clients
// check a token, 200 or 401) and GET /shops/{shop}/ (another shop's pk: 404, as for every path).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { baseUrl } from '../system/base-url.ts';
import { PageOf, PageQuery, sendPage } from '../http/list-reply.ts';
import { allowOnly } from '../http/plugins/methods.ts';
import type { ShopService } from './shops.service.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import { ApiShop } from './shops.schemas.ts';

export interface ShopRoutesOptions {
  services: { shops: ShopService; marketplaces: MarketplaceService };
  publicUrl: string | undefined;
}

const SHOPS = '/shops/';
const SHOP = '/shops/:shop/';
const ALLOW = 'GET, OPTIONS';

export const shopRoutes: FastifyPluginAsyncTypebox<ShopRoutesOptions> = async (app, { services, publicUrl }) => {
  app.get(
    SHOPS,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['shops'],
        summary: 'The shops this key may see (its own)',
        querystring: Type.Object(PageQuery),
        response: { 200: PageOf(ApiShop, 'The shops of the page') },
      },
    },
    async (request, reply) => {
      const { page, page_size: pageSize } = request.query;
      const all = [await services.shops.apiShop(request.principal!.shopPk, services.marketplaces)];
      return sendPage(
        reply,
        request,
        baseUrl(request, publicUrl),
        { page, pageSize, total: all.length },
        all.slice((page - 1) * pageSize, page * pageSize),
      );
    },
  );
  allowOnly(app, SHOPS, ALLOW);

  app.get(
    SHOP,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['shops'],
        summary: 'One shop, with its marketplaces',
        params: Type.Object({ shop: Type.Integer({ minimum: 1 }) }),
        response: { 200: ApiShop },
      },
    },
    async (request) => services.shops.apiShop(request.params.shop, services.marketplaces),
  );
  allowOnly(app, SHOP, ALLOW);
};
