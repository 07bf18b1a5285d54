// Admin API and dashboard pages of connectors: list with recent runs, runs of one, run now,
// enable and disable. The rules are the connector service's; this only exposes them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ConnectorRun, ConnectorSummary } from '../connectors/host/connectors.schemas.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { apiConfig, Fragment, pageConfig, security, sendHtml, shopNames, tags } from './admin-http.ts';
import { connectorBody, connectorFragment, connectorsBody, connectorsFragment } from './views/connectors.view.ts';
import { page, type Nav } from './views/layout.ts';

const Name = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });

export const connectorsAdmin: FastifyPluginAsyncTypebox<{ services: { connectors: ConnectorService; shops: ShopService }; nav: Nav }> = async (app, { services, nav }) => {
  const connectors = services.connectors;

  app.get('/admin/api/connectors', {
    config: apiConfig,
    schema: { tags, security, summary: 'Connectors with their last runs', querystring: Type.Object({ runs: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 10 })) }), response: { 200: Type.Array(ConnectorSummary) } },
  }, async (request) => connectors.list({ lastRuns: request.query.runs ?? 10 }));

  app.get('/admin/api/connectors/:name/runs', {
    config: apiConfig,
    schema: { tags, security, summary: 'Runs of one connector, newest first', params: Name, querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })) }), response: { 200: Type.Array(ConnectorRun) } },
  }, async (request) => connectors.runs(request.params.name, { limit: request.query.limit }));

  app.post('/admin/api/connectors/:name/run', {
    config: apiConfig,
    schema: {
      tags, security, summary: 'Queue one run now (202); not queued while one is queued or running, or while throttled', params: Name,
      response: { 202: Type.Object({ queued: Type.Boolean(), job_id: Type.Union([Type.String(), Type.Null()]), detail: Type.String() }) },
    },
  }, async (request, reply) => {
    const r = await connectors.runNow(request.params.name);
    request.log.info({ connector: request.params.name, queued: r.queued, jobId: r.job_id }, 'admin asked for a connector run');
    const detail = r.queued ? `A run of ${request.params.name} was queued.`
      : r.throttled_until !== undefined ? `${request.params.name} is throttled by its remote API until ${r.throttled_until} (Retry-After): not queued.`
        : `A run of ${request.params.name} is already queued or running.`;
    return reply.code(202).send({ ...r, detail });
  });

  for (const enabled of [true, false]) {
    app.post(`/admin/api/connectors/:name/${enabled ? 'enable' : 'disable'}`, {
      config: apiConfig,
      schema: { tags, security, summary: enabled ? 'Enable a connector (overrides the file)' : 'Disable a connector: no scheduled runs, receivers answer 503', params: Name, response: { 200: Type.Intersect([ConnectorSummary, Type.Object({ detail: Type.String() })]) } },
    }, async (request) => ({ ...(await connectors.setEnabled(request.params.name, enabled)), detail: `${request.params.name} is ${enabled ? 'enabled' : 'disabled'}.` }));
  }

  app.get('/admin/connectors', { config: pageConfig, schema: { hide: true, querystring: Fragment } }, async (request, reply) => {
    const [list, names] = await Promise.all([connectors.list({ lastRuns: 20 }), shopNames(services)]);
    return sendHtml(reply, request.query.fragment === '1' ? connectorsFragment(list, names) : page('Connectors', 'connectors', nav, connectorsBody(list, names)));
  });

  app.get('/admin/connectors/:name', { config: pageConfig, schema: { hide: true, params: Name, querystring: Fragment } }, async (request, reply) => {
    const [c, runs, names] = await Promise.all([connectors.get(request.params.name), connectors.runs(request.params.name, { limit: 50 }), shopNames(services)]);
    return sendHtml(reply, request.query.fragment === '1' ? connectorFragment(c, runs, names) : page(`Connector ${c.name}`, 'connectors', nav, connectorBody(c, runs, names)));
  });
};
