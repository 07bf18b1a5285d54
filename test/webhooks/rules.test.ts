// The pure parts of webhooks, without a daemon: which answers count as errors, the secret box
// (sealing, the wrong key, a changed value, the key file), and reading only the start of an answer.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outboundRequest, OutboundError } from '../../src/outbound/outbound-http.ts';
import { SecretBox } from '../../src/shops/secret-box.ts';
import { eventNameOf, isErrorAnswer, outcomeOf } from '../../src/webhooks/webhook-events.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-secret-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('answers', () => {
  it('a 2xx body is an error when its first non-blank text is "error", or a JSON object whose first member is a non-empty "error"', () => {
    for (const body of [
      'error',
      'ERROR: database down',
      '\uFEFF\n  Error\n',
      '{"error":"bad"}',
      ' { "error" : {"code":1} }',
      '{"ERROR":true}',
      '{"error":0}',
    ]) {
      expect(isErrorAnswer(body), body).toBe(true);
    }
    for (const body of [
      '',
      'ok',
      '{"ok":true}',
      '{"ok":true,"error":"x"}',
      '{"error":null}',
      '{"error": false, "ok": true}',
      '{"error":""}',
      'errors: none',
      'no error',
      '[{"error":"x"}]',
    ]) {
      expect(isErrorAnswer(body), body).toBe(false);
    }
  });

  it('outcomes: 2xx delivered unless an error body; 410 refused; every other status failed (retried)', () => {
    expect(outcomeOf(200, '')).toBe('delivered');
    expect(outcomeOf(204, '')).toBe('delivered');
    expect(outcomeOf(299, '{"error":"x"}')).toBe('failed');
    expect(outcomeOf(410, '')).toBe('refused');
    for (const status of [301, 400, 401, 404, 408, 429, 500, 503]) expect(outcomeOf(status, ''), String(status)).toBe('failed');
  });

  it("event names: the clients' names, both order types under the created event", () => {
    expect(eventNameOf('feed.completed')).toBe('product_feed:feed:finish');
    expect(eventNameOf('order.created')).toBe('product_feed:order:created');
    expect(eventNameOf('order.status_changed')).toBe('product_feed:order:created');
  });
});

describe('SecretBox', () => {
  it('seals with AES-GCM (a fresh IV each time) and opens; a value stored unsealed opens as it is', () => {
    const box = new SecretBox({ key: 'k'.repeat(32), file: path.join(dir, 'unused.key') });
    const a = box.seal('whsec_abc');
    expect(a).toMatch(/^sealed:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(box.seal('whsec_abc'));
    expect(a).not.toContain('abc');
    expect(box.open(a)).toBe('whsec_abc');
    expect(box.open('whsec_plain')).toBe('whsec_plain');
    expect(fs.existsSync(path.join(dir, 'unused.key'))).toBe(false);
  });

  it('another key says which key it has (transient, so another replica may deliver); a changed value does not open', () => {
    const a = new SecretBox({ key: 'a'.repeat(32), file: '' });
    const b = new SecretBox({ key: 'b'.repeat(32), file: '' });
    const sealed = a.seal('whsec_x');
    expect(() => b.open(sealed)).toThrow(
      expect.objectContaining({ code: 'secret_key_mismatch', status: 503, message: expect.stringContaining('WAYBILL_SECRET_KEY') }),
    );
    const [head, packed] = [sealed.slice(0, sealed.lastIndexOf(':') + 1), sealed.slice(sealed.lastIndexOf(':') + 1)];
    const flipped = Buffer.from(packed, 'base64url');
    flipped[flipped.length - 1]! ^= 1;
    expect(() => a.open(head + flipped.toString('base64url'))).toThrow(expect.objectContaining({ code: 'secret_unreadable' }));
  });

  it('without WAYBILL_SECRET_KEY: a random key file (0600), made once and used by every box after', () => {
    const file = path.join(dir, 'data', 'secret.key');
    const boxes = Array.from({ length: 8 }, () => new SecretBox({ file }));
    const sealed = boxes.map((b) => b.seal('whsec_shared'));
    for (const b of boxes) for (const s of sealed) expect(b.open(s)).toBe('whsec_shared');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['secret.key']);
    expect(new SecretBox({ file }).open(sealed[0]!)).toBe('whsec_shared');
  });
});

describe('reading only the start of an answer (overflow: truncate)', () => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, req.url === '/declared' ? { 'content-length': String(3 * 1024 * 1024) } : {});
    const chunk = Buffer.alloc(64 * 1024, 'y');
    let sent = 0;
    const more = (): void => {
      while (sent < 3 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  const listening = new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  it('answers the first maxBytes and stops; without it the same answer fails as too large', async () => {
    await listening;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const p of ['/chunked', '/declared']) {
      const res = await outboundRequest(`${url}${p}`, { signal: AbortSignal.timeout(5_000), maxBytes: 4096, overflow: 'truncate' });
      expect(res.status).toBe(200);
      expect(res.truncated).toBe(true);
      expect(res.body.length).toBe(4096);
      await expect(outboundRequest(`${url}${p}`, { signal: AbortSignal.timeout(5_000), maxBytes: 4096 })).rejects.toBeInstanceOf(
        OutboundError,
      );
    }
  });
});
