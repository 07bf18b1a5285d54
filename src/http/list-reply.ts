// Lists of the marketplace API answer a bare JSON array (the real clients iterate the decoded
// body) and carry their paging in headers: `Link` (RFC 8288: first, prev, next, last) and
// `X-Total-Count`. Every list route answers through sendPage, so they all page alike.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Type, type TSchema } from 'typebox';

export interface PageWindow {
  /** 1-based. */
  page: number;
  pageSize: number;
  /** Rows matching the filters, over all pages. */
  total: number;
}

/** `?page=&page_size=` of every list: at most 1000 per page, default 100. */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  page_size: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
};

/** The 200 reply of a list: a bare array of `item`, its paging headers documented in the OpenAPI. */
export const PageOf = <T extends TSchema>(item: T, description: string) =>
  Type.Array(item, {
    description: `${description}. A bare JSON array; paging in the Link (RFC 8288: first, prev, next, last) and X-Total-Count headers.`,
    headers: {
      link: {
        description: 'RFC 8288 links to the first, prev, next and last pages (absolute URLs keeping the other query parameters)',
        schema: { type: 'string' },
      },
      'x-total-count': { description: 'Items matching the filters, over all pages', schema: { type: 'integer' } },
    },
  });

/** The `Link` header value of a page (empty when there is one page or none). */
export function linkHeader(request: FastifyRequest, base: string, { page, pageSize, total }: PageWindow): string {
  const [path = '', query = ''] = request.url.split('?');
  const at = (p: number): string => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    q.set('page_size', String(pageSize));
    return `<${base}${path}?${q.toString()}>`;
  };
  const last = Math.max(1, Math.ceil(total / pageSize));
  const links = [`${at(1)}; rel="first"`];
  if (page > 1) links.push(`${at(Math.min(page - 1, last))}; rel="prev"`);
  if (page < last) links.push(`${at(page + 1)}; rel="next"`);
  links.push(`${at(last)}; rel="last"`);
  return links.join(', ');
}

/** 200 with the page's items as a bare array, `Link` and `X-Total-Count`. */
export function sendPage<T>(reply: FastifyReply, request: FastifyRequest, base: string, window: PageWindow, items: T[]): FastifyReply {
  return reply
    .header('link', linkHeader(request, base, window))
    .header('x-total-count', String(window.total))
    .type('application/json')
    .send(items);
}

/**
 * sendPage for a page read in batches (large items, such as products with their attributes):
 * the array is streamed as each batch is serialized (with `item`, the route's item schema), so
 * the reply holds one batch at a time, not the page.
 */
export function streamPage<T>(
  reply: FastifyReply,
  request: FastifyRequest,
  base: string,
  window: PageWindow,
  batches: AsyncIterable<T[]>,
  item: TSchema,
): FastifyReply {
  const serialize = reply.compileSerializationSchema(item as unknown as Record<string, unknown>) as (x: unknown) => string;
  async function* body(): AsyncGenerator<string> {
    let first = true;
    yield '[';
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      yield (first ? '' : ',') + batch.map((x) => serialize(x)).join(',');
      first = false;
    }
    yield ']';
  }
  return reply
    .header('link', linkHeader(request, base, window))
    .header('x-total-count', String(window.total))
    .type('application/json')
    .send(Readable.from(body(), { objectMode: false }));
}
