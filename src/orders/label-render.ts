// A shipping label (4 x 6 in) drawn from an order's shipment: carrier, sender (the shop),
// recipient, the items, and the tracking code as a Code 128 barcode with its text. PDF through
// pdfkit, the bars from bwip-js (as vector rectangles: sharp at any zoom, no image); ZPL as a
// text template using the printer's own Code 128 (^BC). Deterministic: the same shipment gives
// the same bytes (the PDF's creation date, hence its ID, is the shipment's shipped_at).
// Imported on the first label only (label.service.ts): pdfkit and bwip-js are slow to load,
// which no start-up and no CLI command should pay.
import bwipjs from 'bwip-js';
import PDFDocument from 'pdfkit';

/** What a label shows. */
export interface LabelData {
  shop: { pk: number; name: string };
  order: { pk: number; reference: string | null; marketplace_pk: number };
  recipient: Record<string, string | null>;
  items: { sku: string; quantity: number }[];
  carrier: string;
  tracking_code: string;
  shipment_id: number;
  shipped_at: Date;
}

/** At most this many item lines; more are summed up in one last line. */
const MAX_ITEM_LINES = 8;

const join = (...parts: (string | null | undefined)[]): string => parts.filter((p) => p !== null && p !== undefined && p !== '').join(' ');

/** The recipient's lines: name, street, neighbourhood, city line, country, phone. */
export function recipientLines(r: Record<string, string | null>): string[] {
  return [
    join(r.first_name, r.last_name),
    join(r.address, r.street_name),
    join(r.neighborhood, r.reference === null || r.reference === undefined ? null : `(${r.reference})`),
    join(r.postal_code, r.city, r.region),
    join(r.country),
    r.phone === null || r.phone === undefined ? '' : `Tel. ${r.phone}`,
  ].filter((l) => l !== '');
}

export function itemLines(items: LabelData['items']): string[] {
  const lines = items.slice(0, MAX_ITEM_LINES).map((i) => `${i.quantity} x ${i.sku}`);
  if (items.length > MAX_ITEM_LINES) lines.push(`+ ${items.length - MAX_ITEM_LINES} more items`);
  return lines;
}

/** Code 128 bar widths in modules, bar first, alternating bar and space (bwip-js). */
function code128Widths(text: string): number[] {
  const [symbol] = bwipjs.raw('code128', text, {}) as { sbs?: number[] }[];
  if (symbol?.sbs === undefined) throw new Error('bwip-js gave no Code 128 widths');
  return symbol.sbs;
}

const W = 288; // 4 in at 72 pt/in
const H = 432; // 6 in
const M = 14;

export function renderPdf(data: LabelData, options: { compress?: boolean } = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    size: [W, H],
    margin: M,
    compress: options.compress ?? true,
    info: {
      Title: `Label ${data.carrier} ${data.tracking_code}`,
      Author: data.shop.name,
      Subject: `Order ${data.order.pk}`,
      Producer: 'waybill',
      Creator: 'waybill',
      CreationDate: data.shipped_at,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = W - 2 * M;
  doc.font('Helvetica-Bold').fontSize(18).text(data.carrier, M, M, { width });
  doc
    .font('Helvetica')
    .fontSize(8)
    .text(`Order ${data.order.pk}${data.order.reference === null ? '' : ` (${data.order.reference})`} · shipment ${data.shipment_id}`, {
      width,
    });
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(7).text('FROM', { width });
  doc.font('Helvetica').fontSize(9).text(data.shop.name, { width });
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(7).text('TO', { width });
  doc.font('Helvetica-Bold').fontSize(12);
  for (const line of recipientLines(data.recipient)) doc.text(line, { width });
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(7).text('ITEMS', { width });
  doc.font('Helvetica').fontSize(8);
  for (const line of itemLines(data.items)) doc.text(line, { width });

  // The barcode at the bottom: as wide as the label allows, each module at least 0.75 pt.
  const widths = code128Widths(data.tracking_code);
  const modules = widths.reduce((a, b) => a + b, 0);
  const unit = Math.min(width / modules, 2);
  const barTop = H - M - 90;
  let x = M + (width - modules * unit) / 2;
  widths.forEach((w, i) => {
    if (i % 2 === 0) doc.rect(x, barTop, w * unit, 60).fill('#000000');
    x += w * unit;
  });
  doc
    .fillColor('#000000')
    .font('Courier-Bold')
    .fontSize(12)
    .text(data.tracking_code, M, barTop + 66, { width, align: 'center' });
  doc.end();
  return done;
}

/** ZPL fields must not hold the control characters ^ and ~; they are replaced. */
const zplText = (s: string): string => s.replace(/[\^~]/g, ' ');

export function renderZpl(data: LabelData): string {
  let y = 30;
  const line = (text: string, size: number): string => {
    const out = `^FO40,${y}^A0N,${size},${size}^FD${zplText(text)}^FS`;
    y += size + 10;
    return out;
  };
  const parts = [
    '^XA',
    '^CI28',
    '^PW812',
    '^LL1218',
    line(data.carrier, 50),
    line(`Order ${data.order.pk}${data.order.reference === null ? '' : ` (${data.order.reference})`} - shipment ${data.shipment_id}`, 24),
    line('FROM', 20),
    line(data.shop.name, 28),
    line('TO', 20),
    ...recipientLines(data.recipient).map((l) => line(l, 34)),
    line('ITEMS', 20),
    ...itemLines(data.items).map((l) => line(l, 24)),
    `^FO60,900^BY3^BCN,180,Y,N,N^FD${zplText(data.tracking_code)}^FS`,
    '^XZ',
  ];
  return `${parts.join('\n')}\n`;
}
