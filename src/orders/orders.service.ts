// The rules of orders, used alike by the API and by connectors (order intake, carrier
// tracking): intake is create-once, and each action reads its order with the row locked,
// decides by the state table (order-state.ts) and writes in the same transaction, recorded in
// the append-only history.
import { inTransaction, type Db, type Trx } from '../db/database.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import { namedItemErrors, refusalMessage, refusedOf, targetsOf, movesOf, type PlanItem } from './order-plan.ts';
import { STATE_TABLE, orderStatusOf, type ItemStatus, type OrderAction, type OrderStatus } from './order-state.ts';
import { byOrder, toOrder, toSummary } from './orders.mapper.ts';
import * as repo from './orders.repository.ts';
import * as trackingRepo from '../tracking/tracking.repository.ts';
import { addressToStore, customerOf } from './order-view.ts';
import {
  CANCEL_FEEDBACK_FIELDS,
  type CancelFeedback,
  type OrderIntake,
  type Order,
  type OrderSource,
  type OrderSummary,
  type ShippingData,
} from './orders.schemas.ts';
import { parseTimestamp } from '../validation/timestamp.ts';
import { checkIntake } from './order-intake.ts';

export interface ActionInput {
  shopPk: number;
  marketplacePk: number;
  orderPk: number;
  action: OrderAction;
  /** item_pks the action applies to; omitted: every item not cancelled (cancel: every item). */
  items?: number[];
  /** ship only; fields not sent keep their value on an already shipped item. */
  shipping?: ShippingData;
  /** cancel only: the feedback sent, written into the history rows of the items it moves. */
  feedback?: CancelFeedback;
  source: OrderSource;
}

export interface ListOptions {
  status?: OrderStatus;
  /** 1-based. */
  page: number;
  pageSize: number;
}

type Item = PlanItem & repo.OrderItemRow & { status: ItemStatus };
interface Change {
  item_pk: number;
  from: ItemStatus;
  to: ItemStatus;
}
/** What an action writes (see repo.writeActions), and the moves for the webhook. */
type Outcome = Omit<repo.ActionWrite, 'order' | 'orderStatus'> & { changes: Change[] };
/** An action decided from its order as read under the lock: the write, and what the webhook tells. */
interface Plan {
  input: ActionInput;
  order: Item;
  status: OrderStatus;
  changes: Change[];
  write: repo.ActionWrite;
}

export interface OrderServiceOptions {
  /** {base_url} of orders taken in without a request's (connectors); default http://127.0.0.1:8080. */
  baseUrl?: string;
}

/** The order's URL: its webhooks' Location, the intake reply's Location. */
export const orderUrl = (baseUrl: string, shopPk: number, marketplacePk: number, orderPk: number): string =>
  `${baseUrl}/shops/${shopPk}/marketplace/${marketplacePk}/orders/${orderPk}/`;

const SHIPPING_FIELDS = ['carrier', 'tracking_code', 'delivery_time', 'comments'] as const;

/** The cancel feedback fields sent, as a history row's details; null when none was sent. */
function feedbackOf(input: ActionInput): Record<string, unknown> | null {
  if (input.action !== 'cancel' || input.feedback === undefined) return null;
  const out: Record<string, unknown> = {};
  for (const f of CANCEL_FEEDBACK_FIELDS) if (input.feedback[f] !== undefined) out[f] = input.feedback[f];
  return Object.keys(out).length === 0 ? null : out;
}

/** Only the shipping fields actually sent. */
const givenShipping = (s: ShippingData | undefined): Partial<repo.ShipmentData> => {
  const out: Partial<repo.ShipmentData> = {};
  for (const f of SHIPPING_FIELDS) if (s?.[f] !== undefined) (out as Record<string, unknown>)[f] = s[f];
  return out;
};

const parcelsOf = (write: repo.ActionWrite): repo.Parcel[] =>
  [write.shipment, ...write.shipmentUpdates].flatMap((s) =>
    s !== null && s.carrier !== null && s.tracking_code !== null ? [{ carrier: s.carrier, tracking_code: s.tracking_code }] : [],
  );

/**
 * A ship that would put another shop's parcel (carrier + tracking code on its open shipment)
 * on this order: a 409 naming the parcel, never the other shop. One parcel's events then reach
 * one shop only.
 */
async function parcelRefusal(trx: Trx, shopPk: number, write: repo.ActionWrite, earlier: readonly Plan[]): Promise<AppError | null> {
  const parcels = parcelsOf(write);
  if (parcels.length === 0) return null;
  // Plans of this batch not written yet: another shop's among them claims its parcels first.
  const key = (p: repo.Parcel) => `${p.carrier.toLowerCase()}\u0000${p.tracking_code}`;
  const claimed = new Set(earlier.filter((e) => e.input.shopPk !== shopPk).flatMap((e) => parcelsOf(e.write).map(key)));
  const taken = [...parcels.filter((p) => claimed.has(key(p))), ...(await repo.parcelsOfOtherShops(trx, shopPk, parcels))];
  if (taken.length === 0) return null;
  const p = taken[0]!;
  return new AppError(
    'tracking_code_in_use',
    409,
    `Carrier ${JSON.stringify(p.carrier)} with tracking code ${JSON.stringify(p.tracking_code)} is already on another shop's open shipment; a parcel can be tracked for one shop only.`,
    { extra: { carrier: p.carrier, tracking_code: p.tracking_code } },
  );
}

export class OrderService {
  readonly #db: Db;
  readonly #marketplaces: MarketplaceService;
  readonly #webhooks: WebhookService;
  readonly #baseUrl: string;
  // Concurrent actions share one transaction: Postgres's cost is per statement and per commit,
  // not per row, and one transaction per action stays far below the throughput target (see
  // docs/benchmarks.md, Orders).
  readonly #actions: GroupCommit<ActionInput, boolean | AppError>;

  constructor(db: Db, marketplaces: MarketplaceService, webhooks: WebhookService, options: OrderServiceOptions = {}) {
    this.#db = db;
    this.#marketplaces = marketplaces;
    this.#webhooks = webhooks;
    this.#baseUrl = options.baseUrl ?? 'http://127.0.0.1:8080';
    this.#actions = new GroupCommit({ db, write: (trx, inputs) => this.#applyBatch(trx, inputs), maxBatch: 100 });
  }

  /**
   * Takes in a marketplace order once: a new order_pk is stored with every item pending
   * (`created: true`) and order.created goes to the shop's webhook from the same transaction;
   * an order_pk already stored changes nothing and comes back as stored. `body`: an intake body
   * as sent (the API's, unchecked) or built (a connector's), checked here (checkIntake) and only
   * here. `baseUrl`: the request's {base_url}, kept for the order's webhooks (default: the service's).
   */
  async intake(
    shopPk: number,
    marketplacePk: number,
    body: unknown,
    source: OrderSource,
    baseUrl = this.#baseUrl,
  ): Promise<{ created: boolean; order: Order }> {
    await this.#marketplaces.get(marketplacePk);
    const checked = checkIntake(body, shopPk, marketplacePk);
    const errors = checked.errors;
    if (errors.length > 0) throw badRequest(`The order has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
    const input = checked.body as OrderIntake;
    const orderPk = input.order_pk;
    const itemPks = input.items.map((i) => i.item_pk);
    const ffType = input.ff_type ?? 'seller';
    const created = await inTransaction(this.#db, async (trx) => {
      const id = await repo.insertOrder(trx, {
        shop_pk: shopPk,
        marketplace_pk: marketplacePk,
        order_pk: orderPk,
        reference: input.reference ?? null,
        customer: customerOf(input.customer),
        shipping_address: addressToStore(input.shipping_address),
        billing_address: addressToStore(input.billing_address),
        shipping_cost: input.shipping_cost ?? null,
        ff_type: ffType,
        payment_method: input.payment_method ?? null,
        paid: input.paid ?? true,
        tags: input.tags ?? [],
        ...(input.created_at === undefined ? {} : { created_at: parseTimestamp(input.created_at, true)! }),
        status: 'pending',
        source,
        base_url: baseUrl,
      });
      if (id === undefined) return false;
      await repo.insertItems(
        trx,
        input.items.map((i, position) => ({
          order_id: id,
          item_pk: itemPks[position]!,
          position,
          sku: i.sku,
          quantity: i.quantity,
          price: i.price,
          ff_type: i.ff_type ?? ffType,
          status: 'pending',
        })),
      );
      await repo.insertHistory(trx, [
        {
          order_id: id,
          action: 'created',
          item_pks: itemPks,
          from_status: null,
          to_status: 'pending',
          source,
          shipment_id: null,
          details: null,
        },
      ]);
      await this.#webhooks.emit(trx, shopPk, 'order.created', {
        location: orderUrl(baseUrl, shopPk, marketplacePk, orderPk),
        pk: orderPk,
        shop_pk: shopPk,
        marketplace_pk: marketplacePk,
        order_pk: orderPk,
        reference: input.reference ?? null,
        status: 'pending',
        source,
        at: new Date().toISOString(),
      });
      return true;
    });
    return { created, order: await this.get(shopPk, marketplacePk, orderPk) };
  }

  /** One order with items, shipments and history; 404 when it is not this shop's and marketplace's. */
  async get(shopPk: number, marketplacePk: number, orderPk: number): Promise<Order> {
    const row = await repo.findOrder(this.#db, shopPk, marketplacePk, orderPk);
    if (row === undefined) throw notFound(`Order ${orderPk}`);
    const [order] = await this.#full([row]);
    return order!;
  }

  /** The shop's orders of one marketplace, or of all (`marketplacePk` undefined), oldest first. */
  async list(shopPk: number, marketplacePk: number | undefined, options: ListOptions): Promise<{ count: number; results: OrderSummary[] }> {
    if (marketplacePk !== undefined) await this.#marketplaces.get(marketplacePk);
    const offset = (options.page - 1) * options.pageSize;
    const [count, rows] = await Promise.all([
      repo.countOrders(this.#db, shopPk, marketplacePk, options.status),
      repo.listOrders(this.#db, shopPk, marketplacePk, options.status, offset, options.pageSize),
    ]);
    const items =
      rows.length === 0
        ? new Map<number, repo.ItemRow[]>()
        : byOrder(
            await repo.listItems(
              this.#db,
              rows.map((r) => r.id),
            ),
          );
    return { count, results: rows.map((r) => toSummary(r, items.get(r.id) ?? [])) };
  }

  /** Orders of every shop matching the filter, newest first, one page (admin). */
  async listAll(filter: repo.OrderFilter, page: number, pageSize: number): Promise<{ count: number; results: OrderSummary[] }> {
    const [count, rows] = await Promise.all([
      repo.countAllOrders(this.#db, filter),
      repo.listAllOrders(this.#db, filter, (page - 1) * pageSize, pageSize),
    ]);
    const items =
      rows.length === 0
        ? new Map<number, repo.ItemRow[]>()
        : byOrder(
            await repo.listItems(
              this.#db,
              rows.map((r) => r.id),
            ),
          );
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
   * Applies one action atomically. 404: no such order here; 400: an item_pk not in the order or
   * named twice; 409: an item the state table does not let move (nothing changes). A repeat
   * changes nothing: `{ changed: false }`, no history row. Concurrent actions on one order
   * wait on its row lock and apply one after another; none is lost or refused for the race.
   */
  async applyAction(input: ActionInput): Promise<{ changed: boolean }> {
    const result = await this.#actions.submit(input);
    if (result instanceof AppError) throw result;
    return { changed: result };
  }

  /**
   * Actions in one transaction: their orders locked, then each planned from its order as read
   * under the lock and written. Per action, whether it changed anything, or the AppError that
   * refuses it (it writes nothing; the others go on). Actions on one order go in turns, each
   * reading what the one before wrote.
   */
  async #applyBatch(trx: Trx, inputs: readonly ActionInput[]): Promise<(boolean | AppError)[]> {
    const keyOf = (k: repo.OrderKey) => `${k.shopPk}/${k.marketplacePk}/${k.orderPk}`;
    const locked = new Map(
      (await repo.lockOrders(trx, inputs)).map((o) => [
        keyOf({ shopPk: o.shop_pk, marketplacePk: o.marketplace_pk, orderPk: o.order_pk }),
        o.id,
      ]),
    );
    await repo.lockTrackingCodes(
      trx,
      inputs.flatMap((i) => (i.action === 'ship' && i.shipping?.tracking_code !== undefined ? [i.shipping.tracking_code] : [])),
    );
    const out: (boolean | AppError)[] = [];
    let pending = [...inputs.keys()];
    while (pending.length > 0) {
      const turn = new Map<string, number>();
      const later: number[] = [];
      for (const i of pending) {
        const key = keyOf(inputs[i]!);
        if (turn.has(key)) later.push(i);
        else turn.set(key, i);
      }
      const ids = [...turn.keys()].flatMap((key) => locked.get(key) ?? []);
      const rows = byOrder(ids.length === 0 ? [] : ((await repo.readOrderItems(trx, ids)) as Item[]));
      const plans: Plan[] = [];
      for (const [key, i] of turn) {
        const id = locked.get(key);
        try {
          const plan = this.#plan(inputs[i]!, id === undefined ? [] : (rows.get(id) ?? []));
          out[i] = plan !== null;
          if (plan !== null) plans.push(plan);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          out[i] = error;
        }
      }
      const kept: Plan[] = [];
      for (const plan of plans) {
        const refusal = await parcelRefusal(trx, plan.input.shopPk, plan.write, kept);
        if (refusal === null) kept.push(plan);
        else out[inputs.indexOf(plan.input)] = refusal;
      }
      await repo.writeActions(
        trx,
        kept.map((p) => p.write),
      );
      for (const plan of kept) if (plan.order.has_webhook && plan.changes.length > 0) await this.#notify(trx, plan);
      pending = later;
    }
    return out;
  }

  /**
   * What the action does to the items read: throws 404/400/409 as applyAction says; null when
   * it changes nothing (a repeat).
   */
  #plan(input: ActionInput, items: Item[]): Plan | null {
    const order = items[0];
    if (order === undefined) throw notFound(`Order ${input.orderPk}`);
    if (input.items !== undefined) {
      const errors = namedItemErrors(items, input.items);
      if (errors.length > 0)
        throw badRequest(`The request names ${errors.length} item${errors.length === 1 ? '' : 's'} it cannot.`, errors);
    }
    const targets = targetsOf(input.action, items, input.items);
    const refused = targets.length === 0 ? items : refusedOf(input.action, targets);
    if (targets.length === 0 || refused.length > 0) {
      throw new AppError('invalid_transition', 409, refusalMessage(input.action, targets.length === 0 ? [] : refused), {
        extra: { action: input.action, items: refused.map((i) => ({ item_pk: i.item_pk, status: i.status })) },
      });
    }
    const outcome = input.action === 'ship' ? this.#ship(input, targets, items) : this.#move(input, targets);
    if (outcome.history.length === 0) return null;
    const moved = new Map(outcome.items.map((u) => [u.id, u.status as ItemStatus]));
    const status = orderStatusOf(items.map((i) => moved.get(i.id) ?? i.status));
    const { changes, ...write } = outcome;
    return {
      input,
      order,
      status,
      changes,
      write: {
        ...write,
        order: { id: order.order_id, shopPk: input.shopPk, marketplacePk: input.marketplacePk, orderPk: input.orderPk },
        orderStatus: status,
      },
    };
  }

  /** Status moves of every action but ship: one history row per status left. */
  #move(input: ActionInput, targets: Item[]): Outcome {
    const to = STATE_TABLE[input.action].to;
    const groups = movesOf(input.action, targets);
    return {
      items: groups.flatMap((g) => g.items.map((i) => ({ id: i.id, status: to, new_shipment: false }))),
      history: groups.map((g) => ({
        action: input.action,
        item_pks: g.items.map((i) => i.item_pk),
        from_status: g.from,
        to_status: to,
        source: input.source,
        shipment_id: null,
        new_shipment: false,
        details: feedbackOf(input),
      })),
      shipment: null,
      shipmentUpdates: [],
      changes: groups.flatMap((g) => g.items.map((i) => ({ item_pk: i.item_pk, from: g.from, to }))),
    };
  }

  /**
   * ship: items not yet shipped (pending, ready_to_ship, or not_delivered: a new attempt) go
   * into one new shipment with the data sent; items already shipped get the data sent written
   * over their shipment's (the package: every item in it). Nothing new: a no-op.
   */
  #ship(input: ActionInput, targets: Item[], items: Item[]): Outcome {
    const given = givenShipping(input.shipping);
    const groups = movesOf('ship', targets);
    const out: Outcome = { items: [], history: [], shipment: null, shipmentUpdates: [], changes: [] };
    const base = { action: 'ship', source: input.source };
    if (groups.length > 0) {
      const data: repo.ShipmentData = { carrier: null, tracking_code: null, delivery_time: null, comments: null, ...given };
      out.shipment = { ...data, item_pks: groups.flatMap((g) => g.items.map((i) => i.item_pk)) };
      for (const g of groups) {
        out.items.push(...g.items.map((i) => ({ id: i.id, status: 'shipped', new_shipment: true })));
        out.history.push({
          ...base,
          item_pks: g.items.map((i) => i.item_pk),
          from_status: g.from,
          to_status: 'shipped',
          shipment_id: null,
          new_shipment: true,
          details: { ...data },
        });
        out.changes.push(...g.items.map((i) => ({ item_pk: i.item_pk, from: g.from, to: 'shipped' as const })));
      }
    }
    if (Object.keys(given).length === 0) return out;
    // Items already shipped: their shipment's data (read with the item), when the request
    // sends any (an already shipped item always has a shipment: only ship puts items in shipped).
    const staying = new Map(targets.filter((t) => t.status === 'shipped' && t.shipment_id !== null).map((t) => [t.shipment_id!, t]));
    for (const [id, current] of staying) {
      const updated: repo.ShipmentData = {
        carrier: current.carrier,
        tracking_code: current.tracking_code,
        delivery_time: current.delivery_time,
        comments: current.comments,
        ...given,
      };
      if (SHIPPING_FIELDS.every((f) => updated[f] === current[f])) continue;
      out.shipmentUpdates.push({ id, ...updated });
      const inPackage = items.filter((i) => i.shipment_id === id && i.status === 'shipped').map((i) => i.item_pk);
      out.history.push({
        ...base,
        item_pks: inPackage,
        from_status: 'shipped',
        to_status: 'shipped',
        shipment_id: id,
        new_shipment: false,
        details: { ...given },
      });
    }
    return out;
  }

  /** order.status_changed to the shop's webhook, enqueued in the action's transaction. */
  async #notify(trx: Trx, { input, order, status, changes }: Plan): Promise<void> {
    await this.#webhooks.emit(
      trx,
      input.shopPk,
      'order.status_changed',
      {
        location: orderUrl(order.base_url ?? this.#baseUrl, input.shopPk, input.marketplacePk, input.orderPk),
        pk: input.orderPk,
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
      },
      order.has_webhook,
    );
  }

  async #full(rows: repo.OrderRow[]): Promise<Order[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [items, shipments, history, modules, events] = await Promise.all([
      repo.listItems(this.#db, ids),
      repo.listShipments(this.#db, ids),
      repo.listHistory(this.#db, ids),
      repo.listModuleIntegrations(this.#db, ids),
      trackingRepo.listEventsOfOrders(this.#db, ids),
    ]);
    const [i, s, h, m] = [byOrder(items), byOrder(shipments), byOrder(history), byOrder(modules)];
    const e = Map.groupBy(events, (x) => x.shipment_id);
    return rows.map((r) => toOrder(r, i.get(r.id) ?? [], s.get(r.id) ?? [], h.get(r.id) ?? [], m.get(r.id) ?? [], e));
  }
}
