// Security: keys (none, revoked, another shop's) and the admin token on every operation of the
// OpenAPI document, body limits and hostile JSON, intake details (encoding, dates, empty
// optional bodies, nosniff, the /docs policy, keys in URLs), path traversal through a connector inbox,
// webhook signatures (wrong, expired, replayed), SQL metacharacters stored verbatim, the
// per-key write rate limit, calls to the outside (internal webhook destinations, carrier
// redirects to another host), and the dashboard's sessions, CSRF guard, login throttle and
// CSV export, attribute sizes, numbers kept exactly, the admin token throttle for Bearer. One figure per check group; any problem fails the scenario.
import { freshTarget, runCli, type Outcome, type Scenario } from './harness.ts';
import { operationsOf, type BuildContext } from './fuzz/requests.ts';
import { buildWorld } from './fuzz/world.ts';
import { checkAdmin } from './security/admin.ts';
import { checkAuth, type CheckResult } from './security/auth.ts';
import { checkAttributeSizes, checkBearerThrottle, checkExactNumbers } from './security/hardening.ts';
import { checkInbox } from './security/inbox.ts';
import { checkIntake } from './security/intake.ts';
import { BODY_LIMIT, checkLimits } from './security/limits.ts';
import { checkOutbound } from './security/outbound.ts';
import { checkRateLimit } from './security/rate-limit.ts';
import { checkVerbatim } from './security/verbatim.ts';
import { checkWebhooks } from './security/webhooks.ts';

export const security: Scenario = {
  name: 'security',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const world = await buildWorld(target, { WAYBILL_BODY_LIMIT: String(BODY_LIMIT) });
    const figures: Record<string, number> = {};
    const problems: string[] = [];
    const group = async (name: string, check: () => Promise<CheckResult>): Promise<void> => {
      const t = Date.now();
      try {
        const r = await check();
        Object.assign(figures, r.figures);
        problems.push(...r.problems.slice(0, 10).map((p) => `[${name}] ${p}`));
        if (r.problems.length > 10) problems.push(`[${name}] ... and ${r.problems.length - 10} more`);
        console.log(
          `     ${r.problems.length === 0 ? 'ok  ' : 'FAIL'} ${name} ${Object.entries(r.figures)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')} (${((Date.now() - t) / 1000).toFixed(1)} s)`,
        );
      } catch (error) {
        problems.push(`[${name}] ${(error as Error).stack ?? String(error)}`);
        console.log(`     FAIL ${name}: ${(error as Error).message}`);
      }
    };
    try {
      // A key of the first shop, revoked with the CLI as an operator would.
      const created = await runCli(['keys', 'create', '--shop', String(world.shop.shopPk), '--json'], target.env);
      const revoked = created.json<{ key: string; prefix: string }>();
      const rv = await runCli(['keys', 'revoke', revoked.prefix, '--json'], target.env);
      if (rv.code !== 0) throw new Error(`keys revoke failed: ${rv.stderr}`);
      const doc = (await (await fetch(`${world.daemon.url}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
      const ops = operationsOf(doc);
      const methods = new Map<string, Set<string>>();
      for (const op of ops) methods.set(op.path, (methods.get(op.path) ?? new Set()).add(op.method));
      const ctx: BuildContext = { world, seed: 8, products: ops.find((o) => o.id === 'POST /shops/{shop}/products/')?.body, methods };

      await group('auth', () => checkAuth(world, ops, ctx, revoked.key));
      await group('limits', () => checkLimits(world));
      await group('attribute-sizes', () => checkAttributeSizes(world));
      await group('exact-numbers', () => checkExactNumbers(world));
      await group('bearer-throttle', () => checkBearerThrottle(world));
      await group('intake', () => checkIntake(world, target));
      await group('inbox', () => checkInbox(world, target));
      await group('webhooks', () => checkWebhooks(world, target));
      await group('verbatim', () => checkVerbatim(world, target));
      await group('rate-limit', () => checkRateLimit(world, target));
      await group('outbound', () => checkOutbound(world, target));
      await group('admin', () => checkAdmin(world, ops, target));
      const alive = await fetch(`${world.daemon.url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!alive) problems.push(`the daemon died:\n${world.daemon.output().slice(-3000)}`);
      return { pass: problems.length === 0, figures, detail: problems.join('\n') };
    } finally {
      await world.stop();
      await target.close();
    }
  },
};
