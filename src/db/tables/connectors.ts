/** Connector runs and state (issue: connectors). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ConnectorTables {}
