// Load shedding as a client sees it. The other tests' daemons run without it (test/helpers/daemon.ts),
// so none of them retries a 503; this one turns it on with a low threshold and lags the event loop.
import { expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const daemon = await useTestDaemon({ role: 'api', env: { WAYBILL_MAX_EVENT_LOOP_DELAY_MS: '50' } });
const app = daemon.app!;

/** Keeps this process's event loop busy for `ms`, as a CPU-bound request would. */
const lag = (ms: number): void => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    /* busy */
  }
};

it('a lagging event loop sheds requests with 503 overloaded + Retry-After, and recovers by itself', async () => {
  const shed = await until(
    'a 503 overloaded',
    async () => {
      lag(300);
      const res = await app.inject('/healthz');
      return res.statusCode === 503 ? res : false;
    },
    30_000,
    1,
  );
  expect(shed.headers['retry-after']).toBe('10');
  expect(shed.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(shed.json()).toMatchObject({ status: 503, code: 'overloaded' });

  await until('the API answering again', async () => (await app.inject('/healthz')).statusCode === 200, 30_000, 100);
});
