// A shop's tier is its share of the feed workers: how many batches of its feeds may be applied
// at once across every replica (the feed queue's per-shop limit, src/jobs/job-map.ts). A shop
// with a backlog never holds more than its share, so another shop's feed finds a free worker.
// The largest share stays below a worker process's batches in flight (WAYBILL_WORKER_CONCURRENCY,
// default 4), so one shop never fills a process alone.
export const SHOP_TIERS = { standard: 1, large: 2, xlarge: 3 } as const;
export type ShopTier = keyof typeof SHOP_TIERS;
export const DEFAULT_TIER: ShopTier = 'standard';
export const isShopTier = (name: string): name is ShopTier => Object.hasOwn(SHOP_TIERS, name);
