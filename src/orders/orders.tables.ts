import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | undefined, Date>;
/** bigint[] comes back from pg as strings (only scalar int8 has a number parser): map with Number. */
type BigintArray = ColumnType<string[], number[], number[]>;
type Json<T> = ColumnType<T, string | undefined, string>;

/** Orders, items, shipments and history (migration 20261121T1237). */
export interface OrderTables {
  /** One row per marketplace order; (shop_pk, marketplace_pk, order_pk) is unique. */
  orders: {
    /** Surrogate id: what items, shipments and history (and tracking tables) reference. */
    id: Generated<number>;
    shop_pk: number;
    marketplace_pk: number;
    /** The marketplace's own id of the order (e.g. 2000003841425110). */
    order_pk: number;
    reference: string | null;
    customer: Json<Record<string, unknown>>;
    /** null: unknown (migration 20261124T0050; rows before it held {}). */
    shipping_address: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
    billing_address: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
    shipping_cost: number | null;
    /** Fulfilment type: "seller" (the shop ships) or as the marketplace says (migration 20261124T0050). */
    ff_type: ColumnType<string, string | undefined, string>;
    payment_method: string | null;
    /** Whether the buyer has paid: the `paid` step of the order's progress. */
    paid: ColumnType<boolean, boolean | undefined, boolean>;
    tags: ColumnType<string[], string[] | undefined, string[]>;
    /** Derived from the items on every change (see orderStatusOf); stored for the list filter. */
    status: string;
    /** Who brought the order in: "key:<prefix>" or "connector:<name>". */
    source: string;
    /** {base_url} the order was taken in under (its webhooks' Location); null: the default (migration 20261123T2200). */
    base_url: ColumnType<string | null, string | null | undefined, string | null>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  order_items: {
    id: Generated<number>;
    order_id: number;
    /** The marketplace's id of the item, unique within its order. */
    item_pk: number;
    /** Index in the intake's items array: items are listed in the order sent. */
    position: number;
    sku: string;
    quantity: number;
    price: number;
    status: string;
    /** Fulfilment type of the item; the order's when not sent (migration 20261124T0050). */
    ff_type: ColumnType<string, string | undefined, string>;
    /** The item's current shipment (the latest attempt); null before any `ship`. */
    shipment_id: number | null;
  };
  /**
   * One row per package sent by `ship`. Items moving to shipped in one action share one row; a
   * re-ship after not_delivered makes a new row (the old one stays, as history). A `ship`
   * on already-shipped items updates their row in place. Carrier tracking reads this table:
   * rows without carrier or tracking_code are not tracked.
   */
  shipments: {
    id: Generated<number>;
    order_id: number;
    shop_pk: number;
    marketplace_pk: number;
    order_pk: number;
    /** The item_pks the package holds. */
    item_pks: BigintArray;
    carrier: string | null;
    tracking_code: string | null;
    /** Days for delivery, as the shop sent it. */
    delivery_time: number | null;
    comments: string | null;
    shipped_at: Timestamp;
    updated_at: Timestamp;
  };
  /** Append-only (a trigger refuses updates): one row per change of one or more items. */
  order_history: {
    id: Generated<number>;
    order_id: number;
    at: Timestamp;
    /** An order action, or "created" for the intake. */
    action: string;
    item_pks: BigintArray;
    /** null for "created". */
    from_status: string | null;
    /** null: a row that moved no item (a module integration recorded; migration 20261124T0050). */
    to_status: string | null;
    /** "key:<prefix>" or "connector:<name>". */
    source: string;
    shipment_id: number | null;
    /** ship: the shipping data sent; cancel: the feedback sent; module_integration: the record. */
    details: Json<Record<string, unknown> | null>;
  };
  /** What the shop's own systems record against an order (migration 20261124T0050). */
  order_module_integrations: {
    id: Generated<number>;
    order_id: number;
    module_name: string;
    /** '' when not sent; with module_name, what a PUT replaces by (the latest record of the pair). */
    type: ColumnType<string, string | undefined, string>;
    status: string | null;
    message: string | null;
    reference: string | null;
    source: string;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
}
