import { Type, type Static } from 'typebox';

export const Marketplace = Type.Object({ pk: Type.Integer(), name: Type.String() });
export type Marketplace = Static<typeof Marketplace>;

export const MarketplaceCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  pk: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type MarketplaceCreate = Static<typeof MarketplaceCreate>;
