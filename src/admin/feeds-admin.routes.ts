// Admin API and dashboard pages of feeds: every shop's feeds with filters and sku search, one
// feed with its item errors (JSON, CSV), and retry of a failed or stuck feed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { present } from '../feeds/feeds.presenter.ts';
import { FeedJson, FeedState, FeedSummaryJson, FeedType, type FeedFilter } from '../feeds/feeds.schemas.ts';
import { baseUrl } from '../system/base-url.ts';
import type { FeedService } from '../feeds/feeds.service.ts';
import type { FeedRecoveryService } from '../feeds/feed-recovery.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { apiConfig, pageConfig, security, sendHtml, shopNames, tags } from './admin-http.ts';
import { FeedOutcome, feedOutcome } from './admin.schemas.ts';
import { errorsCsv, feedBody, feedFragment, feedsBody, feedsFragment, PAGE_SIZE, type FeedFilters } from './views/feeds.view.ts';
import { page, type Nav } from './views/layout.ts';

const FeedParams = Type.Object({ feed: Type.String({ minLength: 1, maxLength: 64 }) });

/** A feed of the admin API: the API's JSON and how it ended (`partial`: done with failed items). */
const WithOutcome = Type.Object({ outcome: FeedOutcome });
const AdminFeedSummary = Type.Intersect([FeedSummaryJson, WithOutcome]);
const AdminFeed = Type.Intersect([FeedJson, WithOutcome]);
const withOutcome = <F extends { state: string; counts: { failed: number } }>(f: F): F & { outcome: FeedOutcome } => ({
  ...f,
  outcome: feedOutcome(f),
});

/** The filter of an outcome: done means done without failed items, partial done with some. */
const byOutcome = (outcome: FeedOutcome | undefined): Pick<FeedFilter, 'state' | 'itemErrors'> =>
  outcome === 'partial'
    ? { state: 'done', itemErrors: true }
    : outcome === 'done'
      ? { state: 'done', itemErrors: false }
      : { state: outcome };

const ApiQuery = Type.Object({
  shop: Type.Optional(Type.Integer({ minimum: 1 })),
  type: Type.Optional(FeedType),
  state: Type.Optional(
    Type.Union([FeedState, Type.Literal('partial')], {
      description: 'An outcome: done (no failed item), partial (done, some items failed), queued, processing, failed',
    }),
  ),
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Feeds whose items name this sku' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

// The page's filter form sends empty fields as "", and `since` as a date-time without zone, in
// the browser's zone when its script sent that zone's offset (tz), else in UTC.
const Empty = Type.Literal('');
const PageQuery = Type.Object({
  shop: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Empty])),
  type: Type.Optional(Type.Union([FeedType, Empty])),
  state: Type.Optional(Type.Union([FeedState, Type.Literal('partial'), Empty])),
  sku: Type.Optional(Type.String({ maxLength: 100 })),
  since: Type.Optional(Type.String({ pattern: '^$|^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?$' })),
  tz: Type.Optional(Type.Union([Type.Integer({ minimum: -900, maximum: 900 }), Empty])),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  fragment: Type.Optional(Type.Literal('1')),
});

export const feedsAdmin: FastifyPluginAsyncTypebox<{
  services: { feeds: FeedService; feedRecovery: Pick<FeedRecoveryService, 'retry'>; shops: ShopService };
  nav: Nav;
  publicUrl?: string;
}> = async (app, { services, nav, publicUrl }) => {
  const feeds = services.feeds;

  app.get(
    '/admin/api/feeds',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Feeds of every shop, newest first, filtered by shop, type, state, time or sku',
        querystring: ApiQuery,
        response: { 200: Type.Object({ count: Type.Integer(), results: Type.Array(AdminFeedSummary) }) },
      },
    },
    async (request) => {
      const q = request.query;
      const filter: FeedFilter = {
        shopPk: q.shop,
        type: q.type,
        ...byOutcome(q.state),
        sku: q.sku,
        since: q.since === undefined ? undefined : new Date(q.since),
        until: q.until === undefined ? undefined : new Date(q.until),
        limit: q.limit ?? 50,
        offset: q.offset ?? 0,
      };
      const { count, results } = await feeds.listAll(filter);
      const base = baseUrl(request, publicUrl);
      return { count, results: results.map((f) => withOutcome(present(f, base, true))) };
    },
  );

  app.get(
    '/admin/api/feeds/:feed',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'One feed of any shop with its item results and errors',
        params: FeedParams,
        response: { 200: AdminFeed },
      },
    },
    async (request) => withOutcome(present(await feeds.getAny(request.params.feed), baseUrl(request, publicUrl))),
  );

  app.get(
    '/admin/api/feeds/:feed/errors.csv',
    {
      config: { ...apiConfig, html: true },
      schema: {
        tags,
        security,
        summary: 'The item errors of a feed as CSV (index, sku, pk, pointer, code, message)',
        params: FeedParams,
        produces: ['text/csv'],
        response: {
          200: { description: 'The CSV, a header row and one row per item error', content: { 'text/csv': { schema: { type: 'string' } } } },
        },
      },
    },
    async (request, reply) => {
      const feed = present(await feeds.getAny(request.params.feed), baseUrl(request, publicUrl));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="feed-${feed.pk}-errors.csv"`)
        .send(errorsCsv(feed));
    },
  );

  app.post(
    '/admin/api/feeds/:feed/retry',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Queue a failed or stuck feed again (409 when done); it resumes after its last committed chunk',
        params: FeedParams,
        response: { 202: Type.Intersect([AdminFeedSummary, Type.Object({ detail: Type.String() })]) },
      },
    },
    async (request, reply) => {
      const feed = await services.feedRecovery.retry(request.params.feed);
      request.log.info({ feedPk: feed.pk }, 'admin retried a feed');
      return reply
        .code(202)
        .send({ ...withOutcome(present(feed, baseUrl(request, publicUrl), true)), detail: `Feed ${feed.pk} was queued again.` });
    },
  );

  app.get('/admin/feeds', { config: pageConfig, schema: { hide: true, querystring: PageQuery } }, async (request, reply) => {
    const q = request.query;
    const f: FeedFilters = {
      shop: q.shop === '' ? undefined : q.shop,
      type: q.type || undefined,
      state: q.state || undefined,
      sku: q.sku?.trim() || undefined,
      since: q.since || undefined,
      tz: q.since && typeof q.tz === 'number' ? q.tz : undefined,
      page: q.page ?? 1,
    };
    const list = await feeds.listAll({
      shopPk: f.shop,
      type: f.type as FeedFilter['type'],
      ...byOutcome(f.state as FeedOutcome | undefined),
      sku: f.sku,
      since: f.since === undefined ? undefined : new Date(Date.parse(`${f.since}Z`) + (f.tz ?? 0) * 60_000),
      limit: PAGE_SIZE,
      offset: (f.page - 1) * PAGE_SIZE,
    });
    const names = await shopNames(services);
    const shown = { count: list.count, results: list.results.map((x) => present(x, baseUrl(request, publicUrl), true)) };
    return sendHtml(reply, q.fragment === '1' ? feedsFragment(shown, f, names) : page('Feeds', 'feeds', nav, feedsBody(shown, f, names)));
  });

  app.get(
    '/admin/feeds/:feed',
    {
      config: pageConfig,
      schema: { hide: true, params: FeedParams, querystring: Type.Object({ fragment: Type.Optional(Type.Literal('1')) }) },
    },
    async (request, reply) => {
      const feed = present(await feeds.getAny(request.params.feed), baseUrl(request, publicUrl));
      const names = await shopNames(services);
      return sendHtml(
        reply,
        request.query.fragment === '1'
          ? feedFragment(feed, names)
          : page(`Feed ${feed.pk.slice(0, 8)}`, 'feeds', nav, feedBody(feed, names)),
      );
    },
  );
};
