// Small pieces shared by the dashboard's page routes.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
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
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

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
