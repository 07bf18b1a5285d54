// /admin/api/...: the admin API (JSON), behind `Authorization: Bearer <WAYBILL_ADMIN_TOKEN>`
// or the dashboard's session cookie. Overview, jobs, logs, shops and keys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ShopService } from '../shops/shops.service.ts';
import type { AdminService } from './admin.service.ts';
import { ApiKey, CreatedApiKey, CreatedShop, RotatedSecret, Shop, ShopCreate } from '../shops/shops.schemas.ts';
import {
  ActionOut,
  JobListQuery,
  JobOut,
  JobParams,
  KeyCreateIn,
  KeyListQuery,
  KeyParams,
  LogQueryT,
  LogsOut,
  OverviewOut,
  OverviewQuery,
  QueueOut,
  QueueParams,
} from './admin.schemas.ts';

const admin = { auth: 'admin' as const };
const tags = ['admin'];
const security = [{ adminBearer: [] }];

export const adminApiRoutes: FastifyPluginAsyncTypebox<{ services: { shops: ShopService; admin: AdminService } }> = async (
  app,
  { services },
) => {
  const a = services.admin;

  // Reads are polled by the dashboard: logged at warn and above only; actions stay at info.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.logLevel && methods.every((m) => m === 'GET' || m === 'HEAD')) route.logLevel = 'warn';
  });

  app.get(
    '/admin/api/overview',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Figures and charts of the last hours',
        querystring: OverviewQuery,
        response: { 200: OverviewOut },
      },
    },
    async (request) => a.overview(request.query.hours),
  );

  app.get(
    '/admin/api/queues',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Job queues with their counts (dead-letter queues included)',
        response: { 200: Type.Array(QueueOut) },
      },
    },
    async () => a.queues(),
  );

  app.get(
    '/admin/api/queues/:queue/jobs',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Jobs of a queue, newest first, optionally of one state',
        params: QueueParams,
        querystring: JobListQuery,
        response: { 200: Type.Array(JobOut) },
      },
    },
    async (request) => a.jobs(request.params.queue, request.query),
  );

  app.get(
    '/admin/api/jobs',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Jobs of every queue, newest or oldest first; q: only those with this id or text in their data',
        querystring: Type.Intersect([JobListQuery, Type.Object({ q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) })]),
        response: { 200: Type.Array(JobOut) },
      },
    },
    async (request) => a.searchJobs(request.query),
  );

  app.get(
    '/admin/api/queues/:queue/jobs/:id',
    {
      config: admin,
      schema: { tags, security, summary: 'One job with its data, attempts and last error', params: JobParams, response: { 200: JobOut } },
    },
    async (request) => a.job(request.params.queue, request.params.id),
  );

  app.post(
    '/admin/api/queues/:queue/jobs/:id/retry',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Run a failed or dead-lettered job again (409 in another state)',
        params: JobParams,
        response: { 200: ActionOut },
      },
    },
    async (request) => a.retryJob(request.params.queue, request.params.id),
  );

  app.post(
    '/admin/api/queues/:queue/jobs/:id/cancel',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Cancel a waiting job (409 once it runs or ended)',
        params: JobParams,
        response: { 200: ActionOut },
      },
    },
    async (request) => a.cancelJob(request.params.queue, request.params.id),
  );

  app.get(
    '/admin/api/logs',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Recent log lines of every process, filtered by level, request, feed, connector run, job or text',
        querystring: LogQueryT,
        response: { 200: LogsOut },
      },
    },
    async (request) => a.logs(request.query),
  );

  app.get(
    '/admin/api/shops',
    {
      config: admin,
      schema: { tags, security, summary: 'Every shop', response: { 200: Type.Array(Shop) } },
    },
    async () => services.shops.list(),
  );

  app.post(
    '/admin/api/shops',
    {
      // Not idempotent: a replay would have to store the webhook secret to answer it again.
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Create a shop: its webhook secret is in this reply only',
        body: ShopCreate,
        response: { 201: CreatedShop },
      },
    },
    async (request, reply) => reply.code(201).send(await services.shops.create(request.body)),
  );

  app.post(
    '/admin/api/shops/:shop/rotate-secret',
    {
      config: admin,
      schema: {
        tags,
        security,
        params: Type.Object({ shop: Type.Integer({ minimum: 1 }) }),
        response: { 200: RotatedSecret },
        summary: 'A new webhook secret for the shop, in this reply only (the old one still signs webhook-signature for 24 h)',
      },
    },
    async (request) => services.shops.rotateSecret(request.params.shop),
  );

  app.get(
    '/admin/api/keys',
    {
      config: admin,
      schema: {
        tags,
        security,
        summary: 'API keys (prefixes only), of one shop with ?shop=',
        querystring: KeyListQuery,
        response: { 200: Type.Array(ApiKey) },
      },
    },
    async (request) => services.shops.listKeys(request.query.shop),
  );

  app.post(
    '/admin/api/keys',
    {
      // Not idempotent on purpose: a replay would have to store the secret to answer it again.
      config: admin,
      schema: {
        tags,
        security,
        summary: 'Create a key for a shop: the secret is in this reply only',
        body: KeyCreateIn,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => reply.code(201).send(await services.shops.createKey(request.body.shop_pk, request.body.label ?? null)),
  );

  app.post(
    '/admin/api/keys/:prefix/revoke',
    {
      config: admin,
      schema: { tags, security, summary: 'Revoke a key (409 when already revoked)', params: KeyParams, response: { 200: ApiKey } },
    },
    async (request) => services.shops.revokeKey(request.params.prefix),
  );
};
