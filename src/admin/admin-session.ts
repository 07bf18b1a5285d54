// The dashboard's login cookie. Its value is derived from the admin token (HMAC), so the token
// itself never sits in the browser, and changing WAYBILL_ADMIN_TOKEN ends every session.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'waybill_admin';
/** Session length, seconds: a working day. */
export const SESSION_MAX_AGE = 12 * 3_600;
export const LOGIN_PATH = '/admin/login';

export const sessionValue = (adminToken: string): string =>
  createHmac('sha256', adminToken).update('waybill admin session v1').digest('base64url');

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** True when the request's cookie header holds a session of this admin token. */
export function hasAdminSession(cookieHeader: string | undefined, adminToken: string): boolean {
  const given = readCookie(cookieHeader, SESSION_COOKIE);
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(sessionValue(adminToken));
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sessionCookie(adminToken: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionValue(adminToken)}; Path=/admin; Max-Age=${SESSION_MAX_AGE}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = `${SESSION_COOKIE}=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict`;

/** Where a page request without a session goes: the login page, then back (same-site paths only). */
export const loginRedirect = (url: string): string =>
  `${LOGIN_PATH}?next=${encodeURIComponent(safeNext(url))}`;

export const safeNext = (next: string | undefined): string =>
  next !== undefined && /^\/admin(\/|$)/.test(next) && !next.startsWith('//') && !next.includes('\\') ? next : '/admin/';
