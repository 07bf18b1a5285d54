// The Allow header on every reply of a path, OPTIONS answering with it, and 405 (with it)
// for every other method.
import fp from 'fastify-plugin';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendProblem } from '../problem.ts';

/**
 * Methods the router knows besides Fastify's own, so they reach a path's 405 instead of a 404:
 * WebDAV's (a scanner's PROPFIND), each with a body allowed. TRACE is Fastify's already.
 */
const WEBDAV = ['PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'SEARCH', 'REPORT'];

/** Makes every method of WEBDAV routable; call once, before any route. */
export function routeEveryMethod(app: FastifyInstance): void {
  for (const m of WEBDAV) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });
}

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
  const others = app.supportedMethods.filter((m) => m !== 'OPTIONS' && !allowed.has(m)) as HTTPMethods[];
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
