// The connectors file: each problem named by entry and field; start-up refuses a bad file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { loadConnectorsFile, parseConnectorsConfig } from '../../src/connectors/host/config-file.ts';
import { connectorTypes } from '../../connectors/index.ts';
import { repoRoot } from '../helpers/cli.ts';
import { startTestDaemon } from '../helpers/daemon.ts';

const problemsOf = (raw: unknown, env: Record<string, string> = {}): string[] => {
  try {
    parseConnectorsConfig(raw, connectorTypes, 'connectors.json', env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
};

const fileEntry = (over: Record<string, unknown> = {}) => ({
  name: 'erp-main',
  type: 'catalog-file',
  shop_pk: 1,
  schedule: '* * * * *',
  enabled: true,
  options: { inbox: '/tmp/in', format: 'csv' },
  ...over,
});

describe('connectors file validation', () => {
  it('accepts a valid file and applies option defaults', () => {
    const [inst] = parseConnectorsConfig({ connectors: [fileEntry()] }, connectorTypes, 'c.json', {});
    expect(inst).toMatchObject({ name: 'erp-main', type: 'catalog-file', shopPk: 1, schedule: '* * * * *', enabled: true });
    expect(inst!.options).toEqual({
      inbox: '/tmp/in',
      format: 'csv',
      columns: {},
      settle_ms: 2000,
      max_bytes: 1024 ** 3,
      max_document_bytes: 200 * 1024 ** 2,
    });
  });

  it('names an unknown type by entry and field', () => {
    const problems = problemsOf({ connectors: [fileEntry({ type: 'ftp-magic' })] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^connectors\.json: connectors\[0\] "erp-main": type: unknown connector type "ftp-magic" \(known: catalog-file, catalog-webhook[,)]/,
    );
  });

  it('names every bad option, a missing one and an unknown one', () => {
    const problems = problemsOf({ connectors: [fileEntry({ options: { format: 'pdf', settle_ms: -1, inbx: '/x' } })] });
    expect(problems).toContain('connectors.json: connectors[0] "erp-main": options.inbox: is required');
    expect(problems).toContain('connectors.json: connectors[0] "erp-main": options.inbx: is not a known option (did you mean inbox?)');
    expect(problems.some((p) => p.startsWith('connectors.json: connectors[0] "erp-main": options.format:'))).toBe(true);
    expect(problems).toContain('connectors.json: connectors[0] "erp-main": options.settle_ms: must be >= 0');
    // One line per field: a union says its branches at once.
    expect(problems.filter((p) => p.includes('options.format:'))).toEqual([
      'connectors.json: connectors[0] "erp-main": options.format: must be one of csv, json, xml, xlsx',
    ]);
    expect(problemsOf({ connectors: [fileEntry({ shop_pk: 0 })] })).toEqual([
      'connectors.json: connectors[0] "erp-main": shop_pk: must be >= 1 or null',
    ]);
  });

  it('fills each entry its own copy of the defaults', () => {
    const entry = (name: string) => ({
      name,
      type: 'tracking-http',
      options: { base_url: 'http://x', carriers: ['A'], url_template: '{tracking_code}', status_path: 'status', status_map: {} },
    });
    const [a, b] = parseConnectorsConfig({ connectors: [entry('a'), entry('b')] }, connectorTypes, 'c.json', {});
    expect(a!.options).toMatchObject({
      headers: {},
      final_failure_codes: [],
      concurrency: 4,
      event_fields: { time: 'time', code: 'code' },
    });
    expect(a!.options.headers).not.toBe(b!.options.headers);
  });

  it('names a bad cron expression', () => {
    const [p] = problemsOf({ connectors: [fileEntry({ schedule: '61 * * * *' })] });
    expect(p).toMatch(/^connectors\.json: connectors\[0\] "erp-main": schedule: "61 \* \* \* \*" is not a valid cron expression/);
    expect(problemsOf({ connectors: [fileEntry({ schedule: 'every minute' })] })[0]).toMatch(
      /schedule: "every minute" is not a valid cron expression/,
    );
  });

  it('names duplicate names, a missing shop_pk, bad entry fields and unset secret variables, all at once', () => {
    const problems = problemsOf({
      connectors: [
        fileEntry(),
        fileEntry({ shop_pk: undefined }),
        { name: 'Bad Name!', type: 'catalog-file', options: {} },
        { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'PIM_SECRET_NOT_SET' } },
      ],
    });
    expect(problems).toContain('connectors.json: connectors[1] "erp-main": name: "erp-main" is used by an earlier entry');
    expect(problems).toContain('connectors.json: connectors[1] "erp-main": shop_pk: is required for type catalog-file');
    expect(problems.some((p) => p.startsWith('connectors.json: connectors[2] "Bad Name!": name: '))).toBe(true);
    expect(problems).toContain(
      'connectors.json: connectors[3] "pim": options.secret_env: the environment variable PIM_SECRET_NOT_SET is not set',
    );
    expect(
      problemsOf(
        { connectors: [{ name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'PIM_SECRET' } }] },
        { PIM_SECRET: 'whsec_abc' },
      ),
    ).toEqual([]);
  });

  it('refuses a file that is not {"connectors": [...]}, and reads a missing file as no connectors', () => {
    expect(() => parseConnectorsConfig([], connectorTypes, 'c.json')).toThrow(/must be an object \{"connectors": \[\.\.\.\]\}/);
    expect(loadConnectorsFile('/nonexistent/connectors.json', connectorTypes)).toEqual([]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-conn-'));
    fs.writeFileSync(path.join(dir, 'c.json'), '{ "connectors": [ ');
    expect(() => loadConnectorsFile(path.join(dir, 'c.json'), connectorTypes)).toThrow(/is not valid JSON/);
  });

  it('stops daemon start-up with the message naming the entry and field', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-conn-'));
    const file = path.join(dir, 'connectors.json');
    fs.writeFileSync(file, JSON.stringify({ connectors: [fileEntry({ options: { inbox: dir, format: 'csv', settle_ms: 'soon' } })] }));
    await expect(startTestDaemon({ env: { WAYBILL_CONNECTORS: file } })).rejects.toThrow(
      /connectors\[0\] "erp-main": options\.settle_ms: must be integer/,
    );
  });
});

describe('the example connectors files', () => {
  const example = (name: string): string => path.join(repoRoot, 'config', name);

  it('config/connectors.example.json works as copied, with no environment: its inbox is made next to the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-example-'));
    fs.mkdirSync(path.join(dir, 'config'));
    const file = path.join(dir, 'config', 'connectors.json');
    fs.copyFileSync(example('connectors.example.json'), file);
    const [erp, ...rest] = loadConnectorsFile(file, connectorTypes, {});
    expect(rest).toEqual([]);
    expect(erp).toMatchObject({
      name: 'erp-main',
      type: 'catalog-file',
      options: { inbox: path.join(dir, 'data', 'inbox', 'erp-main'), format: 'csv' },
    });
    expect(fs.statSync(path.join(dir, 'data', 'inbox', 'erp-main')).isDirectory()).toBe(true);
  });

  it('config/connectors.carriers.example.json validates once the variables it names are set', () => {
    const raw = JSON.parse(fs.readFileSync(example('connectors.carriers.example.json'), 'utf8')) as {
      connectors: { type: string; options?: Record<string, unknown> }[];
    };
    const names = raw.connectors.flatMap((c) =>
      Object.entries(c.options ?? {})
        .filter(([k]) => k.endsWith('_env'))
        .map(([, v]) => v as string),
    );
    expect(names).toEqual(expect.arrayContaining(['PIM_WEBHOOK_SECRET', 'DHL_API_KEY', 'AFTERSHIP_API_KEY']));
    // Unset, each is named; set, the file is valid.
    const unset = problemsOf(raw);
    for (const name of names) expect(unset.some((p) => p.includes(`the environment variable ${name} is not set`))).toBe(true);
    const env = Object.fromEntries(names.map((n) => [n, 'whsec_dGVzdA==']));
    const instances = parseConnectorsConfig(raw, connectorTypes, 'example', env);
    expect(instances.map((i) => i.type)).toEqual(
      expect.arrayContaining(['catalog-webhook', 'tracking-dhl', 'tracking-aftership', 'tracking-http']),
    );
  });

  it("reads a relative folder from the connectors file's folder and creates it; a missing absolute one is left to the run to report", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-conn-'));
    const file = path.join(dir, 'nested', 'connectors.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(
      file,
      JSON.stringify({
        connectors: [
          fileEntry({ name: 'a', options: { inbox: 'in/a', format: 'csv' } }),
          fileEntry({ name: 'b', options: { inbox: path.join(dir, 'abs'), format: 'csv' } }),
        ],
      }),
    );
    const [a, b] = loadConnectorsFile(file, connectorTypes, {});
    expect(a!.options.inbox).toBe(path.join(dir, 'nested', 'in', 'a'));
    expect(b!.options.inbox).toBe(path.join(dir, 'abs'));
    expect(fs.existsSync(path.join(dir, 'nested', 'in', 'a'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'abs'))).toBe(false);
  });
});

describe('every problem at once, with "did you mean"', () => {
  it('a bad name hides neither a bad type nor a bad schedule nor bad options', () => {
    const problems = problemsOf({
      connectors: [
        {
          name: 'Erp Main',
          type: 'catalog-file',
          shop_pk: 1,
          schedule: '61 * * * *',
          options: { inbox: '/tmp/in', format: 'pdf', colums: {} },
        },
      ],
    });
    expect(problems).toEqual([
      'connectors.json: connectors[0] "Erp Main": name: must be lower-case letters, digits, - and _ (used in URLs and job keys)',
      expect.stringMatching(/^connectors\.json: connectors\[0\] "Erp Main": schedule: "61 \* \* \* \*" is not a valid cron expression/),
      'connectors.json: connectors[0] "Erp Main": options.colums: is not a known option (did you mean columns?)',
      'connectors.json: connectors[0] "Erp Main": options.format: must be one of csv, json, xml, xlsx',
    ]);
  });

  it('names the type, the entry field and the option a typo was probably meant to be', () => {
    const problems = problemsOf({ connectors: [{ name: 'erp', type: 'catalog-flie', shop_pk: 1, shedule: '* * * * *', options: {} }] });
    expect(problems).toContain('connectors.json: connectors[0] "erp": shedule: is not a known option (did you mean schedule?)');
    expect(problems.find((p) => p.includes('type:'))).toMatch(
      /type: unknown connector type "catalog-flie" \(did you mean catalog-file\? known: catalog-file, /,
    );
    // Too far from any known name: no guess.
    expect(problemsOf({ connectors: [fileEntry({ options: { inbox: '/x', format: 'csv', zzzzzz: 1 } })] })).toEqual([
      'connectors.json: connectors[0] "erp-main": options.zzzzzz: is not a known option',
    ]);
    expect(problemsOf({ connectors: [fileEntry({ type: 'ftp' })] })[0]).toMatch(/unknown connector type "ftp" \(known: /);
  });
});
