// Reading feeds: GET /feeds/{feed_id}/ (the key of the feed's shop; another shop's feed is 404),
// GET /feeds/ (the key's shop's feeds) and GET /shops/{shop}/feeds/?state=&type=.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { allowOnly } from '../http/plugins/methods.ts';
import { PageOf, PageQuery, sendPage } from '../http/list-reply.ts';
import { ShopParams } from '../catalog/catalog-http.ts';
import { baseUrl } from '../system/base-url.ts';
import { FeedJson, FeedState, FeedSummaryJson, FeedType } from './feeds.schemas.ts';
import { presentApi } from './feeds.presenter.ts';
import type { FeedService } from './feeds.service.ts';

const FEED = '/feeds/:feed/';
const FEEDS = '/feeds/';
const SHOP_FEEDS = '/shops/:shop/feeds/';
const ALLOW = 'GET, OPTIONS';

const FeedQuery = Type.Object({ state: Type.Optional(FeedState), type: Type.Optional(FeedType), ...PageQuery });
const FeedList = PageOf(FeedSummaryJson, "The shop's feeds of the page, newest first (kept 30 days); results are on each feed's URL");

export interface FeedRoutesOptions {
  services: { feeds: Pick<FeedService, 'get' | 'list'> };
  publicUrl: string | undefined;
}

export const feedRoutes: FastifyPluginAsyncTypebox<FeedRoutesOptions> = async (app, { services, publicUrl }) => {
  app.get(
    FEED,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['feeds'],
        summary: 'A feed: state, Wait/Complete/Error status, counts and per-item results',
        params: Type.Object({ feed: Type.String({ maxLength: 100 }) }),
        response: { 200: FeedJson },
      },
    },
    async (request) => presentApi(await services.feeds.get(request.principal!.shopPk, request.params.feed), baseUrl(request, publicUrl)),
  );
  allowOnly(app, FEED, ALLOW);

  const list = async (request: FastifyRequest, reply: FastifyReply, shopPk: number) => {
    const { state, type, page, page_size: pageSize } = request.query as Static<typeof FeedQuery>;
    const base = baseUrl(request, publicUrl);
    const r = await services.feeds.list(shopPk, { state, type, limit: pageSize, offset: (page - 1) * pageSize });
    return sendPage(
      reply,
      request,
      base,
      { page, pageSize, total: r.count },
      r.results.map((f) => presentApi(f, base, true)),
    );
  };

  app.get(
    FEEDS,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['feeds'],
        summary: "The feeds of the key's shop, newest first",
        querystring: FeedQuery,
        response: { 200: FeedList },
      },
    },
    async (request, reply) => list(request, reply, request.principal!.shopPk),
  );
  allowOnly(app, FEEDS, ALLOW);

  app.get(
    SHOP_FEEDS,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['feeds'],
        summary: "The shop's feeds, newest first",
        params: ShopParams,
        querystring: FeedQuery,
        response: { 200: FeedList },
      },
    },
    async (request, reply) => list(request, reply, request.params.shop),
  );
  allowOnly(app, SHOP_FEEDS, ALLOW);
};
