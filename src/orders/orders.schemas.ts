// The shapes of orders: intake body, action bodies, and the order as read back. One TypeBox
// schema per shape; routes validate with them, the OpenAPI document is generated from them.
import { Type, type Static, type TSchema } from 'typebox';
import { Timestamp as WallClock } from '../catalog/catalog.schemas.ts';
import { Int4 } from '../validation/column-types.ts';
import { ReplyTimestamp } from '../validation/timestamp.ts';
import { PageOf, PageQuery } from '../http/list-reply.ts';
import { ITEM_STATUSES, ORDER_ACTIONS, ORDER_STATUSES } from './order-state.ts';
import { ADDRESS_FIELDS, PROGRESS_STEPS } from './order-view.ts';
import { StoredTrackingEvent } from '../tracking/tracking.schemas.ts';

const Id = Type.Integer({ minimum: 1, description: 'numeric id' });
const Timestamp = ReplyTimestamp;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const AnyObject = Type.Object({}, { additionalProperties: true });

export const ItemStatusSchema = Type.Enum([...ITEM_STATUSES]);
export const OrderStatusSchema = Type.Enum([...ORDER_STATUSES]);
export const HistoryActionSchema = Type.Enum(['created', 'module_integration', ...ORDER_ACTIONS]);

/** Fulfilment type: `seller` (the shop ships; the default) or as the marketplace names its own (e.g. `marketplace`). */
const FfType = Type.String({ minLength: 1, maxLength: 50, description: "fulfilment type: seller (default), or the marketplace's own" });
/**
 * T or null as a JSON Schema type array rather than anyOf: the reply serializer compiles a
 * validator for every anyOf to pick its branch, and the request validator one per branch; the
 * order's forty-odd nullable fields as anyOf lengthened start-up's longest block enough for the
 * load shedder's first sample to see a stalled event loop.
 */
const OrNull = <T extends TSchema>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [(t as { type?: string }).type ?? 'string', 'null'] });
const Text = (maxLength: number) => OrNull(Type.String({ maxLength }));
const NullText = OrNull(Type.String());

/** A postal address as sent: every field optional (null or missing: unknown); others are ignored. */
export const AddressInput = Type.Object(
  Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, Type.Optional(Text(f === 'address' ? 1000 : 255))])),
);
/** A postal address as read: every field present, null when unknown. */
export const Address = Type.Object(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, NullText])));
export type Address = Static<typeof Address>;

export const CustomerInput = Type.Object({
  email: Type.Optional(Text(255)),
  first_name: Type.Optional(Text(255)),
  last_name: Type.Optional(Text(255)),
});
export const Customer = Type.Object({ email: NullText, first_name: NullText, last_name: NullText });
export type Customer = Static<typeof Customer>;

export const OrderItemInput = Type.Object({
  /** The item's id; `pk` is the same id (what the order's items carry when read): send either (both: equal). */
  item_pk: Id,
  pk: Type.Optional(Id),
  sku: Type.String({ minLength: 1, maxLength: 100 }),
  quantity: Int4({ minimum: 1 }),
  price: Type.Number({ minimum: 0 }),
  ff_type: Type.Optional(FfType),
});

/**
 * POST .../orders/ and OrderService.intake (connectors). Unknown fields (and the read-only
 * ones a client may echo back: status, actions, progress) are ignored.
 */
export const OrderIntake = Type.Object({
  /** The marketplace's id of the order; `pk` is the same id: send either (both: equal). */
  order_pk: Id,
  pk: Type.Optional(Id),
  /** When sent, must be the path's. */
  shop_pk: Type.Optional(Id),
  marketplace_pk: Type.Optional(Id),
  reference: Type.Optional(Text(255)),
  ff_type: Type.Optional(FfType),
  /** When the buyer placed the order (UTC); default: when taken in. */
  created_at: Type.Optional(WallClock),
  payment_method: Type.Optional(Text(100)),
  /** Whether the buyer has paid; default true (the marketplace hands over paid orders). */
  paid: Type.Optional(Type.Boolean()),
  /** null is taken as not sent (withPkAliases drops it), so a wrong field is named once, by its own pointer. */
  customer: Type.Optional(CustomerInput),
  shipping_address: Type.Optional(AddressInput),
  billing_address: Type.Optional(AddressInput),
  shipping_cost: Type.Optional(OrNull(Type.Number({ minimum: 0 }))),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  items: Type.Array(OrderItemInput, { minItems: 1, maxItems: 1000 }),
});
export type OrderIntake = Static<typeof OrderIntake>;

/**
 * Before validation: `pk` sent without `order_pk` (or an item's `pk` without `item_pk`) stands
 * for it, and a null customer or address (as an order read back shows an unknown one) is not sent.
 */
export function withPkAliases(body: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if (out.order_pk === undefined && out.pk !== undefined) out.order_pk = out.pk;
  for (const k of ['customer', 'shipping_address', 'billing_address']) if (out[k] === null) delete out[k];
  if (Array.isArray(out.items)) {
    out.items = out.items.map((i: unknown) => (isObject(i) && i.item_pk === undefined && i.pk !== undefined ? { ...i, item_pk: i.pk } : i));
  }
  return out;
}

const ItemRef = Type.Object({ item_pk: Id });

/** Body of every action. `items` omitted: every item not cancelled (cancel: every item). */
export const ActionBody = Type.Object({
  items: Type.Optional(Type.Array(ItemRef, { minItems: 1, maxItems: 1000 })),
});
export type ActionBody = Static<typeof ActionBody>;

/** What a buyer-facing cancel reports (the marketplace's feedback form); recorded in the history. */
export const CancelFeedback = Type.Object({
  message: Type.Optional(Type.String({ maxLength: 1000 })),
  reason: Type.Optional(Type.String({ maxLength: 255 })),
  rating: Type.Optional(Type.Enum(['positive', 'neutral', 'negative'])),
  fulfilled: Type.Optional(Type.Boolean()),
  restock_item: Type.Optional(Type.Boolean()),
});
export type CancelFeedback = Static<typeof CancelFeedback>;
export const CANCEL_FEEDBACK_FIELDS = ['message', 'reason', 'rating', 'fulfilled', 'restock_item'] as const;

/** Body of `cancel`: the items plus the feedback, all optional. */
export const CancelBody = Type.Object({ ...ActionBody.properties, ...CancelFeedback.properties });
export type CancelBody = Static<typeof CancelBody>;

// Carrier and tracking code go into carrier API paths, where a value of only dots ("..") would
// name another path: at least one other character.
const NOT_ONLY_DOTS = '[^.]';

export const ShippingData = Type.Object({
  carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NOT_ONLY_DOTS, description: 'not only dots' })),
  tracking_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NOT_ONLY_DOTS, description: 'not only dots' })),
  /** Days for delivery. */
  delivery_time: Type.Optional(Int4()),
  comments: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type ShippingData = Static<typeof ShippingData>;

/** Body of `ship`: the items plus the shipping data, all optional. */
export const ShipBody = Type.Object({ ...ActionBody.properties, ...ShippingData.properties });
export type ShipBody = Static<typeof ShipBody>;

export const Shipment = Type.Object({
  id: Type.Integer(),
  item_pks: Type.Array(Type.Integer()),
  carrier: Nullable(Type.String()),
  tracking_code: Nullable(Type.String()),
  delivery_time: Nullable(Type.Integer()),
  comments: Nullable(Type.String()),
  shipped_at: Timestamp,
  updated_at: Timestamp,
  events: Type.Array(StoredTrackingEvent, {
    description: "The carrier's tracking events of this shipment, oldest first (empty until tracked).",
  }),
});
export type Shipment = Static<typeof Shipment>;

export const OrderItem = Type.Object({
  /** The item's id (the same as item_pk). */
  pk: Type.Integer(),
  item_pk: Type.Integer(),
  sku: Type.String(),
  quantity: Type.Integer(),
  price: Type.Number(),
  ff_type: Type.String(),
  status: ItemStatusSchema,
  /** The current shipment's carrier and tracking code; null before any ship. */
  carrier: NullText,
  tracking_code: NullText,
  /** The item's current shipment (latest attempt); null before any ship. */
  shipment: Nullable(Type.Omit(Shipment, ['item_pks', 'events'])),
});
export type OrderItem = Static<typeof OrderItem>;

export const HistoryEntry = Type.Object({
  at: Timestamp,
  action: HistoryActionSchema,
  item_pks: Type.Array(Type.Integer()),
  from: Nullable(ItemStatusSchema),
  /** null: nothing moved (module_integration). */
  to: Type.Unsafe<Static<typeof ItemStatusSchema> | null>({ type: ['string', 'null'], enum: [...ITEM_STATUSES, null] }),
  /** "key:<API key prefix>" or "connector:<name>". */
  source: Type.String(),
  shipment_id: Nullable(Type.Integer()),
  /** ship: the shipping data sent; cancel: the feedback sent; module_integration: the record; else null. */
  details: OrNull(AnyObject),
});
export type HistoryEntry = Static<typeof HistoryEntry>;

export const ProgressStep = Type.Object({ name: Type.Enum([...PROGRESS_STEPS]), status: Type.Enum(['done', 'pending']) });
export type ProgressStep = Static<typeof ProgressStep>;

export const ModuleIntegrationInput = Type.Object({
  module_name: Type.String({ minLength: 1, maxLength: 100 }),
  status: Type.Optional(Text(50)),
  message: Type.Optional(Text(1000)),
  reference: Type.Optional(Text(255)),
  /** With module_name, what a PUT replaces by (e.g. order, invoice, shipment). */
  type: Type.Optional(Text(50)),
});
export type ModuleIntegrationInput = Static<typeof ModuleIntegrationInput>;

export const ModuleIntegration = Type.Object({
  id: Type.Integer(),
  module_name: Type.String(),
  status: NullText,
  message: NullText,
  reference: NullText,
  type: NullText,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ModuleIntegration = Static<typeof ModuleIntegration>;

/** One order as both GET .../orders/{order}/ and each element of the list carry it. */
const orderFields = {
  /** The marketplace's id of the order (the same as order_pk). */
  pk: Type.Integer(),
  order_pk: Type.Integer(),
  reference: Nullable(Type.String()),
  shop_pk: Type.Integer(),
  marketplace_pk: Type.Integer(),
  ff_type: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  status: OrderStatusSchema,
  shipping_cost: Nullable(Type.Number()),
  payment_method: NullText,
  paid: Type.Boolean(),
  customer: Customer,
  shipping_address: OrNull(Address),
  billing_address: OrNull(Address),
  tags: Type.Array(Type.String()),
  /** What the shop is expected to do next (order-view.ts). */
  actions: Type.Array(Type.String()),
  items: Type.Array(OrderItem),
  /** paid, ready_to_ship, shipped, delivered, canceled, failed, refunded: done or pending (order-view.ts). */
  progress: Type.Array(ProgressStep),
};

/** An order as GET .../orders/{order}/ answers it: the list's element plus shipments, history and module integrations. */
export const Order = Type.Object({
  ...orderFields,
  shipments: Type.Array(Shipment),
  history: Type.Array(HistoryEntry),
  module_integrations: Type.Array(ModuleIntegration),
});
export type Order = Static<typeof Order>;

/** An order in a list: the same fields, without shipments, history and module integrations (read the order for those). */
export const OrderSummary = Type.Object(orderFields);
export type OrderSummary = Static<typeof OrderSummary>;

export const OrderList = PageOf(OrderSummary, 'The orders of the page, oldest first');

export const OrderListQuery = Type.Object({
  status: Type.Optional(OrderStatusSchema),
  ...PageQuery,
});
export type OrderListQuery = Static<typeof OrderListQuery>;

/** Who did it, written into history: an API key's prefix, or a connector's name. */
export type OrderSource = `key:${string}` | `connector:${string}`;
