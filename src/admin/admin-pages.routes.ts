// The dashboard at /admin/: server-rendered pages (a little script keeps them live), the login
// page that sets the session cookie, and the two static assets.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../errors.ts';
import { PROBLEM_TYPE, sendNotFound, type Problem } from '../http/problem.ts';
import { isAdmin } from '../http/plugins/auth.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import type { OrderService } from '../orders/orders.service.ts';
import type { AdminService } from './admin.service.ts';
import type { AdminSessionService } from '../admin-sessions/admin-sessions.service.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';
import type { FeedService } from '../feeds/feeds.service.ts';
import type { FeedRecoveryService } from '../feeds/feed-recovery.service.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import { JobParams, JobStateT, LogQueryT } from './admin.schemas.ts';
import { clearSessionCookie, LOGIN_PATH, loginRedirect, safeNext, sessionIdOf, setSessionCookie } from './admin-session.ts';
import { jobBody, jobFragment, jobsBody, jobsFragment, type JobsView } from './views/jobs.view.ts';
import { errorBody, page, loginPage } from './views/layout.ts';
import { logRows, logsBody, LOGS_PAGE_SIZE } from './views/logs.view.ts';
import { overviewBody, overviewFragment } from './views/overview.view.ts';
import { shopsBody, shopsFragment } from './views/shops.view.ts';
import { qs } from './views/html.ts';
import { areaPages } from './area-pages.routes.ts';
import type { AdminLoginThrottle } from './login-throttle.ts';
import { Fragment, isApiPath, navOf, PAGE_HEADERS, pageConfig, sendHtml, wantsPage } from './admin-http.ts';

export { LOGIN_ATTEMPTS, LOGIN_WINDOW_SECONDS } from './login-throttle.ts';

const assets: Record<string, { type: string; body: string }> = {
  'admin.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/admin.css', import.meta.url), 'utf8') },
  'admin.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/admin.js', import.meta.url), 'utf8') },
};

export const adminPageRoutes: FastifyPluginAsyncTypebox<{
  services: {
    shops: ShopService;
    webhooks: WebhookService;
    orders: OrderService;
    marketplaces: MarketplaceService;
    admin: AdminService;
    adminSessions: AdminSessionService;
    connectors: ConnectorService;
    feeds: FeedService;
    feedRecovery: FeedRecoveryService;
  };
  adminToken: string | undefined;
  publicUrl?: string;
  throttle: AdminLoginThrottle;
}> = async (app, { services, adminToken, publicUrl, throttle }) => {
  const nav = navOf(services);
  const a = services.admin;

  // The dashboard polls its pages every few seconds: those reads are logged at warn and above
  // only, so the log (and the Logs page) shows what people did, not the polling.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.logLevel && methods.every((m) => m === 'GET' || m === 'HEAD')) route.logLevel = 'warn';
  });

  // The login form posts application/x-www-form-urlencoded; only this plugin's routes accept it.
  await app.register(formbody, { bodyLimit: 4096 });

  // An error on a page (an unknown feed, order or job; a bad filter; a path no page has) is a
  // page too, inside the layout, with the status and text of the problem JSON the API would answer.
  const unknownPages = new WeakSet<FastifyRequest>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if ((request.routeOptions.config.html !== true && !unknownPages.has(request)) || isApiPath(request.url)) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith(PROBLEM_TYPE) || typeof payload !== 'string') return payload;
    reply.type('text/html; charset=utf-8').headers(PAGE_HEADERS);
    return page(`${reply.statusCode} ${(JSON.parse(payload) as Problem).title}`, null, nav, errorBody(JSON.parse(payload) as Problem));
  });

  app.get(
    '/admin/assets/:file',
    {
      config: { html: true },
      schema: { hide: true, params: Type.Object({ file: Type.String() }) },
    },
    async (request, reply) => {
      const asset = assets[request.params.file];
      if (asset === undefined) throw new AppError('not_found', 404, `No asset ${request.params.file}.`);
      return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
    },
  );

  app.get(
    LOGIN_PATH,
    {
      config: { html: true },
      schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
    },
    async (request, reply) => sendHtml(reply, loginPage(null, safeNext(request.query.next))),
  );

  app.post(
    LOGIN_PATH,
    {
      config: { html: true },
      schema: {
        hide: true,
        body: Type.Object({ token: Type.String({ maxLength: 1000 }), next: Type.Optional(Type.String({ maxLength: 2000 })) }),
      },
    },
    async (request, reply) => {
      const next = safeNext(request.body.next);
      if (adminToken === undefined)
        return sendHtml(reply, loginPage('The admin interface is off: set WAYBILL_ADMIN_TOKEN and restart.', next), 401);
      // Per client address (request.ip: the proxy's client only when WAYBILL_TRUST_PROXY trusts it).
      const wait = throttle.waitSeconds(request.ip);
      if (wait > 0) {
        request.log.warn({ retryAfter: wait, via: 'login form' }, 'admin login throttled');
        reply.header('retry-after', String(wait));
        return sendHtml(
          reply,
          loginPage(`Too many login attempts from your address; try again in ${Math.ceil(wait / 60)} min.`, next),
          429,
        );
      }
      const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
      if (!timingSafeEqual(digest(request.body.token), digest(adminToken))) {
        throttle.fail(request.ip);
        request.log.warn({ via: 'login form' }, 'admin login refused: wrong token');
        return sendHtml(reply, loginPage('That token is not the admin token.', next), 401);
      }
      request.log.info('admin logged in');
      setSessionCookie(request, reply, await services.adminSessions.start());
      return reply.redirect(next, 303);
    },
  );

  // Ends the session everywhere (its row goes), then forgets the cookie.
  app.post('/admin/logout', { config: { html: true }, schema: { hide: true } }, async (request, reply) => {
    const id = sessionIdOf(request);
    if (id !== undefined) await services.adminSessions.end(id);
    return clearSessionCookie(request, reply).redirect(LOGIN_PATH, 303);
  });

  // '/admin' is this page too: the router takes every path with or without its slash (app.ts).
  // ?queues=all: every queue, the empty maintenance and dead-letter ones too.
  app.get(
    '/admin/',
    {
      config: pageConfig,
      schema: { hide: true, querystring: Type.Intersect([Fragment, Type.Object({ queues: Type.Optional(Type.Literal('all')) })]) },
    },
    async (request, reply) => {
      const o = await a.overview(3);
      const all = request.query.queues === 'all';
      return sendHtml(
        reply,
        request.query.fragment === '1' ? overviewFragment(o, all) : page('Overview', 'overview', nav, overviewBody(o, all)),
      );
    },
  );

  app.get(
    '/admin/jobs',
    {
      config: pageConfig,
      schema: {
        hide: true,
        querystring: Type.Intersect([
          Fragment,
          Type.Object({
            queue: Type.Optional(Type.String({ maxLength: 200 })),
            state: Type.Optional(Type.Union([JobStateT, Type.Literal('')])),
            q: Type.Optional(Type.String({ maxLength: 200 })),
            order: Type.Optional(Type.Union([Type.Literal('newest'), Type.Literal('oldest')])),
          }),
        ]),
      },
    },
    async (request, reply) => {
      const { queue, fragment } = request.query;
      const state = request.query.state || undefined;
      const q = request.query.q?.trim() || undefined;
      const order = request.query.order ?? 'newest';
      const queues = await a.queues();
      const chosen = queue !== undefined && queues.some((x) => x.name === queue) ? queue : null;
      const jobs =
        chosen !== null
          ? await a.jobs(chosen, { state, q, order, limit: 100 })
          : q !== undefined
            ? await a.searchJobs({ state, q, order, limit: 100 })
            : [];
      const view: JobsView = { queues, queue: chosen, state: state ?? null, q: q ?? null, order, jobs };
      if (fragment === '1') return sendHtml(reply, jobsFragment(view));
      return sendHtml(
        reply,
        page(
          'Jobs',
          'jobs',
          nav,
          jobsBody(view, `/admin/jobs${qs({ queue: chosen, state, q, order: order === 'oldest' ? order : undefined, fragment: '1' })}`),
        ),
      );
    },
  );

  app.get(
    '/admin/jobs/:queue/:id',
    { config: pageConfig, schema: { hide: true, params: JobParams, querystring: Fragment } },
    async (request, reply) => {
      const job = await a.job(request.params.queue, request.params.id);
      return sendHtml(
        reply,
        request.query.fragment === '1' ? jobFragment(job) : page(`Job ${job.id.slice(0, 8)}`, 'jobs', nav, jobBody(job)),
      );
    },
  );

  // Newest first, a page at a time (?before=<seq>: older). ?fragment=1&after=<seq>: only the
  // newer rows (the live tail, put on top by the script), their last seq in x-last-seq.
  app.get(
    '/admin/logs',
    { config: pageConfig, schema: { hide: true, querystring: Type.Intersect([LogQueryT, Fragment]) } },
    async (request, reply) => {
      const { fragment, ...filters } = request.query;
      const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')) as LogQueryT;
      const logs = await a.logs({ ...query, limit: query.limit ?? (fragment === '1' ? 300 : LOGS_PAGE_SIZE) });
      if (fragment === '1') return sendHtml(reply.header('x-last-seq', String(logs.last_seq)), logRows(logs.lines).join(''));
      return sendHtml(reply, page('Logs', 'logs', nav, logsBody(query, logs)));
    },
  );

  app.get('/admin/shops', { config: pageConfig, schema: { hide: true, querystring: Fragment } }, async (request, reply) => {
    const [shops, keys] = await Promise.all([services.shops.list(), services.shops.listKeys()]);
    return sendHtml(
      reply,
      request.query.fragment === '1' ? shopsFragment(shops, keys) : page('Shops & keys', 'shops', nav, shopsBody(shops, keys)),
    );
  });

  await app.register(areaPages, { services, nav, publicUrl });

  // A path under /admin that no route matches (a mistyped address): for a browser, the 404 page
  // above, after the login page when logged out, as every page (so it cannot tell which paths
  // exist). Scripts, the admin API and every other method get the problem JSON of any unknown path.
  await app.register(
    async (scope) => {
      scope.setNotFoundHandler(async (request, reply) => {
        if (!wantsPage(request)) return sendNotFound(request, reply);
        if (!(await isAdmin(request, adminToken, services.adminSessions))) return reply.redirect(loginRedirect(request.url), 303);
        unknownPages.add(request);
        return sendNotFound(request, reply);
      });
    },
    { prefix: '/admin' },
  );
};
