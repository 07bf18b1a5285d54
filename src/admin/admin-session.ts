// The dashboard's login cookie (@fastify/cookie). It carries a random session id, signed with a
// key derived from the admin token: a forged value is refused without a database query, and
// changing WAYBILL_ADMIN_TOKEN ends every session. The session itself lives server-side (see
// AdminSessionService): logout and expiry end it on every replica.
import { createHmac, randomBytes } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MAX_SECONDS } from '../admin-sessions/admin-sessions.service.ts';

export const SESSION_COOKIE = 'waybill_admin';
export const LOGIN_PATH = '/admin/login';

/**
 * The cookie signing key. Without an admin token nobody can log in; a random key then keeps
 * every cookie refused.
 */
export const cookieSecret = (adminToken: string | undefined): string =>
  adminToken === undefined
    ? randomBytes(32).toString('hex')
    : createHmac('sha256', adminToken).update('waybill admin cookie v2').digest('hex');

/**
 * Only the dashboard's paths, never read by scripts, never sent to another site. Secure when
 * the request came over TLS: directly, or through a proxy WAYBILL_TRUST_PROXY trusts.
 */
const cookieOptions = (request: FastifyRequest): CookieSerializeOptions => ({
  path: '/admin',
  httpOnly: true,
  sameSite: 'strict',
  secure: request.protocol === 'https',
});

export const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, id: string): FastifyReply =>
  reply.setCookie(SESSION_COOKIE, id, { ...cookieOptions(request), maxAge: SESSION_MAX_SECONDS, signed: true });

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));

/** The session id of the request's cookie when its signature holds, else undefined. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const raw = request.cookies[SESSION_COOKIE];
  if (raw === undefined || raw === '') return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value !== null && unsigned.value !== '' ? unsigned.value : undefined;
}

/** Where a page request without a session goes: the login page, then back (same-site paths only). */
export const loginRedirect = (url: string): string => `${LOGIN_PATH}?next=${encodeURIComponent(safeNext(url))}`;

export const safeNext = (next: string | undefined): string =>
  next !== undefined && /^\/admin(\/|$)/.test(next) && !next.startsWith('//') && !next.includes('\\') ? next : '/admin/';
