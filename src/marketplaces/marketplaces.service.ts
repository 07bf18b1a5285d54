import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import * as repo from './marketplaces.repository.ts';
import type { Marketplace, MarketplaceCreate } from './marketplaces.schemas.ts';

export class MarketplaceService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async create(input: MarketplaceCreate): Promise<Marketplace> {
    try {
      return await repo.insertMarketplace(this.#db, input);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new AppError('already_exists', 409, `Marketplace ${input.pk ?? ''} already exists.`, { cause: error });
      }
      throw error;
    }
  }

  list(): Promise<Marketplace[]> {
    return repo.listMarketplaces(this.#db);
  }

  async get(pk: number): Promise<Marketplace> {
    const row = await repo.findMarketplace(this.#db, pk);
    if (row === undefined) throw notFound(`Marketplace ${pk}`);
    return row;
  }
}
