// The Allow header on every reply of a path, OPTIONS answering with it, and 405 (with it)
// for every other method.
import fp from 'fastify-plugin';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendProblem } from '../problem.ts';

const ALL: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'];

export const methodsPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onSend', async (request, reply) => {
    const allow = request.routeOptions.config?.allow;
    if (allow !== undefined) reply.header('allow', allow);
  });
});

/** Registers OPTIONS and the 405 replies of a path whose Allow header is `allow`. */
export function allowOnly(app: FastifyInstance, url: string, allow: string): void {
  const allowed = new Set(allow.split(',').map((m) => m.trim().toUpperCase()));
  if (allowed.has('GET')) allowed.add('HEAD');
  app.route({
    method: 'OPTIONS',
    url,
    config: { allow },
    schema: { hide: true },
    handler: async (_request, reply) => reply.code(204).send(),
  });
  const others = ALL.filter((m) => !allowed.has(m));
  if (others.length === 0) return;
  app.route({
    method: others,
    url,
    config: { allow },
    schema: { hide: true },
    handler: async (request, reply) =>
      sendProblem(request, reply, 405, 'method_not_allowed', `${request.method} is not allowed here; allowed: ${allow}.`),
  });
}
