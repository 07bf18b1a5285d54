// Reading feeds: GET /feeds/{feed_id}/ (the key of the feed's shop; another shop's feed is 404)
// and GET /shops/{shop}/feeds/?state=&type=.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { allowOnly } from '../http/plugins/methods.ts';
import { baseOf, pageLinks, ShopParams } from '../catalog/catalog-http.ts';
import type { CatalogRoutesOptions } from '../catalog/catalog.routes.ts';
import { FeedJson, FeedPage, FeedState, FeedType } from './feeds.schemas.ts';
import { present } from './feeds.service.ts';

const FEED = '/feeds/:feed/';
const FEEDS = '/shops/:shop/feeds/';
const ALLOW = 'GET, OPTIONS';

export const feedRoutes: FastifyPluginAsyncTypebox<CatalogRoutesOptions> = async (app, { services, publicUrl }) => {
  app.get(FEED, {
    config: { auth: 'shop', allow: ALLOW },
    schema: {
      tags: ['feeds'],
      summary: 'A feed: state, Wait/Complete/Error status, counts and per-item results',
      params: Type.Object({ feed: Type.String({ maxLength: 100 }) }),
      response: { 200: FeedJson },
    },
  }, async (request) => present(await services.feeds.get(request.principal!.shopPk, request.params.feed), baseOf(request, publicUrl)));
  allowOnly(app, FEED, ALLOW);

  app.get(FEEDS, {
    config: { auth: 'shop', allow: ALLOW },
    schema: {
      tags: ['feeds'],
      summary: 'The shop\'s feeds, newest first (kept 30 days); results are on each feed\'s URL',
      params: ShopParams,
      querystring: Type.Object({
        state: Type.Optional(FeedState),
        type: Type.Optional(FeedType),
        page: Type.Integer({ minimum: 1, default: 1 }),
        page_size: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
      }),
      response: { 200: FeedPage },
    },
  }, async (request) => {
    const { state, type, page, page_size: pageSize } = request.query;
    const base = baseOf(request, publicUrl);
    const r = await services.feeds.list(request.params.shop, { state, type, limit: pageSize, offset: (page - 1) * pageSize });
    return { count: r.count, ...pageLinks(request, base, page, pageSize, r.count), results: r.results.map((f) => present(f, base, true)) };
  });
  allowOnly(app, FEEDS, ALLOW);
};
