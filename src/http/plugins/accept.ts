// Every API reply is JSON: an Accept header that rules JSON out gets 406.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../problem.ts';

/** True when the Accept header admits application/json (or problem+json). */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    return range === '*/*' || range === 'application/*' || range === 'application/json' || range.endsWith('+json');
  });
}

export const acceptPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.html === true) return;
    if (!acceptsJson(request.headers.accept)) {
      return sendProblem(request, reply, 406, 'not_acceptable', 'This API answers application/json only.');
    }
  });
});
