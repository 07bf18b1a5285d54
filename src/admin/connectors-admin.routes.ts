// Admin API and dashboard pages of connectors: list with recent runs, runs of one, run now,
// enable and disable. The rules are the connector service's; this only exposes them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ConfigError } from '../config.ts';
import { AppError } from '../errors.ts';
import { ConnectorRun, ConnectorSummary } from '../connectors/host/connectors.schemas.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import { apiConfig, Fragment, pageConfig, security, sendHtml, shopNames, tags } from './admin-http.ts';
import { connectorBody, connectorFragment, connectorsBody, connectorsFragment, needsAttention } from './views/connectors.view.ts';
import { page, type Nav } from './views/layout.ts';

const Name = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });

export const connectorsAdmin: FastifyPluginAsyncTypebox<{
  services: { connectors: ConnectorService; shops: ShopService };
  nav: Nav;
}> = async (app, { services, nav }) => {
  const connectors = services.connectors;

  app.get(
    '/admin/api/connectors',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Connectors with their last runs',
        querystring: Type.Object({ runs: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 10 })) }),
        response: { 200: Type.Array(ConnectorSummary) },
      },
    },
    async (request) => connectors.list({ lastRuns: request.query.runs ?? 10 }),
  );

  app.get(
    '/admin/api/connectors/:name/runs',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Runs of one connector, newest first',
        params: Name,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })) }),
        response: { 200: Type.Array(ConnectorRun) },
      },
    },
    async (request) => connectors.runs(request.params.name, { limit: request.query.limit }),
  );

  app.post(
    '/admin/api/connectors/:name/run',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Queue one run now (202); not queued while one is queued or running, or while throttled',
        params: Name,
        response: { 202: Type.Object({ queued: Type.Boolean(), job_id: Type.Union([Type.String(), Type.Null()]), detail: Type.String() }) },
      },
    },
    async (request, reply) => {
      const r = await connectors.runNow(request.params.name);
      request.log.info({ connector: request.params.name, queued: r.queued, jobId: r.job_id }, 'admin asked for a connector run');
      const detail = r.queued
        ? `A run of ${request.params.name} was queued.`
        : r.throttled_until !== undefined
          ? `${request.params.name} is throttled by its remote API until ${r.throttled_until} (Retry-After): not queued.`
          : `A run of ${request.params.name} is already queued or running.`;
      return reply.code(202).send({ ...r, detail });
    },
  );

  app.post(
    '/admin/api/connectors/reload',
    {
      config: apiConfig,
      schema: {
        tags,
        security,
        summary: 'Read the connectors file again in this process (as SIGHUP does); a bad file changes nothing (400 naming every problem)',
        response: {
          200: Type.Object({
            connectors: Type.Array(Type.String()),
            added: Type.Array(Type.String()),
            removed: Type.Array(Type.String()),
            changed: Type.Array(Type.String()),
            detail: Type.String(),
          }),
        },
      },
    },
    async (request) => {
      try {
        const r = connectors.reload();
        request.log.info({ ...r }, 'admin reloaded the connectors file');
        const changes = (Object.entries({ added: r.added, changed: r.changed, removed: r.removed }) as [string, string[]][])
          .filter(([, names]) => names.length > 0)
          .map(([what, names]) => `${what} ${names.join(', ')}`);
        return {
          ...r,
          detail: `Connectors file reloaded in this process (pid ${process.pid}): ${r.connectors.length} connector${r.connectors.length === 1 ? '' : 's'}${changes.length === 0 ? ', nothing changed' : `; ${changes.join('; ')}`}. Processes of other roles reload on SIGHUP.`,
        };
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        throw new AppError(
          'invalid_connectors_file',
          400,
          `The connectors file has ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing was changed: ${error.problems.join('; ')}`,
          { extra: { problems: error.problems } },
        );
      }
    },
  );

  for (const enabled of [true, false]) {
    app.post(
      `/admin/api/connectors/:name/${enabled ? 'enable' : 'disable'}`,
      {
        config: apiConfig,
        schema: {
          tags,
          security,
          summary: enabled ? 'Enable a connector (overrides the file)' : 'Disable a connector: no scheduled runs, receivers answer 503',
          params: Name,
          response: { 200: Type.Intersect([ConnectorSummary, Type.Object({ detail: Type.String() })]) },
        },
      },
      async (request) => ({
        ...(await connectors.setEnabled(request.params.name, enabled)),
        detail: `${request.params.name} is ${enabled ? 'enabled' : 'disabled'}.`,
      }),
    );
  }

  // ?attention=1: only the connectors whose last run failed, ended partial or was skipped (the overview links here).
  app.get(
    '/admin/connectors',
    {
      config: pageConfig,
      schema: { hide: true, querystring: Type.Intersect([Fragment, Type.Object({ attention: Type.Optional(Type.Literal('1')) })]) },
    },
    async (request, reply) => {
      const [all, names] = await Promise.all([connectors.list({ lastRuns: 20 }), shopNames(services)]);
      const attention = request.query.attention === '1';
      const list = attention ? all.filter(needsAttention) : all;
      const view = { list, names, attention, file: connectors.file };
      return sendHtml(
        reply,
        request.query.fragment === '1' ? connectorsFragment(view) : page('Connectors', 'connectors', nav, connectorsBody(view)),
      );
    },
  );

  app.get(
    '/admin/connectors/:name',
    { config: pageConfig, schema: { hide: true, params: Name, querystring: Fragment } },
    async (request, reply) => {
      const [c, runs, names, lastInput] = await Promise.all([
        connectors.get(request.params.name),
        connectors.runs(request.params.name, { limit: 100 }),
        shopNames(services),
        connectors.lastInput(request.params.name),
      ]);
      const view = { c, runs, names, file: connectors.file, lastInput };
      return sendHtml(
        reply,
        request.query.fragment === '1' ? connectorFragment(view) : page(`Connector ${c.name}`, 'connectors', nav, connectorBody(view)),
      );
    },
  );
};
