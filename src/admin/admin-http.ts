// Small pieces shared by the dashboard's page routes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { preferredType } from '../http/plugins/accept.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { Html, ShopNames } from './views/html.ts';
import type { Nav, Section } from './views/layout.ts';

/** A dashboard page: admin session (or Bearer), HTML allowed, redirect to the login page otherwise. */
export const pageConfig = { auth: 'admin' as const, html: true };
export const apiConfig = { auth: 'admin' as const };
export const tags = ['admin'];
export const security = [{ adminBearer: [] }];

/** `?fragment=1`: only the page's live region, for the script that refreshes it. */
export const Fragment = Type.Object({ fragment: Type.Optional(Type.Literal('1')) });

/**
 * The dashboard loads only its own script and stylesheet (no CDN), is never framed, and its
 * pages are never cached (they show live state).
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

/** A path of the admin API (/admin/api, /admin/api/...), %-escapes read: it always answers JSON. */
export function isApiPath(url: string): boolean {
  const path = url.split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  return /^\/admin\/api(\/|$)/.test(decoded);
}

/**
 * A browser opening a dashboard page: GET or HEAD outside the admin API, with an Accept header
 * that prefers HTML to JSON. A browser's navigation lists text/html first (any type at a lower
 * q); curl accepts any type alike and the dashboard's script asks for JSON: they are not pages.
 */
export const wantsPage = (request: FastifyRequest): boolean =>
  (request.method === 'GET' || request.method === 'HEAD') &&
  !isApiPath(request.url) &&
  preferredType(request.headers.accept, ['application/json', 'text/html']) === 'text/html';

export const sendHtml = (reply: FastifyReply, body: string | Html, status = 200): FastifyReply =>
  reply.code(status).type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(String(body));

/** Sections shown in the navigation: the areas whose services this process has. */
export function navOf(services: object): Nav {
  const has = (name: string): boolean => (services as Record<string, unknown>)[name] !== undefined;
  const sections: Section[] = ['overview'];
  if (has('feeds')) sections.push('feeds');
  sections.push('jobs');
  if (has('connectors')) sections.push('connectors');
  if (has('orders')) sections.push('orders');
  sections.push('webhooks', 'logs', 'shops');
  return { sections };
}

/** Every shop's name by pk, for tables that show shops by name. */
export const shopNames = async (services: { shops: ShopService }): Promise<ShopNames> =>
  new Map((await services.shops.list()).map((s) => [s.pk, s.name]));
