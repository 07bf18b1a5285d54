// Cross-site request forgery guard of the dashboard. A state-changing request to any /admin
// route that a browser could send with the session cookie must show it comes from the
// dashboard's own origin: `Sec-Fetch-Site: same-origin`, or, from a browser that does not send
// that header, an `Origin` of this server. Anything else is 403. Requests with a Bearer token
// (scripts) need no such proof: a page of another site cannot add that header (no CORS here),
// and such a request is judged by its token alone, never by a cookie.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../admin/admin-session.ts';
import { sendProblem } from '../problem.ts';
import { tokenOf } from './auth.ts';

export interface SameOriginOptions {
  /** PUBLIC_URL: its origin counts as the server's own. */
  publicUrl: string | undefined;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * 'same' when the browser says the request comes from this server's origin, 'other' when it
 * says otherwise, 'unknown' when it says nothing (not a browser, or one from before 2020).
 */
export function requestSite(request: FastifyRequest, publicUrl: string | undefined): 'same' | 'other' | 'unknown' {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' ? 'same' : 'other';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return 'unknown';
  const given = originOf(origin);
  if (given === undefined || given === 'null') return 'other';
  const own = originOf(`${request.protocol}://${request.host}`);
  if (given === own || (publicUrl !== undefined && given === originOf(publicUrl))) return 'same';
  // Behind a TLS proxy that is not trusted, this server sees http while the page is https:
  // the same host and port is still this server.
  if (request.protocol === 'http' && own !== undefined && new URL(given).host === new URL(own).host) return 'same';
  return 'other';
}

export const sameOriginPlugin = fp(async (app: FastifyInstance, { publicUrl }: SameOriginOptions) => {
  app.addHook('onRequest', async (request, reply) => {
    // The matched route, not the raw URL: an escaped path (/%61dmin/...) reaches the same route.
    const route = request.routeOptions.url;
    if (SAFE.has(request.method) || route === undefined || !/^\/admin(\/|$)/.test(route)) return;
    if (tokenOf(request.headers.authorization, 'Bearer') !== undefined) return;
    const site = requestSite(request, publicUrl);
    if (site === 'same') return;
    // Saying nothing about its origin is fine for a request without a session (auth answers
    // 401 to it, or it is a script's login); with the session cookie, it is refused.
    if (site === 'unknown' && request.cookies[SESSION_COOKIE] === undefined) return;
    request.log.warn(
      { origin: request.headers.origin, secFetchSite: request.headers['sec-fetch-site'] },
      'cross-origin admin request refused',
    );
    return sendProblem(
      request,
      reply,
      403,
      'cross_origin',
      'Admin actions are accepted from the dashboard\'s own pages only (or with "Authorization: Bearer <token>").',
    );
  });
});
