import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

/** Marketplaces, shared by every shop. */
export interface MarketplaceTables {
  marketplaces: {
    pk: number;
    name: string;
    created_at: CreatedAt;
  };
}
