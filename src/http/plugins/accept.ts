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
    if (request.routeOptions.config?.html === true || request.routeOptions.config?.produces !== undefined) return;
    if (!acceptsJson(request.headers.accept)) {
      return sendProblem(request, reply, 406, 'not_acceptable', 'This API answers application/json only.');
    }
  });
});

/**
 * Of the media types `offered` (the first is the default), the one the Accept header prefers
 * (highest q, then the order sent); undefined when it admits none. No Accept, `*` + `/*` or a
 * matching `type/*`: the first offered that matches.
 */
export function preferredType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { range, q: q === undefined ? 1 : Number(q.slice(2)), index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { range } of ranges) {
    const match = offered.find((t) => range === t || range === '*/*' || (range.endsWith('/*') && t.startsWith(range.slice(0, -1))));
    if (match !== undefined) return match;
  }
  return undefined;
}
