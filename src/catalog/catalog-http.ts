// Shared pieces of the catalog and feed routes.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { badRequest } from '../errors.ts';
import type { Feed } from '../feeds/feeds.schemas.ts';
import { feedUrl, presentApi } from '../feeds/feeds.presenter.ts';
import { bodyItems } from './product-validation.ts';

export const ShopParams = Type.Object({ shop: Type.Integer({ minimum: 1 }) });
export const ProductParams = Type.Object({ shop: Type.Integer({ minimum: 1 }), product: Type.Integer({ minimum: 1 }) });
export const VariationParams = Type.Object({ ...ProductParams.properties, variation: Type.Integer({ minimum: 1 }) });

/** The body as a list of items; 400 for an empty array or a body that is neither object nor array. */
export function itemsOf(body: unknown): { items: unknown[]; single: boolean } {
  const { items, single, errors } = bodyItems(body);
  if (errors.length > 0)
    throw badRequest(
      errors[0]!.code === 'too_few' ? 'Send at least one item.' : 'The body must be an object or an array of objects.',
      errors,
    );
  return { items, single };
}

/** 201, Location of the feed, the feed as body: the answer of every catalog write. */
export function feedCreated(reply: FastifyReply, feed: Feed, base: string): FastifyReply {
  return reply.code(201).header('location', feedUrl(base, feed.pk)).type('application/json').send(presentApi(feed, base));
}
