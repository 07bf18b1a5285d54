import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('config', () => {
  it('has defaults that start an embedded database on 127.0.0.1:8080', () => {
    const c = loadConfig({}, '/srv/waybill');
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8080, dataDir: '/srv/waybill/data', logLevel: 'info', connectorsFile: '/srv/waybill/config/connectors.json' });
    expect(c.databaseUrl).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reports every problem at once, by the variable the user set', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', PUBLIC_URL: 'ftp://x', WAYBILL_ADMIN_TOKEN: 'short' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'PUBLIC_URL', 'WAYBILL_ADMIN_TOKEN']) expect(text).toContain(name);
    expect(text).toContain('"eighty"');
    expect((error as ConfigError).message).not.toMatch(/at .*\.ts:\d+/);
  });

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example.com/api/' }).publicUrl).toBe('https://shop.example.com/api');
  });
});
