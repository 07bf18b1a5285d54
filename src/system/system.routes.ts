// Operational endpoints: liveness, readiness, the OpenAPI document. No key (`security: []`:
// the document's default is the shop key).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { HealthService } from './health.service.ts';
import { sendProblem } from '../http/problem.ts';

export const systemRoutes: FastifyPluginAsyncTypebox<{ services: { health: HealthService } }> = async (app, { services }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['system'],
        summary: 'The process is up',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['system'],
        summary: 'The database and the job queue answer (503 while they do not)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ready'), checks: Type.Record(Type.String(), Type.String()) }) },
      },
    },
    async (request, reply) => {
      const r = await services.health.readiness();
      if (!r.ready) {
        return sendProblem(request, reply, 503, 'not_ready', 'The database or the job queue is unreachable.', {
          headers: { 'retry-after': '5' },
          extra: { checks: r.checks },
        });
      }
      return { status: 'ready' as const, checks: r.checks };
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
