// The rules of orders, used alike by the API and by connectors (order intake, carrier
// tracking): intake is create-once, and each action is one transaction on the locked order
// row, decided by the state table (order-state.ts), recorded in the append-only history.
import { Value } from 'typebox/value';
import { inTransaction, type Db, type Trx } from '../db/database.ts';
import { AppError, badRequest, notFound, type FieldError } from '../errors.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import { namedItemErrors, refusalMessage, refusedOf, targetsOf, movesOf, type PlanItem } from './order-plan.ts';
import { STATE_TABLE, orderStatusOf, type ItemStatus, type OrderAction, type OrderStatus } from './order-state.ts';
import { byOrder, toOrder, toSummary } from './orders.mapper.ts';
import * as repo from './orders.repository.ts';
import { OrderIntake, type Order, type OrderSource, type OrderSummary, type ShippingData } from './orders.schemas.ts';

export interface ActionInput {
  shopPk: number;
  marketplacePk: number;
  orderPk: number;
  action: OrderAction;
  /** item_pks the action applies to; omitted: every item not cancelled (cancel: every item). */
  items?: number[];
  /** ship only; fields not sent keep their value on an already shipped item. */
  shipping?: ShippingData;
  source: OrderSource;
}

export interface ListOptions {
  status?: OrderStatus;
  /** 1-based. */
  page: number;
  pageSize: number;
}

type Item = PlanItem & repo.LockedItemRow & { status: ItemStatus };
interface Change {
  item_pk: number;
  from: ItemStatus;
  to: ItemStatus;
}
/** What an action writes (see repo.applyChanges), and the moves for the webhook. */
type Outcome = Omit<repo.ActionWrite, 'orderId' | 'orderStatus'> & { changes: Change[] };

const SHIPPING_FIELDS = ['carrier', 'tracking_code', 'delivery_time', 'comments'] as const;

/** Only the shipping fields actually sent. */
const givenShipping = (s: ShippingData | undefined): Partial<repo.ShipmentData> => {
  const out: Partial<repo.ShipmentData> = {};
  for (const f of SHIPPING_FIELDS) if (s?.[f] !== undefined) (out as Record<string, unknown>)[f] = s[f];
  return out;
};

function intakeErrors(input: unknown): FieldError[] {
  const errors: FieldError[] = [...Value.Errors(OrderIntake, input)].map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { requiredProperties?: string[] }).requiredProperties?.[0] : undefined;
    return { pointer: missing === undefined ? e.instancePath : `${e.instancePath}/${missing}`, code: e.keyword, message: e.message };
  });
  if (errors.length > 0) return errors;
  const seen = new Set<number>();
  (input as OrderIntake).items.forEach((item, index) => {
    if (seen.has(item.item_pk)) errors.push({ pointer: `/items/${index}/item_pk`, code: 'duplicate_item', message: `item ${item.item_pk} is listed more than once` });
    seen.add(item.item_pk);
  });
  return errors;
}

export class OrderService {
  readonly #db: Db;
  readonly #marketplaces: MarketplaceService;
  readonly #webhooks: WebhookService;

  constructor(db: Db, marketplaces: MarketplaceService, webhooks: WebhookService) {
    this.#db = db;
    this.#marketplaces = marketplaces;
    this.#webhooks = webhooks;
  }

  /**
   * Takes in a marketplace order once: a new order_pk is stored with every item pending
   * (`created: true`); an order_pk already stored changes nothing and comes back as stored.
   */
  async intake(shopPk: number, marketplacePk: number, input: OrderIntake, source: OrderSource): Promise<{ created: boolean; order: Order }> {
    await this.#marketplaces.get(marketplacePk);
    const errors = intakeErrors(input);
    if (errors.length > 0) throw badRequest(`The order has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
    const created = await inTransaction(this.#db, async (trx) => {
      const id = await repo.insertOrder(trx, {
        shop_pk: shopPk,
        marketplace_pk: marketplacePk,
        order_pk: input.order_pk,
        reference: input.reference ?? null,
        customer: (input.customer ?? {}) as Record<string, unknown>,
        shipping_address: (input.shipping_address ?? {}) as Record<string, unknown>,
        shipping_cost: input.shipping_cost ?? null,
        status: 'pending',
        source,
      });
      if (id === undefined) return false;
      await repo.insertItems(trx, input.items.map((i, position) => ({
        order_id: id, item_pk: i.item_pk, position, sku: i.sku, quantity: i.quantity, price: i.price, status: 'pending',
      })));
      await repo.insertHistory(trx, [{
        order_id: id, action: 'created', item_pks: input.items.map((i) => i.item_pk), from_status: null, to_status: 'pending',
        source, shipment_id: null, details: null,
      }]);
      return true;
    });
    return { created, order: await this.get(shopPk, marketplacePk, input.order_pk) };
  }

  /** One order with items, shipments and history; 404 when it is not this shop's and marketplace's. */
  async get(shopPk: number, marketplacePk: number, orderPk: number): Promise<Order> {
    const row = await repo.findOrder(this.#db, shopPk, marketplacePk, orderPk);
    if (row === undefined) throw notFound(`Order ${orderPk}`);
    const [order] = await this.#full([row]);
    return order!;
  }

  async list(shopPk: number, marketplacePk: number, options: ListOptions): Promise<{ count: number; results: OrderSummary[] }> {
    await this.#marketplaces.get(marketplacePk);
    const offset = (options.page - 1) * options.pageSize;
    const [count, rows] = await Promise.all([
      repo.countOrders(this.#db, shopPk, marketplacePk, options.status),
      repo.listOrders(this.#db, shopPk, marketplacePk, options.status, offset, options.pageSize),
    ]);
    const items = rows.length === 0 ? new Map<number, repo.ItemRow[]>() : byOrder(await repo.listItems(this.#db, rows.map((r) => r.id)));
    return { count, results: rows.map((r) => toSummary(r, items.get(r.id) ?? [])) };
  }

  /** Orders of any shop matching every criterion given, newest first, with their history (admin). */
  async search(criteria: { orderPk?: number; reference?: string; trackingCode?: string; limit: number }): Promise<Order[]> {
    const ids = await repo.searchOrderIds(this.#db, criteria);
    const rank = new Map(ids.map((id, i) => [id, i]));
    const rows = await repo.findOrdersByIds(this.#db, ids);
    return this.#full(rows.sort((a, b) => rank.get(a.id)! - rank.get(b.id)!));
  }

  /**
   * Applies one action atomically on the locked order. 404: no such order here; 400: an
   * item_pk not in the order or named twice; 409: an item the state table does not let move
   * (nothing changes). A repeat changes nothing: `{ changed: false }`, no history row.
   */
  async applyAction(input: ActionInput): Promise<{ changed: boolean }> {
    return inTransaction(this.#db, async (trx) => {
      const items = (await repo.lockOrderItems(trx, input.shopPk, input.marketplacePk, input.orderPk)) as Item[];
      const order = items[0];
      if (order === undefined) throw notFound(`Order ${input.orderPk}`);
      if (input.items !== undefined) {
        const errors = namedItemErrors(items, input.items);
        if (errors.length > 0) throw badRequest(`The request names ${errors.length} item${errors.length === 1 ? '' : 's'} it cannot.`, errors);
      }
      const targets = targetsOf(input.action, items, input.items);
      const refused = targets.length === 0 ? items : refusedOf(input.action, targets);
      if (targets.length === 0 || refused.length > 0) {
        throw new AppError('invalid_transition', 409, refusalMessage(input.action, targets.length === 0 ? [] : refused), {
          extra: { action: input.action, items: refused.map((i) => ({ item_pk: i.item_pk, status: i.status })) },
        });
      }
      const outcome = input.action === 'ship' ? await this.#ship(trx, input, targets, items) : this.#move(input, targets);
      if (outcome.history.length === 0) return { changed: false };
      const moved = new Map(outcome.items.map((u) => [u.id, u.status as ItemStatus]));
      const status = orderStatusOf(items.map((i) => moved.get(i.id) ?? i.status));
      await repo.applyChanges(trx, { orderId: order.order_id, orderStatus: status, ...outcome });
      if (outcome.changes.length > 0) await this.#notify(trx, order, input, status, outcome.changes);
      return { changed: true };
    });
  }

  /** Status moves of every action but ship: one history row per status left. */
  #move(input: ActionInput, targets: Item[]): Outcome {
    const to = STATE_TABLE[input.action].to;
    const groups = movesOf(input.action, targets);
    return {
      items: groups.flatMap((g) => g.items.map((i) => ({ id: i.id, status: to, new_shipment: false }))),
      history: groups.map((g) => ({
        action: input.action, item_pks: g.items.map((i) => i.item_pk), from_status: g.from, to_status: to,
        source: input.source, shipment_id: null, new_shipment: false, details: null,
      })),
      shipment: null,
      changes: groups.flatMap((g) => g.items.map((i) => ({ item_pk: i.item_pk, from: g.from, to }))),
    };
  }

  /**
   * ship: items not yet shipped (pending, ready_to_ship, or not_delivered: a new attempt) go
   * into one new shipment with the data sent; items already shipped get the data sent written
   * over their shipment's (the package: every item in it). Nothing new: a no-op.
   */
  async #ship(trx: Trx, input: ActionInput, targets: Item[], items: Item[]): Promise<Outcome> {
    const given = givenShipping(input.shipping);
    const groups = movesOf('ship', targets);
    const out: Outcome = { items: [], history: [], shipment: null, changes: [] };
    const base = { action: 'ship', source: input.source };
    if (groups.length > 0) {
      const data: repo.ShipmentData = { carrier: null, tracking_code: null, delivery_time: null, comments: null, ...given };
      out.shipment = {
        ...data, shop_pk: input.shopPk, marketplace_pk: input.marketplacePk, order_pk: input.orderPk,
        item_pks: groups.flatMap((g) => g.items.map((i) => i.item_pk)),
      };
      for (const g of groups) {
        out.items.push(...g.items.map((i) => ({ id: i.id, status: 'shipped', new_shipment: true })));
        out.history.push({ ...base, item_pks: g.items.map((i) => i.item_pk), from_status: g.from, to_status: 'shipped', shipment_id: null, new_shipment: true, details: { ...data } });
        out.changes.push(...g.items.map((i) => ({ item_pk: i.item_pk, from: g.from, to: 'shipped' as const })));
      }
    }
    // Items already shipped: their shipment's data, when the request sends any (an already
    // shipped item always has a shipment: only ship puts items in shipped).
    const staying = [...new Set(targets.filter((t) => t.status === 'shipped' && t.shipment_id !== null).map((t) => t.shipment_id!))];
    if (staying.length === 0 || Object.keys(given).length === 0) return out;
    for (const current of await repo.findShipments(trx, staying)) {
      const updated: repo.ShipmentData = {
        carrier: current.carrier, tracking_code: current.tracking_code, delivery_time: current.delivery_time, comments: current.comments, ...given,
      };
      if (SHIPPING_FIELDS.every((f) => updated[f] === current[f])) continue;
      await repo.updateShipment(trx, current.id, updated);
      const inPackage = items.filter((i) => i.shipment_id === current.id && i.status === 'shipped').map((i) => i.item_pk);
      out.history.push({ ...base, item_pks: inPackage, from_status: 'shipped', to_status: 'shipped', shipment_id: current.id, new_shipment: false, details: { ...given } });
    }
    return out;
  }

  /** order.status_changed to the shop's webhook, enqueued in this transaction. */
  async #notify(trx: Trx, order: Item, input: ActionInput, status: OrderStatus, changes: Change[]): Promise<void> {
    if (!order.has_webhook) return;
    await this.#webhooks.emit(trx, input.shopPk, 'order.status_changed', {
      shop_pk: input.shopPk,
      marketplace_pk: input.marketplacePk,
      order_pk: input.orderPk,
      reference: order.reference,
      action: input.action,
      status,
      previous_status: order.order_status,
      items: changes,
      source: input.source,
      at: new Date().toISOString(),
    }, true);
  }

  async #full(rows: repo.OrderRow[]): Promise<Order[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [items, shipments, history] = await Promise.all([
      repo.listItems(this.#db, ids), repo.listShipments(this.#db, ids), repo.listHistory(this.#db, ids),
    ]);
    const [i, s, h] = [byOrder(items), byOrder(shipments), byOrder(history)];
    return rows.map((r) => toOrder(r, i.get(r.id) ?? [], s.get(r.id) ?? [], h.get(r.id) ?? []));
  }
}
