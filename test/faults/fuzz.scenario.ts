// API fuzzing from the OpenAPI document: valid and broken bodies, path parameters, query
// strings and headers for every documented operation, over keep-alive HTTP to one daemon with
// real data. Pass: no 5xx; every reply's status, content type and body are as documented; every
// valid request succeeds (fuzz/check.ts lists the few refusals allowed per operation); a missing
// or wrong key gets 401; and every operation succeeded at least once.
// FUZZ_REQUESTS (default 20000), FUZZ_CONCURRENCY (16), FUZZ_SEED (random; printed) change it.
import { fetchFrom } from './security/from-address.ts';
import { freshTarget, type Outcome, type Scenario } from './harness.ts';
import { judge } from './fuzz/check.ts';
import { buildRequest, operationsOf, type BuildContext, type FuzzRequest } from './fuzz/requests.ts';
import { buildWorld } from './fuzz/world.ts';

const envInt = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
};

const describe = (req: FuzzRequest): string =>
  `#${req.n} [${req.kind}] ${req.method} ${req.url.replace(/^http:\/\/[^/]+/, '')} headers=${JSON.stringify(req.headers).slice(0, 300)} body=${(req.body ?? '').slice(0, 300)}`;

export const fuzz: Scenario = {
  name: 'fuzz',
  async run(): Promise<Outcome> {
    const total = envInt('FUZZ_REQUESTS', 20_000);
    const concurrency = envInt('FUZZ_CONCURRENCY', 16);
    const seed = envInt('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31));
    const target = await freshTarget();
    const world = await buildWorld(target);
    try {
      const doc = (await (await fetch(`${world.daemon.url}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
      const ops = operationsOf(doc);
      const methods = new Map<string, Set<string>>();
      for (const op of ops) methods.set(op.path, (methods.get(op.path) ?? new Set()).add(op.method));
      const products = ops.find((o) => o.id === 'POST /shops/{shop}/products/')?.body;
      const ctx: BuildContext = { world, seed, products, methods };
      const feeds = world.ids.feed!;
      const rememberFeed = (text: string): void => {
        const pk = /^\{"pk":"([0-9a-f-]{36})"/.exec(text)?.[1];
        if (pk === undefined) return;
        // The seed feeds stay first; the newest 30 others follow.
        feeds.push(pk);
        if (feeds.length > 32) feeds.splice(2, 1);
      };
      const byClass: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
      const byStatus = new Map<number, number>();
      const covered = new Set<string>();
      const succeeded = new Set<string>();
      const failures: string[] = [];
      // Valid requests refused, and missing or wrong credentials not answered 401, by operation and status.
      const refused = new Map<string, number>();
      let failed = 0;
      let next = 0;
      const started = Date.now();
      const send = async (req: FuzzRequest): Promise<void> => {
        let problems: string[];
        try {
          // A wrong admin token comes from an address of its own: 10 lock their address out (429).
          const res =
            req.op.auth === 'admin' && req.credentials === 'wrong'
              ? await fetchFrom('127.0.0.7', req.url, { method: req.method, headers: req.headers, body: req.body })
              : await fetch(req.url, {
                  method: req.method,
                  headers: req.headers,
                  body: req.body,
                  redirect: 'manual',
                  signal: AbortSignal.timeout(30_000),
                });
          const text = await res.text();
          byClass[`${String(res.status)[0]}xx`] = (byClass[`${String(res.status)[0]}xx`] ?? 0) + 1;
          byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
          covered.add(req.op.id);
          if (res.status < 300) succeeded.add(req.op.id);
          // Feeds made during the run join the pool (admin retry of a queued one, reads).
          // (The shop's own feeds only: valid requests read them with its key.)
          if (res.status === 201 && req.op.path.startsWith('/shops/') && req.headers.authorization === `Token ${world.shop.key}`)
            rememberFeed(text);
          problems = judge(req, { status: res.status, contentType: res.headers.get('content-type'), headers: res.headers, text });
          if (problems.length > 0) problems.push(`reply: ${text.slice(0, 300)}`);
        } catch (error) {
          problems = [`request failed: ${(error as Error).message}`];
        }
        const refusal = problems.find((p) => p.startsWith('valid request refused') || p.includes('credentials answered'));
        if (refusal !== undefined) {
          const key = `${req.kind === 'valid' ? 'valid' : req.credentials} ${req.op.id} -> ${refusal}`;
          refused.set(key, (refused.get(key) ?? 0) + 1);
        }
        if (problems.length > 0) {
          failed++;
          if (failures.length < 15) failures.push(`${describe(req)}\n  -> ${problems.join('\n  -> ')}`);
        }
      };
      // First one valid request per operation, one at a time on the fresh data: each operation
      // must succeed. Those that delete or replace go last, the ones that need what others
      // delete (a variation's pk, its images) before them, the product delete at the very end.
      const last = [
        'PUT /shops/{shop}/products/{product}/variations/',
        'POST /shops/{shop}/products/{product}/variations/{variation}/images/',
        'DELETE /shops/{shop}/products/{product}/variations/{variation}/images/',
        'DELETE /shops/{shop}/marketplace/{mp}/orders/{order}/module-integrations/{id}/',
        'PUT /shops/{shop}/products/{product}/images/',
        'DELETE /shops/{shop}/products/{product}/images/',
        'DELETE /shops/{shop}/products/{product}/variations/',
        'POST /shops/{shop}/products/{product}/variations/',
        'DELETE /shops/{shop}/products/{product}/',
      ];
      const rank = (op: (typeof ops)[number]): number => last.indexOf(op.id);
      for (const [i, op] of [...ops].sort((x, y) => rank(x) - rank(y)).entries()) await send(buildRequest(total + i, op, ctx, 'valid'));
      const worker = async (): Promise<void> => {
        while (next < total) {
          const n = next++;
          // Round-robin over the operations so each gets its share.
          await send(buildRequest(n, ops[n % ops.length]!, ctx));
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const seconds = (Date.now() - started) / 1000;
      const alive = await fetch(`${world.daemon.url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      const neverOk = ops.filter((o) => !succeeded.has(o.id)).map((o) => o.id);
      console.log(
        `     statuses: ${[...byStatus]
          .sort((a, b) => a[0] - b[0])
          .map(([s, c]) => `${s}:${c}`)
          .join(' ')}`,
      );
      if (neverOk.length > 0) console.log(`     operations never answered 2xx: ${neverOk.join('; ')}`);
      for (const [key, count] of [...refused].sort()) console.log(`     ${count} x ${key}`);
      return {
        pass: failed === 0 && byClass['5xx'] === 0 && covered.size === ops.length && succeeded.size === ops.length && alive,
        figures: {
          requests: total + ops.length,
          seed,
          operations: ops.length,
          covered: covered.size,
          covered_2xx: succeeded.size,
          s2xx: byClass['2xx']!,
          s4xx: byClass['4xx']!,
          s5xx: byClass['5xx']!,
          mismatches: failed,
          req_per_s: Math.round(total / seconds),
          fuzz_seconds: seconds.toFixed(1),
          daemon_alive: alive,
        },
        detail: [...failures, alive ? '' : `daemon died:\n${world.daemon.output().slice(-3000)}`].filter((x) => x !== '').join('\n'),
      };
    } finally {
      await world.stop();
      await target.close();
    }
  },
};
