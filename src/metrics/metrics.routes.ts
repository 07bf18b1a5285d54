// GET /metrics (Prometheus text format) and the hook that times every HTTP reply by route.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { metrics } from './metrics.ts';

export const metricsRoutes = fp(async (app: FastifyInstance) => {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern keeps the label set small: /shops/:shop/feeds/, not every shop's URL.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      // Prometheus asks for text/plain or OpenMetrics, not JSON.
      config: { html: true },
      // Scraped every few seconds: no request lines unless something goes wrong.
      logLevel: 'warn',
      schema: {
        tags: ['system'],
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
        security: [],
        response: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.render();
      return reply.type(contentType).send(body);
    },
  );
});
