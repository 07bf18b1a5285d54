/** Feeds: one per catalog write, processed asynchronously (issue: catalog API and feeds). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FeedTables {}
