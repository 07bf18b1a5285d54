// Authorization: Token <key> for shop routes (401 + WWW-Authenticate when missing or wrong;
// another shop's path answers 404, as if it did not exist). Bearer <admin token> for /admin.
import { timingSafeEqual, createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ShopService } from '../../shops/shops.service.ts';
import { sendProblem } from '../problem.ts';
import { rateLimiter } from '../../system/rate-limit.ts';
import type { AdminSessionService } from '../../admin-sessions/admin-sessions.service.ts';
import { loginRedirect, SESSION_COOKIE, sessionIdOf } from '../../admin/admin-session.ts';
import type { AdminLoginThrottle } from '../../admin/login-throttle.ts';

export interface AuthOptions {
  shops: ShopService;
  adminToken: string | undefined;
  /** The dashboard's sessions (its cookie; see admin-session.ts). */
  sessions: AdminSessionService;
  /** Writes per key per minute; 0 = unlimited. */
  rateLimitPerMinute: number;
  /** Wrong admin tokens per client address, shared with the login form. */
  throttle: AdminLoginThrottle;
}

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Who did the work of a shop route, as feeds and order records name it: the API key's prefix. */
export const sourceOf = (request: FastifyRequest): `key:${string}` => `key:${request.principal!.keyPrefix}`;

export const tokenOf = (header: string | undefined, scheme: string): string | undefined => {
  if (header === undefined) return undefined;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header);
  return m !== null && m[1]?.toLowerCase() === scheme.toLowerCase() ? m[2] : undefined;
};

const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * Whether the request is the admin's. The API takes the Bearer token; the dashboard's pages and
 * scripts its session cookie. A request with a Bearer token is judged by it alone (the
 * same-origin check relies on it).
 */
export async function isAdmin(request: FastifyRequest, adminToken: string | undefined, sessions: AdminSessionService): Promise<boolean> {
  const given = tokenOf(request.headers.authorization, 'Bearer');
  const session = given === undefined ? sessionIdOf(request) : undefined;
  return (
    adminToken !== undefined &&
    (given !== undefined ? sameSecret(given, adminToken) : session !== undefined && (await sessions.check(session)))
  );
}

export const authPlugin = fp(async (app: FastifyInstance, { shops, adminToken, sessions, rateLimitPerMinute, throttle }: AuthOptions) => {
  app.decorateRequest('principal', null);
  // A minute's writes may come at once; then one every 60/N s.
  const limit =
    rateLimitPerMinute > 0 ? rateLimiter({ capacity: rateLimitPerMinute, everyMs: 60_000 / rateLimitPerMinute, now: Date.now }) : null;
  app.addHook('onRequest', async (request, reply) => {
    const mode = request.routeOptions.config.auth;
    if (mode === 'shop') {
      const principal = await shops.authenticate(tokenOf(request.headers.authorization, 'Token'));
      if (principal === null) {
        return sendProblem(request, reply, 401, 'unauthorized', 'Send a valid API key as "Authorization: Token <key>".', {
          headers: { 'www-authenticate': 'Token' },
        });
      }
      request.principal = principal;
      const waitMs = limit !== null && WRITES.has(request.method) ? limit.tryTake(principal.keyPrefix) : 0;
      if (waitMs > 0) {
        const wait = Math.max(1, Math.ceil(waitMs / 1000));
        return sendProblem(
          request,
          reply,
          429,
          'rate_limited',
          `This key may send ${rateLimitPerMinute} writes a minute; retry in ${wait} s.`,
          {
            headers: { 'retry-after': String(wait) },
          },
        );
      }
      const shop = (request.params as { shop?: string } | undefined)?.shop;
      if (shop !== undefined && shop !== String(principal.shopPk)) {
        return sendProblem(request, reply, 404, 'not_found', `Shop ${shop} was not found.`);
      }
    } else if (mode === 'admin') {
      // A token presented (Bearer, or a cookie this daemon did not sign) goes through the login
      // form's throttle: refused while the address is locked out, counted when wrong.
      const bearer = tokenOf(request.headers.authorization, 'Bearer');
      const forged = bearer === undefined && (request.cookies[SESSION_COOKIE] ?? '') !== '' && sessionIdOf(request) === undefined;
      const via = bearer !== undefined ? 'bearer' : 'cookie';
      if (adminToken !== undefined && (bearer !== undefined || forged)) {
        const wait = throttle.waitSeconds(request.ip);
        if (wait > 0) {
          request.log.warn({ retryAfter: wait, via }, 'admin token throttled');
          return sendProblem(
            request,
            reply,
            429,
            'too_many_attempts',
            `Too many wrong admin tokens from your address; retry in ${wait} s.`,
            {
              headers: { 'retry-after': String(wait) },
            },
          );
        }
      }
      const admin = await isAdmin(request, adminToken, sessions);
      if (!admin && adminToken !== undefined && (bearer !== undefined || forged)) {
        throttle.fail(request.ip);
        request.log.warn({ via }, 'admin token refused: wrong token');
      }
      if (!admin) {
        if (request.routeOptions.config.html === true && (request.method === 'GET' || request.method === 'HEAD')) {
          return reply.redirect(loginRedirect(request.url), 303);
        }
        return sendProblem(
          request,
          reply,
          401,
          'unauthorized',
          adminToken === undefined
            ? 'The admin interface is off: set WAYBILL_ADMIN_TOKEN.'
            : 'Send the admin token as "Authorization: Bearer <token>".',
          { headers: { 'www-authenticate': 'Bearer' } },
        );
      }
    }
  });
});
