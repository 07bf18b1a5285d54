// The shapes of orders: intake body, action bodies, and the order as read back. One TypeBox
// schema per shape; routes validate with them, the OpenAPI document is generated from them.
import { Type, type Static } from 'typebox';
import { Int4 } from '../platform/column-types.ts';
import { ReplyTimestamp } from '../platform/timestamp.ts';
import { PageOf, PageQuery } from '../http/list-reply.ts';
import { ITEM_STATUSES, ORDER_ACTIONS, ORDER_STATUSES } from './order-state.ts';

const Id = Type.Integer({ minimum: 1, description: 'numeric id' });
const Timestamp = ReplyTimestamp;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const AnyObject = Type.Object({}, { additionalProperties: true });

export const ItemStatusSchema = Type.Enum([...ITEM_STATUSES]);
export const OrderStatusSchema = Type.Enum([...ORDER_STATUSES]);
export const HistoryActionSchema = Type.Enum(['created', ...ORDER_ACTIONS]);

export const OrderItemInput = Type.Object({
  item_pk: Id,
  sku: Type.String({ minLength: 1, maxLength: 100 }),
  quantity: Int4({ minimum: 1 }),
  price: Type.Number({ minimum: 0 }),
});

/** POST .../orders/ and OrderService.intake (connectors). Unknown fields are ignored. */
export const OrderIntake = Type.Object({
  order_pk: Id,
  reference: Type.Optional(Type.String({ maxLength: 255 })),
  customer: Type.Optional(AnyObject),
  shipping_address: Type.Optional(AnyObject),
  shipping_cost: Type.Optional(Type.Number({ minimum: 0 })),
  items: Type.Array(OrderItemInput, { minItems: 1, maxItems: 1000 }),
});
export type OrderIntake = Static<typeof OrderIntake>;

const ItemRef = Type.Object({ item_pk: Id });

/** Body of every action. `items` omitted: every item not cancelled (cancel: every item). */
export const ActionBody = Type.Object({
  items: Type.Optional(Type.Array(ItemRef, { minItems: 1, maxItems: 1000 })),
});
export type ActionBody = Static<typeof ActionBody>;

export const ShippingData = Type.Object({
  carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  tracking_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
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
});
export type Shipment = Static<typeof Shipment>;

export const OrderItem = Type.Object({
  item_pk: Type.Integer(),
  sku: Type.String(),
  quantity: Type.Integer(),
  price: Type.Number(),
  status: ItemStatusSchema,
  /** The item's current shipment (latest attempt); null before any ship. */
  shipment: Nullable(Type.Omit(Shipment, ['item_pks'])),
});
export type OrderItem = Static<typeof OrderItem>;

export const HistoryEntry = Type.Object({
  at: Timestamp,
  action: HistoryActionSchema,
  item_pks: Type.Array(Type.Integer()),
  from: Nullable(ItemStatusSchema),
  to: ItemStatusSchema,
  /** "key:<API key prefix>" or "connector:<name>". */
  source: Type.String(),
  shipment_id: Nullable(Type.Integer()),
});
export type HistoryEntry = Static<typeof HistoryEntry>;

const orderFields = {
  order_pk: Type.Integer(),
  shop_pk: Type.Integer(),
  marketplace_pk: Type.Integer(),
  reference: Nullable(Type.String()),
  status: OrderStatusSchema,
  customer: AnyObject,
  shipping_address: AnyObject,
  shipping_cost: Nullable(Type.Number()),
  created_at: Timestamp,
  updated_at: Timestamp,
  items: Type.Array(OrderItem),
};

/** An order as GET .../orders/{order}/ answers it. */
export const Order = Type.Object({ ...orderFields, shipments: Type.Array(Shipment), history: Type.Array(HistoryEntry) });
export type Order = Static<typeof Order>;

/** An order in a list: without shipments and history (read the order for those). */
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
