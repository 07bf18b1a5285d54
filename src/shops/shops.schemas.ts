import { Type, type Static } from 'typebox';
import { ReplyTimestamp } from '../validation/timestamp.ts';

export const Shop = Type.Object({
  pk: Type.Integer(),
  name: Type.String(),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  tier: Type.String({ description: 'Its share of the feed workers: standard (1), large (2), xlarge (3)' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Shop = Static<typeof Shop>;

/** A new shop: the only reply (with a rotation's) that shows its webhook secret. */
export const CreatedShop = Type.Intersect([
  Shop,
  Type.Object({
    webhook_secret: Type.String({ description: 'Signs the shop\'s webhooks (Standard Webhooks "whsec_" form); shown only here: store it' }),
  }),
]);
export type CreatedShop = Static<typeof CreatedShop>;

export const RotatedSecret = Type.Object({
  pk: Type.Integer(),
  webhook_secret: Type.String({ description: 'The new secret, shown only here' }),
  previous_secret_valid_until: Type.String({
    format: 'date-time',
    description: 'Until when webhook-signature also carries a signature with the previous secret',
  }),
});
export type RotatedSecret = Static<typeof RotatedSecret>;

export const ShopCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  webhook_url: Type.Optional(Type.Union([Type.String({ pattern: '^https?://', maxLength: 2000 }), Type.Null()])),
});
export type ShopCreate = Static<typeof ShopCreate>;

export const ApiKey = Type.Object({
  prefix: Type.String(),
  shop_pk: Type.Integer(),
  label: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ApiKey = Static<typeof ApiKey>;

/** A new key: the only time the secret is shown. */
export const CreatedApiKey = Type.Intersect([Type.Object({ key: Type.String() }), ApiKey]);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

/** Who a request authenticated as. `source` goes into history rows ("key:wb_ab12cd34"). */
export interface Principal {
  shopPk: number;
  keyPrefix: string;
}

/** A shop as the marketplace API shows it to its own keys (GET /shops/, /shops/{shop}/). */
export const ApiShop = Type.Object({
  pk: Type.Integer(),
  name: Type.String(),
  marketplaces: Type.Array(Type.Object({ pk: Type.Integer(), name: Type.String() }), {
    description: 'The marketplaces the shop can take orders from',
  }),
  created_at: ReplyTimestamp,
});
export type ApiShop = Static<typeof ApiShop>;
