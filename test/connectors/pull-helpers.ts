// Shared set-up of the catalog pull tests (catalog-akeneo, -woocommerce, -shopify): runs a
// connector as `waybill connectors run [--full]` does, waits for the feeds it created, and
// reads the shop's products back as the shop would.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

export const pullFixture = (type: string, name: string): unknown =>
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../connectors', type, 'fixtures', name), 'utf8')) as unknown;

export interface PullShop {
  /** One run now; every feed it created applied before it resolves. */
  run(
    name: string,
    full?: boolean,
  ): Promise<{ outcome: string; counts: Record<string, number>; error: string | null; feed_pks: string[]; duration_ms: number | null }>;
  /** The shop's product with this sku (GET /shops/1/products/?sku=), undefined when none. */
  product(sku: string): Promise<Record<string, unknown> | undefined>;
}

export async function pullShop(daemon: TestDaemon): Promise<PullShop> {
  const { auth, shopPk } = await daemon.shopWithKey();
  const app = daemon.app!;
  return {
    async run(name, full = false) {
      const r = await daemon.services.connectors.execute({ name, trigger: 'cli', full });
      if (r.status !== 'done') throw new Error(`connector ${name}: ${r.status}`);
      for (const pk of r.run.feed_pks) {
        await until(
          `feed ${pk}`,
          async () =>
            ['done', 'failed'].includes(((await app.inject({ url: `/feeds/${pk}/`, headers: auth })).json() as { state: string }).state),
          20_000,
        );
      }
      return r.run;
    },
    async product(sku) {
      const res = await app.inject({ url: `/shops/${shopPk}/products/?sku=${encodeURIComponent(sku)}`, headers: auth });
      expect(res.statusCode, res.body).toBe(200);
      const list = res.json() as Record<string, unknown>[];
      if (list.length === 0) return undefined;
      const one = await app.inject({ url: `/shops/${shopPk}/products/${String(list[0]!.pk)}/`, headers: auth });
      return one.json() as Record<string, unknown>;
    },
  };
}
