// Shipping labels: POST .../label/ answers the label and a signed link that opens it without
// the API key until it expires; the PDF is read back (pages, the text drawn on it).
import { inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, orderClient } from './helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const c = await orderClient(daemon);
const address = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  address: 'Rua do Ouro 12',
  city: 'Lisboa',
  postal_code: '1100-060',
  country: 'PT',
  phone: '+351 21 000 0000',
};

async function shippedOrder(
  orderPk: number,
  shipping: Record<string, unknown> | null = { carrier: 'DHL', tracking_code: 'JD014600006281230704' },
  withAddress = true,
): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: c.base,
    headers: c.auth,
    payload: {
      order_pk: orderPk,
      reference: `R-${orderPk}`,
      ...(withAddress ? { shipping_address: address } : {}),
      items: [
        { item_pk: 1, sku: 'MUG-BLUE', quantity: 2, price: 9 },
        { item_pk: 2, sku: 'TEE-L', quantity: 1, price: 15 },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  if (shipping !== null) expect((await c.act(orderPk, 'ship', shipping)).statusCode).toBe(204);
}

const label = (orderPk: number, accept = 'application/pdf') =>
  app.inject({ method: 'POST', url: `${c.base}${orderPk}/label/`, headers: { ...c.auth, accept } });

/** The PDF's page count and the text its content streams draw (pdfkit writes standard-font text as hex strings). */
function readPdf(pdf: Buffer): { pages: number; text: string } {
  const raw = pdf.toString('latin1');
  const pages = (raw.match(/\/Type \/Page\b/g) ?? []).length;
  const texts: string[] = [];
  for (const m of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let content: string;
    try {
      content = inflateSync(Buffer.from(m[1]!, 'latin1')).toString('latin1');
    } catch {
      content = m[1]!;
    }
    for (const op of content.matchAll(/\[([^\]]*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g)) {
      const hexes = op[1] !== undefined ? [...op[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]!) : [op[2]!];
      texts.push(hexes.map((h) => Buffer.from(h, 'hex').toString('latin1')).join(''));
    }
  }
  return { pages, text: texts.join('\n') };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('POST .../orders/{order}/label/', () => {
  it('201: a one-page PDF with the carrier, recipient, items and tracking code; Location opens it without a token', async () => {
    await shippedOrder(1);
    const res = await label(1);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers.allow).toBe('GET, POST, OPTIONS');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const { pages, text } = readPdf(res.rawPayload);
    expect(pages).toBe(1);
    for (const shown of [
      'DHL',
      'JD014600006281230704',
      'Ada Lovelace',
      'Rua do Ouro 12',
      '1100-060 Lisboa',
      '2 x MUG-BLUE',
      '1 x TEE-L',
      'Order 1 (R-1)',
    ])
      expect(text).toContain(shown);

    const location = new URL(res.headers.location as string);
    expect(location.pathname).toBe(`${c.base}1/label/`);
    expect(location.searchParams.get('format')).toBe('pdf');
    const opened = await app.inject({ url: location.pathname + location.search });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['content-type']).toBe('application/pdf');
    expect(opened.headers['cache-control']).toBe('no-store');
    expect(opened.rawPayload.equals(res.rawPayload)).toBe(true);
  });

  it('the same shipment gives the same document, byte for byte', async () => {
    await shippedOrder(2);
    const [a, b] = [await label(2), await label(2)];
    expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
    // New shipping data: a new document.
    await c.act(2, 'ship', { tracking_code: 'JD0999' });
    const after = await label(2);
    expect(after.rawPayload.equals(a.rawPayload)).toBe(false);
    expect(readPdf(after.rawPayload).text).toContain('JD0999');
  });

  it("Accept: application/zpl answers ZPL with the printer's Code 128; JSON only: 406", async () => {
    await shippedOrder(3);
    const res = await label(3, 'application/zpl');
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/zpl; charset=utf-8');
    expect(res.body).toMatch(/^\^XA\n/);
    expect(res.body).toContain('^BCN,180,Y,N,N^FDJD014600006281230704^FS');
    expect(res.body).toContain('^FDAda Lovelace^FS');
    expect(new URL(res.headers.location as string).searchParams.get('format')).toBe('zpl');
    expectProblem(await label(3, 'application/json'), 406, 'not_acceptable');
    expect((await label(3, '*/*')).headers['content-type']).toBe('application/pdf');
  });

  it('409 names what is missing: the shipment, its carrier and tracking code, the address', async () => {
    await shippedOrder(4, null);
    expect(expectProblem(await label(4), 409, 'label_unavailable')).toMatchObject({ missing: ['shipment'] });
    await c.act(4, 'ship', {});
    const noTracking = expectProblem(await label(4), 409, 'label_unavailable');
    expect(noTracking).toMatchObject({ missing: ['carrier', 'tracking_code'] });
    expect(noTracking.detail).toMatch(/shipment \d+ has no carrier/);
    await shippedOrder(5, { carrier: 'DHL', tracking_code: 'T5' }, false);
    expect(expectProblem(await label(5), 409, 'label_unavailable')).toMatchObject({ missing: ['shipping_address'] });
    expectProblem(await label(999), 404, 'not_found');
    expectProblem(
      await app.inject({ method: 'POST', url: `${c.base}1/label/`, headers: { accept: 'application/pdf' } }),
      401,
      'unauthorized',
    );
  });
});

describe('the signed label link', () => {
  it('an altered signature, order or format, or a later expiry: 403 invalid_signature', async () => {
    await shippedOrder(10);
    await shippedOrder(11);
    const url = new URL((await label(10)).headers.location as string);
    const open = (change: (q: URLSearchParams) => void, path = url.pathname) => {
      const q = new URLSearchParams(url.search);
      change(q);
      return app.inject({ url: `${path}?${q.toString()}` });
    };
    const sig = url.searchParams.get('signature')!;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expectProblem(await open((q) => q.set('signature', flipped)), 403, 'invalid_signature');
    expectProblem(await open((q) => q.set('expires', String(Number(q.get('expires')) + 3600))), 403, 'invalid_signature');
    expectProblem(await open((q) => q.set('format', 'zpl')), 403, 'invalid_signature');
    expectProblem(await open(() => undefined, url.pathname.replace('/10/', '/11/')), 403, 'invalid_signature');
    expectProblem(await open((q) => q.delete('signature')), 400, 'validation_failed');
    // Changes that decode to the same values are changes too: the link is compared as written.
    const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const unusedBit = sig.slice(0, -1) + B64[B64.indexOf(sig.at(-1)!) ^ 1]!;
    expect(Buffer.from(unusedBit, 'base64url')).toEqual(Buffer.from(sig, 'base64url'));
    expectProblem(await open((q) => q.set('signature', unusedBit)), 403, 'invalid_signature');
    expectProblem(await open((q) => q.set('signature', `${sig}=`)), 403, 'invalid_signature');
    expectProblem(await open((q) => q.set('expires', `0${q.get('expires')}`)), 403, 'invalid_signature');
    expectProblem(await open(() => undefined, url.pathname.replace('/orders/10/', '/orders/010/')), 403, 'invalid_signature');
    expect((await open(() => undefined)).statusCode).toBe(200);
  });

  it('opens for 15 minutes, then 403 link_expired', async () => {
    await shippedOrder(12);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const url = new URL((await label(12)).headers.location as string);
    expect(Number(url.searchParams.get('expires'))).toBe(Math.floor(start / 1000) + 900);
    vi.setSystemTime(start + 14 * 60_000);
    expect((await app.inject({ url: url.pathname + url.search })).statusCode).toBe(200);
    vi.setSystemTime(start + 16 * 60_000);
    expectProblem(await app.inject({ url: url.pathname + url.search }), 403, 'link_expired');
  });
});
