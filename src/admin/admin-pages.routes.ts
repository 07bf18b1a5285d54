// The dashboard at /admin/: server-rendered pages (a little script keeps them live), the login
// page that sets the session cookie, and the two static assets.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import { JobListQuery, LogQueryT } from './admin.schemas.ts';
import { clearedSessionCookie, LOGIN_PATH, safeNext, sessionCookie } from './admin-session.ts';
import { jobsBody, jobsFragment, type JobsView } from './views/jobs.view.ts';
import { page, loginPage } from './views/layout.ts';
import { logsBody } from './views/logs.view.ts';
import { overviewBody, overviewFragment } from './views/overview.view.ts';
import { shopsBody, shopsFragment } from './views/shops.view.ts';
import { qs } from './views/html.ts';
import { areaPages } from './area-pages.routes.ts';
import { Fragment, navOf, pageConfig, sendHtml } from './admin-http.ts';

const assets: Record<string, { type: string; body: string }> = {
  'admin.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/admin.css', import.meta.url), 'utf8') },
  'admin.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/admin.js', import.meta.url), 'utf8') },
};

export const adminPageRoutes: FastifyPluginAsyncTypebox<{ services: Services; adminToken: string | undefined; publicUrl?: string }> = async (app, { services, adminToken, publicUrl }) => {
  const nav = navOf(services);
  const a = services.admin;

  // The dashboard polls its pages every few seconds: those reads are logged at warn and above
  // only, so the log (and the Logs page) shows what people did, not the polling.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.logLevel && methods.every((m) => m === 'GET' || m === 'HEAD')) route.logLevel = 'warn';
  });

  // The login form posts application/x-www-form-urlencoded; only this plugin accepts it.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/admin/assets/:file', {
    config: { html: true },
    schema: { hide: true, params: Type.Object({ file: Type.String() }) },
  }, async (request, reply) => {
    const asset = assets[request.params.file];
    if (asset === undefined) throw new AppError('not_found', 404, `No asset ${request.params.file}.`);
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
  });

  app.get(LOGIN_PATH, {
    config: { html: true },
    schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
  }, async (request, reply) => sendHtml(reply, loginPage(null, safeNext(request.query.next))));

  app.post(LOGIN_PATH, {
    config: { html: true },
    schema: { hide: true, body: Type.Object({ token: Type.String({ maxLength: 1000 }), next: Type.Optional(Type.String({ maxLength: 2000 })) }) },
  }, async (request, reply) => {
    const next = safeNext(request.body.next);
    if (adminToken === undefined) return sendHtml(reply, loginPage('The admin interface is off: set WAYBILL_ADMIN_TOKEN and restart.', next), 401);
    const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
    if (!timingSafeEqual(digest(request.body.token), digest(adminToken))) {
      request.log.warn('admin login refused: wrong token');
      return sendHtml(reply, loginPage('That token is not the admin token.', next), 401);
    }
    request.log.info('admin logged in');
    reply.header('set-cookie', sessionCookie(adminToken, request.protocol === 'https'));
    return reply.redirect(next, 303);
  });

  app.post('/admin/logout', { config: { html: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('set-cookie', clearedSessionCookie).redirect(LOGIN_PATH, 303));

  app.get('/admin', { config: { html: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/', 301));

  app.get('/admin/', { config: pageConfig, schema: { hide: true, querystring: Fragment } }, async (request, reply) => {
    const o = await a.overview(3);
    return sendHtml(reply, request.query.fragment === '1' ? overviewFragment(o) : page('Overview', 'overview', nav, overviewBody(o)));
  });

  app.get('/admin/jobs', {
    config: pageConfig,
    schema: { hide: true, querystring: Type.Intersect([Fragment, JobListQuery, Type.Object({ queue: Type.Optional(Type.String({ maxLength: 200 })) })]) },
  }, async (request, reply) => {
    const { queue, state, fragment } = request.query;
    const queues = await a.queues();
    const chosen = queue !== undefined && queues.some((q) => q.name === queue) ? queue : null;
    const view: JobsView = { queues, queue: chosen, state: state ?? null, jobs: chosen === null ? [] : await a.jobs(chosen, { state, limit: 100 }) };
    if (fragment === '1') return sendHtml(reply, jobsFragment(view));
    return sendHtml(reply, page('Jobs', 'jobs', nav, jobsBody(view, `/admin/jobs${qs({ queue: chosen, state, fragment: '1' })}`)));
  });

  app.get('/admin/logs', { config: pageConfig, schema: { hide: true, querystring: LogQueryT } }, async (request, reply) => {
    const query = Object.fromEntries(Object.entries(request.query).filter(([, v]) => v !== '')) as typeof request.query;
    return sendHtml(reply, page('Logs', 'logs', nav, logsBody(query, a.logs({ ...query, limit: query.limit ?? 300 }))));
  });

  app.get('/admin/shops', { config: pageConfig, schema: { hide: true, querystring: Fragment } }, async (request, reply) => {
    const [shops, keys] = await Promise.all([services.shops.list(), services.shops.listKeys()]);
    return sendHtml(reply, request.query.fragment === '1' ? shopsFragment(shops, keys) : page('Shops & keys', 'shops', nav, shopsBody(shops, keys)));
  });

  await app.register(areaPages, { services, nav, publicUrl });
};
