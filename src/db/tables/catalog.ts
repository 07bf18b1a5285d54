/** Products, variations and images of shops' catalogs (issue: catalog API and feeds). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CatalogTables {}
