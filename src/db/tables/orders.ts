/** Orders, items, shipments and history (issue: orders and shipping). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface OrderTables {}
