import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('config', () => {
  it('has defaults that start an embedded database on 127.0.0.1:8080', () => {
    const c = loadConfig({}, '/srv/waybill');
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/waybill/data',
      logLevel: 'info',
      connectorsFile: '/srv/waybill/config/connectors.json',
    });
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
    // The admin token is a secret: a wrong one is not echoed either.
    expect((error as ConfigError).problems).toContain('WAYBILL_ADMIN_TOKEN: must be at least 16 characters (got 5 characters)');
    expect(text).not.toContain('"short"');
    expect(() => loadConfig({ WAYBILL_SHUTDOWN_TIMEOUT_MS: '99999999999999999999' })).toThrow(
      /WAYBILL_SHUTDOWN_TIMEOUT_MS: must be <= 9007199254740991/,
    );
    expect((error as ConfigError).message).not.toMatch(/at .*\.ts:\d+/);
  });

  it('webhooks: the delivery time-out (default 15 s) and the secret key, never echoed when refused', () => {
    expect(loadConfig({})).toMatchObject({ webhookTimeoutMs: 15_000 });
    expect(loadConfig({}).secretKey).toBeUndefined();
    expect(loadConfig({ WAYBILL_WEBHOOK_TIMEOUT_MS: '2500', WAYBILL_SECRET_KEY: ' a-key-of-thirty-two-characters!! ' })).toMatchObject({
      webhookTimeoutMs: 2500,
      secretKey: 'a-key-of-thirty-two-characters!!',
    });
    let error: unknown;
    try {
      loadConfig({ WAYBILL_WEBHOOK_TIMEOUT_MS: 'soon', WAYBILL_SECRET_KEY: 'hunter2-too-short' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'WAYBILL_WEBHOOK_TIMEOUT_MS: must be integer (got "soon")',
      'WAYBILL_SECRET_KEY: must be at least 32 characters (got 17 characters)',
    ]);
    expect((error as ConfigError).message).not.toContain('hunter2');
  });

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example.com/api/' }).publicUrl).toBe('https://shop.example.com/api');
  });

  it('trusts no proxy unless WAYBILL_TRUST_PROXY names them: true, a hop count, or addresses and CIDRs', () => {
    const trust = (v?: string) => loadConfig(v === undefined ? {} : { WAYBILL_TRUST_PROXY: v }).trustProxy;
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('true')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', '127.0.0.1,proxy.local']) {
      expect(() => trust(bad), bad).toThrow(/WAYBILL_TRUST_PROXY: must be true, false, a number of proxies, or IP addresses\/CIDRs/);
    }
  });
});
