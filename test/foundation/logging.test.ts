import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';

describe('log redaction', () => {
  it('never writes keys, tokens, secrets or the Authorization header', async () => {
    let out = '';
    const sink = new Writable({
      write(c: Buffer, _e, cb) {
        out += c.toString();
        cb();
      },
    });
    const log = createLogger({ level: 'info', console: false, streams: [{ level: 'trace', stream: sink }] });
    // A request is logged as Fastify logs it (method, url...; its headers are not written at all).
    log.info(
      {
        req: {
          method: 'GET',
          url: '/shops/1/?page=2&token=wb_inthequery&Key=wb_k2',
          headers: { authorization: 'Token wb_supersecretkey' },
        },
      },
      'request',
    );
    log.info({ key: 'wb_anotherkey', token: 'admintoken123', nested: { secret: 'whsec_abc', password: 'pw' } }, 'values');
    log.info({ headers: { authorization: 'Bearer admintoken123' } }, 'outgoing');
    for (const s of ['wb_supersecretkey', 'wb_anotherkey', 'admintoken123', 'whsec_abc', '"pw"', 'wb_inthequery', 'wb_k2'])
      expect(out).not.toContain(s);
    expect(out).toContain('"url":"/shops/1/?page=2&token=[redacted]&Key=[redacted]"');
    expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(7);
  });
});
