// What the shop's own systems (an ERP, a Magento module) record against an order: "order
// created as 000123", "invoice failed: ...". POST adds a record; PUT replaces the latest of its
// (module_name, type), or adds one. Each change also written into the order's history (action `module_integration`, no item
// moved) so the dashboard's timeline shows it beside the status changes.
import { inTransaction, type Db, type Executor } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { toModuleIntegration } from './orders.mapper.ts';
import * as repo from './orders.repository.ts';
import type { ModuleIntegration, ModuleIntegrationInput, OrderSource } from './orders.schemas.ts';

export type OrderRef = repo.OrderKey;

const dataOf = (input: ModuleIntegrationInput, source: OrderSource): repo.ModuleIntegrationData => ({
  module_name: input.module_name,
  type: input.type ?? '',
  status: input.status ?? null,
  message: input.message ?? null,
  reference: input.reference ?? null,
  source,
});

export class ModuleIntegrationService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async #orderId(db: Executor, ref: OrderRef): Promise<number> {
    const id = await repo.findOrderId(db, ref.shopPk, ref.marketplacePk, ref.orderPk);
    if (id === undefined) throw notFound(`Order ${ref.orderPk}`);
    return id;
  }

  /** The order's records, oldest first; 404 when the order is not this shop's and marketplace's. */
  async list(ref: OrderRef): Promise<ModuleIntegration[]> {
    const id = await this.#orderId(this.#db, ref);
    return (await repo.listModuleIntegrations(this.#db, [id])).map(toModuleIntegration);
  }

  /** Adds a record (POST): a log of what the module did, one entry per call. */
  async create(ref: OrderRef, input: ModuleIntegrationInput, source: OrderSource): Promise<ModuleIntegration> {
    return inTransaction(this.#db, async (trx) => {
      const id = await this.#orderId(trx, ref);
      const row = await repo.insertModuleIntegration(trx, id, dataOf(input, source));
      await this.#history(trx, id, row, 'created', source);
      return toModuleIntegration(row);
    });
  }

  /** Replaces the latest record of (module_name, type), or adds one (PUT). */
  async put(ref: OrderRef, input: ModuleIntegrationInput, source: OrderSource): Promise<{ created: boolean; record: ModuleIntegration }> {
    return inTransaction(this.#db, async (trx) => {
      const id = await this.#orderId(trx, ref);
      await repo.lockOrders(trx, [ref]);
      const { row, created } = await repo.upsertModuleIntegration(trx, id, dataOf(input, source));
      await this.#history(trx, id, row, created ? 'created' : 'updated', source);
      return { created, record: toModuleIntegration(row) };
    });
  }

  /** Removes one record; 404 when the order has no record of that id. */
  async delete(ref: OrderRef, recordId: number, source: OrderSource): Promise<void> {
    await inTransaction(this.#db, async (trx) => {
      const id = await this.#orderId(trx, ref);
      const row = await repo.deleteModuleIntegration(trx, id, recordId);
      if (row === undefined) throw notFound(`Module integration ${recordId} of order ${ref.orderPk}`);
      await this.#history(trx, id, row, 'deleted', source);
    });
  }

  async #history(
    db: Executor,
    orderId: number,
    row: repo.ModuleIntegrationRow,
    change: 'created' | 'updated' | 'deleted',
    source: OrderSource,
  ): Promise<void> {
    const r = toModuleIntegration(row);
    await repo.insertHistory(db, [
      {
        order_id: orderId,
        action: 'module_integration',
        item_pks: [],
        from_status: null,
        to_status: null,
        source,
        shipment_id: null,
        details: {
          change,
          id: r.id,
          module_name: r.module_name,
          type: r.type,
          status: r.status,
          message: r.message,
          reference: r.reference,
        },
      },
    ]);
  }
}
