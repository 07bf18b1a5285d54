// Which webhook URLs may be set: every internal form refused (whatever way the address is
// written), public destinations accepted, and the operator's allow-list honoured.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DestinationPolicy, internalRange } from '../../src/outbound/destination-policy.ts';

const refused: [url: string, why: RegExp][] = [
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.0\.0\/16 link-local/],
  ['http://[fd00:ec2::254]/latest/meta-data/', /fc00::\/7 unique local/],
  ['http://100.100.100.200/', /100\.64\.0\.0\/10 shared address space/],
  ['http://192.0.0.192/', /192\.0\.0\.0\/24/],
  ['http://127.0.0.1:8080/hooks', /127\.0\.0\.0\/8 loopback/],
  ['http://127.1/', /127\.0\.0\.0\/8 loopback/],
  ['http://2130706433/', /127\.0\.0\.0\/8 loopback/],
  ['http://0x7f000001/', /127\.0\.0\.0\/8 loopback/],
  ['http://0177.0.0.1/', /127\.0\.0\.0\/8 loopback/],
  ['http://0x7f.1/', /127\.0\.0\.0\/8 loopback/],
  ['http://0.0.0.0:8080/', /0\.0\.0\.0\/8 unspecified/],
  ['http://0/', /0\.0\.0\.0\/8 unspecified/],
  ['http://10.1.2.3/', /10\.0\.0\.0\/8 private/],
  ['http://172.16.0.1/', /172\.16\.0\.0\/12 private/],
  ['http://172.31.255.255/', /172\.16\.0\.0\/12 private/],
  ['http://192.168.1.10/', /192\.168\.0\.0\/16 private/],
  ['http://100.64.0.1/', /CGNAT/],
  ['http://224.0.0.1/', /224\.0\.0\.0\/4 multicast/],
  ['http://255.255.255.255/', /240\.0\.0\.0\/4 reserved/],
  ['http://198.18.0.1/', /198\.18\.0\.0\/15 benchmarking/],
  ['http://[::1]:8080/', /::\/96/],
  ['http://[::]/', /::\/96/],
  ['http://[0:0:0:0:0:0:0:1]/', /::\/96/],
  ['http://[::ffff:127.0.0.1]/', /127\.0\.0\.0\/8 loopback/],
  ['http://[::ffff:7f00:1]/', /127\.0\.0\.0\/8 loopback/],
  ['http://[::ffff:169.254.169.254]/', /169\.254\.0\.0\/16 link-local/],
  ['http://[64:ff9b::10.0.0.1]/', /10\.0\.0\.0\/8 private/],
  ['http://[::127.0.0.1]/', /::\/96/],
  ['http://[fe80::1]/', /fe80::\/10 link-local/],
  ['http://[fc00::1]/', /fc00::\/7 unique local/],
  ['http://[ff02::1]/', /ff00::\/8 multicast/],
  ['http://[2002:7f00:1::]/', /2002::\/16 6to4/],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /2001::\/32 Teredo/],
  ['http://localhost:8080/', /localhost, a loopback name/],
  ['http://LOCALHOST./', /localhost, a loopback name/],
  ['http://api.localhost/', /api\.localhost, a loopback name/],
  ['https://user:pass@hooks.example.com/', /must not carry credentials/],
  ['https://token@hooks.example.com/', /must not carry credentials/],
  ['ftp://hooks.example.com/', /must start with http/],
  ['file:///etc/passwd', /must start with http/],
  ['not a url', /is not a valid URL/],
];

describe('webhook URLs refused when set', () => {
  const policy = new DestinationPolicy();
  it.each(refused)('%s', (url, why) => {
    expect(policy.refusal(url)).toMatch(why);
  });

  it('public destinations are accepted (names are checked on their addresses at delivery)', () => {
    for (const url of [
      'https://hooks.example.com/waybill',
      'http://93.184.216.34/',
      'https://[2606:4700::6810:85e5]/x',
      'https://8.8.8.8:8443/',
      'http://172.32.0.1/',
      'http://100.128.0.1/',
      'https://internal.example.com/',
    ]) {
      expect(policy.refusal(url), url).toBeNull();
    }
  });
});

describe('WAYBILL_WEBHOOK_ALLOW_PRIVATE', () => {
  const policy = new DestinationPolicy(['127.0.0.1', '10.20.0.0/16', 'hooks.lan', 'fd00::/8', 'localhost']);
  it('allows the listed addresses, ranges and names, in any of their forms', () => {
    for (const url of [
      'http://127.0.0.1:9000/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'http://10.20.3.4/',
      'http://hooks.lan/',
      'http://HOOKS.LAN./x',
      'http://[fd00::5]/',
      'http://localhost:3000/',
    ]) {
      expect(policy.refusal(url), url).toBeNull();
    }
  });

  it('refuses what it does not list, and credentials whatever the host', () => {
    expect(policy.refusal('http://127.0.0.2/')).toMatch(/127\.0\.0\.0\/8 loopback/);
    expect(policy.refusal('http://10.21.0.1/')).toMatch(/10\.0\.0\.0\/8 private/);
    expect(policy.refusal('http://169.254.169.254/')).toMatch(/link-local/);
    expect(policy.refusal('http://a:b@hooks.lan/')).toMatch(/credentials/);
  });
});

describe('WAYBILL_WEBHOOK_ALLOW_PRIVATE in the configuration', () => {
  it('is a comma-separated list (unset: empty); a bad entry stops start-up naming the variable', () => {
    expect(loadConfig({}).webhookAllowPrivate).toEqual([]);
    expect(loadConfig({ WAYBILL_WEBHOOK_ALLOW_PRIVATE: ' 127.0.0.1, 10.8.0.0/16 ,hooks.lan,fd00::/8,' }).webhookAllowPrivate).toEqual([
      '127.0.0.1',
      '10.8.0.0/16',
      'hooks.lan',
      'fd00::/8',
    ]);
    for (const bad of ['999.1.1.1', '10.0.0.0/33', 'two words', 'http://hooks.lan/']) {
      const error = (() => {
        try {
          loadConfig({ WAYBILL_WEBHOOK_ALLOW_PRIVATE: bad });
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems[0]).toMatch(
        /^WAYBILL_WEBHOOK_ALLOW_PRIVATE: must list host names, IP addresses or CIDRs, comma-separated/,
      );
    }
  });
});

describe('internalRange', () => {
  it('names the range of an internal address and null for a public one', () => {
    expect(internalRange('169.254.169.254')).toBe('169.254.0.0/16 link-local (cloud metadata 169.254.169.254)');
    expect(internalRange('::ffff:10.0.0.1')).toBe('10.0.0.0/8 private');
    expect(internalRange('1.1.1.1')).toBeNull();
    expect(internalRange('2606:4700::1111')).toBeNull();
    expect(internalRange('example.com')).toBeNull();
  });
});
