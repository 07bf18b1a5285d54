// Duplicates: the same webhook delivered 5 times at once, the same Idempotency-Key sent 10
// times at once, the same order action 20 times at once: each applied once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { freshTarget, runCli, shopWithKey, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const SECRET = 'whsec_ZmF1bHQtc2NlbmFyaW8tc2VjcmV0LTEyMzQ1Ng==';

export const duplicates: Scenario = {
  name: 'duplicates',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-dup-'));
    const problems: string[] = [];
    const figures: Record<string, number> = {};
    const shopEnv = target.env;
    const shop = await shopWithKey(target);
    const configFile = path.join(dir, 'connectors.json');
    await fs.writeFile(
      configFile,
      JSON.stringify({
        connectors: [
          { name: 'pim', type: 'catalog-webhook', shop_pk: shop.shopPk, enabled: true, options: { secret_env: 'FAULT_PIM_SECRET' } },
        ],
      }),
    );
    const daemon = await spawnDaemon({ ...shopEnv, WAYBILL_CONNECTORS: configFile, FAULT_PIM_SECRET: SECRET });
    try {
      // 1. One webhook delivery, five times at once.
      const body = JSON.stringify([{ sku: 'WH-1', name: 'Pushed', price: 5, stock: 1 }]);
      const headers = { 'content-type': 'application/json', ...signedHeaders(SECRET, 'msg_dup_1', body) };
      const hooks = await Promise.all(
        Array.from({ length: 5 }, () => fetch(`${daemon.url}/connectors/pim/webhook`, { method: 'POST', headers, body })),
      );
      const hookStatuses = hooks.map((r) => r.status);
      const hookLocations = new Set(hooks.map((r) => r.headers.get('location')));
      const webhookFeeds = await target.query<{ n: number }>(`select count(*)::int n from feeds where source = 'connector:pim'`);
      figures.webhook_deliveries = 5;
      figures.webhook_feeds = webhookFeeds[0]?.n ?? -1;
      if (!hookStatuses.every((s) => s === 202) || hookLocations.size !== 1 || figures.webhook_feeds !== 1) {
        problems.push(`webhook x5: statuses ${hookStatuses}, ${hookLocations.size} locations, ${figures.webhook_feeds} feeds`);
      }

      // 2. One Idempotency-Key, ten requests at once.
      const payload = JSON.stringify({ sku: 'IK-1', name: 'Once', price: 1, stock: 1 });
      const ik = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, {
            method: 'POST',
            headers: { ...shop.headers, 'idempotency-key': 'dup-key-1' },
            body: payload,
          }),
        ),
      );
      const ikLocations = new Set(ik.map((r) => r.headers.get('location')));
      const ikFeeds = await target.query<{ n: number }>(`select count(*)::int n from feeds where shop_pk = $1 and source like 'key:%'`, [
        shop.shopPk,
      ]);
      figures.idempotent_requests = 10;
      figures.idempotent_feeds = ikFeeds[0]?.n ?? -1;
      if (!ik.every((r) => r.status === 201) || ikLocations.size !== 1 || figures.idempotent_feeds !== 1) {
        problems.push(
          `Idempotency-Key x10: statuses ${ik.map((r) => r.status)}, ${ikLocations.size} locations, ${figures.idempotent_feeds} feeds`,
        );
      }

      // 3. One order action, twenty times at once.
      const mp = await runCli(['marketplaces', 'create', '--name', 'Dup MP', '--json'], shopEnv);
      const mpPk = mp.json<{ pk: number }>().pk;
      const order = {
        order_pk: 2000003841425110,
        reference: 'R-1',
        customer: {},
        shipping_address: {},
        shipping_cost: 0,
        items: [
          { item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 },
          { item_pk: 2, sku: 'A2', quantity: 2, price: 3 },
        ],
      };
      const intake = await fetch(`${daemon.url}/shops/${shop.shopPk}/marketplace/${mpPk}/orders/`, {
        method: 'POST',
        headers: shop.headers,
        body: JSON.stringify(order),
      });
      if (intake.status !== 201) throw new Error(`intake answered ${intake.status}: ${await intake.text()}`);
      const ship = JSON.stringify({ carrier: 'DHL', tracking_code: 'JD0001', delivery_time: 2 });
      const actions = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${daemon.url}/shops/${shop.shopPk}/marketplace/${mpPk}/orders/${order.order_pk}/ship/`, {
            method: 'POST',
            headers: shop.headers,
            body: ship,
          }),
        ),
      );
      const got = (await (
        await fetch(`${daemon.url}/shops/${shop.shopPk}/marketplace/${mpPk}/orders/${order.order_pk}/`, { headers: shop.headers })
      ).json()) as { history: { action: string }[]; status: string };
      const shipRows = got.history.filter((h) => h.action === 'ship').length;
      figures.concurrent_actions = 20;
      figures.ship_history_rows = shipRows;
      if (!actions.every((r) => r.status === 204) || shipRows !== 1 || got.status !== 'shipped') {
        problems.push(`ship x20: statuses ${actions.map((r) => r.status)}, ${shipRows} history rows, status ${got.status}`);
      }
      await until('the webhook feed to finish', async () => {
        const r = await target.query<{ state: string }>(`select state from feeds where source = 'connector:pim'`);
        return r[0]?.state === 'done';
      });
      const pushed = await target.query<{ n: number }>(`select count(*)::int n from products where sku = 'WH-1'`);
      if (pushed[0]?.n !== 1) problems.push(`webhook product stored ${pushed[0]?.n} times`);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      await target.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
    return { pass: problems.length === 0, figures, detail: problems.join('\n') };
  },
};
