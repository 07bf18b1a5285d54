// The connectors file read again without a restart: the dashboard's Reload (the admin API), a
// log line when the file changes on disk, a bad file that changes nothing and names every
// problem, and the scheduler and the inbox watch following the new set.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const ADMIN = 'connectors-reload-admin-token';
const inbox = tempDir();
const entry = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-file',
  shop_pk: 1,
  schedule: null,
  options: { inbox, format: 'csv', settle_ms: 0 },
  ...over,
});
const file = connectorsFile([entry('erp-main')]);
const daemon = await useTestDaemon({ env: { WAYBILL_CONNECTORS: file, WAYBILL_ADMIN_TOKEN: ADMIN } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${ADMIN}` };
const write = (entries: unknown[]): void => fs.writeFileSync(file, JSON.stringify({ connectors: entries }, null, 2));
const names = async (): Promise<string[]> => (await daemon.services.connectors.list()).map((c) => c.name);

describe('reloading the connectors file', () => {
  it('says in the log when the file changed on disk, and applies it only when reloaded', async () => {
    write([entry('erp-main'), entry('pim', { schedule: '* * * * *' })]);
    const line = await until(
      'the changed-on-disk line',
      () => daemon.logLines.find((l) => String(l.msg).startsWith('the connectors file changed on disk')),
      15_000,
    );
    expect(line).toMatchObject({
      level: 'warn',
      file,
      msg: "the connectors file changed on disk; not applied until reloaded (SIGHUP, or Reload on the dashboard's Connectors page)",
    });
    expect(await names()).toEqual(['erp-main']);

    const res = await app.inject({ method: 'POST', url: '/admin/api/connectors/reload', headers: bearer });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ connectors: ['erp-main', 'pim'], added: ['pim'], removed: [], changed: [] });
    expect(res.json<{ detail: string }>().detail).toMatch(
      /^Connectors file reloaded in this process \(pid \d+\): 2 connectors; added pim\./,
    );
    expect(await names()).toEqual(['erp-main', 'pim']);
    // The scheduler follows: pim is ticked now.
    expect(daemon.logLines.findLast((l) => l.msg === 'connectors rescheduled')).toMatchObject({ connectors: ['pim'] });
  });

  it('keeps the connectors it has when the file is bad, naming every problem', async () => {
    write([entry('erp-main', { type: 'catalog-flie' }), entry('pim', { schedule: '61 * * * *' })]);
    const res = await app.inject({ method: 'POST', url: '/admin/api/connectors/reload', headers: bearer });
    expect(res.statusCode).toBe(400);
    const body = res.json<{ code: string; detail: string; problems: string[] }>();
    expect(body.code).toBe('invalid_connectors_file');
    expect(body.problems).toHaveLength(2);
    expect(body.problems[0]).toContain('connectors[0] "erp-main": type: unknown connector type "catalog-flie" (did you mean catalog-file?');
    expect(body.problems[1]).toContain('connectors[1] "pim": schedule: "61 * * * *" is not a valid cron expression');
    expect(body.detail).toMatch(/^The connectors file has 2 problems; nothing was changed: /);
    expect(await names()).toEqual(['erp-main', 'pim']);
  });

  it('drops a removed connector (its page answers 404) and says what changed', async () => {
    write([entry('erp-main', { enabled: false })]);
    const res = await app.inject({ method: 'POST', url: '/admin/api/connectors/reload', headers: bearer });
    expect(res.json()).toMatchObject({ connectors: ['erp-main'], added: [], removed: ['pim'], changed: ['erp-main'] });
    expect((await app.inject({ url: '/admin/api/connectors/pim/runs', headers: bearer })).statusCode).toBe(404);
    expect((await daemon.services.connectors.get('erp-main')).enabled).toBe(false);
    // A mistyped name is answered with the name it was probably meant to be.
    const typo = await app.inject({ url: '/admin/api/connectors/erp-mian/runs', headers: bearer });
    expect(typo.json()).toMatchObject({ status: 404, detail: 'Connector erp-mian was not found (did you mean erp-main?).' });
  });

  it('watches the inbox of a connector added by a reload: a dropped file runs it, labelled file', async () => {
    const other = tempDir();
    write([entry('erp-main', { enabled: false }), entry('late', { options: { inbox: other, format: 'csv', settle_ms: 0 } })]);
    await app.inject({ method: 'POST', url: '/admin/api/connectors/reload', headers: bearer });
    await daemon.shopWithKey();
    fs.writeFileSync(path.join(other, 'drop.csv'), 'sku,name,price,stock\nL-1,Late,1,1\n');
    const run = await until(
      'the run of the dropped file',
      async () => (await daemon.services.connectors.runs('late')).find((r) => r.outcome !== 'running'),
      15_000,
    );
    expect(run).toMatchObject({ trigger: 'file', outcome: 'succeeded', counts: { files_done: 1, products_sent: 1 } });
  });
});

describe('what the dashboard shows of an entry', () => {
  it('its options, a value under a secret-looking name redacted (a token written into headers by mistake)', async () => {
    write([
      {
        name: 'carrier',
        type: 'tracking-http',
        options: {
          base_url: 'http://carrier.invalid',
          carriers: ['X'],
          url_template: '{tracking_code}',
          status_path: 'status',
          status_map: {},
          headers: { Authorization: 'Bearer not-for-the-dashboard', Accept: 'application/json' },
        },
      },
    ]);
    await app.inject({ method: 'POST', url: '/admin/api/connectors/reload', headers: bearer });
    const [c] = (await app.inject({ url: '/admin/api/connectors', headers: bearer })).json<
      { options: { headers: Record<string, string>; base_url: string } }[]
    >();
    expect(c!.options.headers).toEqual({ Authorization: '[redacted]', Accept: 'application/json' });
    expect(c!.options.base_url).toBe('http://carrier.invalid');
    const page = await app.inject({ url: '/admin/connectors/carrier', headers: { ...bearer, accept: 'text/html' } });
    expect(page.body).not.toContain('not-for-the-dashboard');
  });
});
