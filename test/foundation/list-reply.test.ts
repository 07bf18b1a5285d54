import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { linkHeader } from '../../src/http/list-reply.ts';

const request = (url: string) => ({ url }) as FastifyRequest;
const rels = (header: string) =>
  Object.fromEntries(
    header.split(', ').map((part) => {
      const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
      return [rel, new URL(url!).searchParams.get('page')];
    }),
  );

describe('linkHeader', () => {
  it('names first, prev, next and last pages, keeping the filters of the request', () => {
    const h = linkHeader(request('/shops/1/products/?sku=A&page=2&page_size=10'), 'http://x', { page: 2, pageSize: 10, total: 35 });
    expect(rels(h)).toEqual({ first: '1', prev: '1', next: '3', last: '4' });
    expect(h).toContain('sku=A');
    expect(h).toContain('page_size=10');
  });

  it('has no prev on the first page, no next on the last, and one page when the list is empty', () => {
    expect(rels(linkHeader(request('/x/'), 'http://x', { page: 1, pageSize: 100, total: 0 }))).toEqual({ first: '1', last: '1' });
    expect(rels(linkHeader(request('/x/?page=4'), 'http://x', { page: 4, pageSize: 10, total: 35 }))).toEqual({
      first: '1',
      prev: '3',
      last: '4',
    });
  });

  it('points prev at the last page from a page past the end', () => {
    expect(rels(linkHeader(request('/x/?page=9'), 'http://x', { page: 9, pageSize: 10, total: 35 }))).toEqual({
      first: '1',
      prev: '4',
      last: '4',
    });
  });
});
