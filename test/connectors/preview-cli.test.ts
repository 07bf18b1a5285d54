// waybill connectors preview NAME FILE, as a user checks a mapping: the first products as they
// would be sent and the file's summary, with nothing written (no feed, the file where it was).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';

const database = await createTestDatabase();
afterAll(() => database.drop());
const inbox = tempDir();
const env = {
  DATABASE_URL: database.url,
  WAYBILL_CONNECTORS: connectorsFile([
    {
      name: 'magento',
      type: 'catalog-file',
      shop_pk: 1,
      options: { inbox, preset: 'magento2', image_base_url: 'https://shop.example/media/catalog/product', settle_ms: 0 },
    },
  ]),
};

describe('waybill connectors preview', { timeout: 120_000 }, () => {
  it('prints the products as they would be sent and the summary; writes nothing', async () => {
    const file = path.join(tempDir(), 'export.csv');
    fs.copyFileSync(path.resolve('connectors/catalog-file/fixtures/presets/magento2.csv'), file);
    const r = await runCli(['connectors', 'preview', 'magento', file, '--limit', '1', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const { products, summary } = r.json<{ products: Record<string, unknown>[]; summary: Record<string, unknown> }>();
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({ sku: expect.stringMatching(/^MB0[12]$/) });
    expect(summary).toMatchObject({
      rows: 5,
      products: 2,
      variations: 2,
      skipped: { 'store-view row (translations are not imported)': { count: 1 } },
      invalid_products: { count: 0 },
    });
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readdirSync(inbox)).toEqual([]);
    const text = await runCli(['connectors', 'preview', 'magento', file], env);
    expect(text.code).toBe(0);
    expect(JSON.parse(text.stdout)).toMatchObject({ summary: { products: 2 } });
  });
});
