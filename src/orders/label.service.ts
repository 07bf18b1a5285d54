// Shipping labels of an order's shipment, and the signed links that open them without the API
// key (a browser, a label printer's driver): the link names the order and format, an expiry
// (unix seconds) and an HMAC-SHA256 of those under a key derived from WAYBILL_SECRET_KEY (or
// secret.key), so any replica with the same key opens it and nobody can forge or extend one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { LabelData } from './label-render.ts';
import type { OrderService } from './orders.service.ts';

export const LABEL_FORMATS = { pdf: 'application/pdf', zpl: 'application/zpl' } as const;
export type LabelFormat = keyof typeof LABEL_FORMATS;

export interface LabelRef {
  shopPk: number;
  marketplacePk: number;
  orderPk: number;
  format: LabelFormat;
}

export interface LabelServiceOptions {
  /** The signing key (SecretBox.deriveKey('label links')), asked for at the first link made or checked. */
  key: () => Buffer;
  /** How long a link opens the label; default 900 s (15 min). */
  ttlSeconds?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/** Code 128 encodes ASCII 32-126 (and controls no carrier uses). */
const CODE128_TEXT = /^[\x20-\x7e]+$/;

export class LabelService {
  readonly #orders: OrderService;
  readonly #shops: ShopService;
  readonly #keySource: () => Buffer;
  #key: Buffer | null = null;
  readonly #ttl: number;
  readonly #now: () => number;

  constructor(orders: OrderService, shops: ShopService, options: LabelServiceOptions) {
    this.#orders = orders;
    this.#shops = shops;
    this.#keySource = options.key;
    this.#ttl = options.ttlSeconds ?? 900;
    this.#now = options.now ?? (() => Date.now());
  }

  /**
   * The label of the order's latest shipment. 404: no such order; 409 naming what is missing
   * when there is no shipment, or it lacks a carrier or tracking code, or the order has no
   * shipping address.
   */
  async render(ref: LabelRef): Promise<{ body: Buffer | string; contentType: string }> {
    const data = await this.#data(ref);
    const { renderPdf, renderZpl } = await import('./label-render.ts');
    const body = ref.format === 'pdf' ? await renderPdf(data) : renderZpl(data);
    return { body, contentType: LABEL_FORMATS[ref.format] };
  }

  async #data(ref: LabelRef): Promise<LabelData> {
    const order = await this.#orders.get(ref.shopPk, ref.marketplacePk, ref.orderPk);
    const shipment = order.shipments.at(-1);
    const missing: string[] = [];
    if (shipment === undefined) missing.push('shipment');
    else {
      if (shipment.carrier === null) missing.push('carrier');
      if (shipment.tracking_code === null) missing.push('tracking_code');
    }
    const recipient = order.shipping_address;
    if (recipient === null) missing.push('shipping_address');
    if (missing.length > 0 || shipment === undefined || recipient === null) {
      const hints: Record<string, string> = {
        shipment: 'the order has no shipment yet (POST .../ship/ with carrier and tracking_code)',
        carrier: `shipment ${shipment?.id} has no carrier (POST .../ship/ with it)`,
        tracking_code: `shipment ${shipment?.id} has no tracking_code (POST .../ship/ with it)`,
        shipping_address: 'the order has no shipping_address',
      };
      throw new AppError('label_unavailable', 409, `No label can be made: ${missing.map((m) => hints[m]).join('; ')}.`, {
        extra: { missing },
      });
    }
    if (!CODE128_TEXT.test(shipment.tracking_code!)) {
      throw new AppError(
        'label_unavailable',
        409,
        `No label can be made: tracking_code ${JSON.stringify(shipment.tracking_code)} has characters a Code 128 barcode cannot hold.`,
        { extra: { missing: [] } },
      );
    }
    const shop = await this.#shops.get(ref.shopPk);
    const inShipment = new Set(shipment.item_pks);
    return {
      shop: { pk: shop.pk, name: shop.name },
      order: { pk: order.order_pk, reference: order.reference, marketplace_pk: order.marketplace_pk },
      recipient,
      items: order.items.filter((i) => inShipment.has(i.item_pk)).map((i) => ({ sku: i.sku, quantity: i.quantity })),
      carrier: shipment.carrier!,
      tracking_code: shipment.tracking_code!,
      shipment_id: shipment.id,
      shipped_at: new Date(shipment.shipped_at),
    };
  }

  #signature(ref: LabelRef, expires: number): Buffer {
    this.#key ??= this.#keySource();
    return createHmac('sha256', this.#key)
      .update(`label\n${ref.shopPk}\n${ref.marketplacePk}\n${ref.orderPk}\n${ref.format}\n${expires}`)
      .digest();
  }

  /** The query string of a link that opens this label until now + ttl. */
  signedQuery(ref: LabelRef): string {
    const expires = Math.floor(this.#now() / 1000) + this.#ttl;
    return new URLSearchParams({
      format: ref.format,
      expires: String(expires),
      signature: this.#signature(ref, expires).toString('base64url'),
    }).toString();
  }

  /**
   * 403 `invalid_signature` for a link not signed here or altered in any way: each part is
   * compared as the text this daemon writes (`expires=...0`, `/015/`, a trailing `=` or another
   * unused base64 bit are changes too); 403 `link_expired` past its expiry. `sent`: the link's
   * path ids (shop, marketplace, order) and expiry as sent.
   */
  verify(ref: LabelRef, sent: { ids: string[]; expires: string }, signature: string): void {
    const expires = Number(sent.expires);
    const wanted = Buffer.from(this.#signature(ref, expires).toString('base64url'));
    const given = Buffer.from(signature);
    const canonical =
      String(expires) === sent.expires &&
      Number.isSafeInteger(expires) &&
      sent.ids.join('/') === [ref.shopPk, ref.marketplacePk, ref.orderPk].join('/');
    if (!canonical || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw new AppError(
        'invalid_signature',
        403,
        'This label link is not valid (altered, or signed with another key); request a new one with POST .../label/.',
      );
    }
    if (Math.floor(this.#now() / 1000) > expires) {
      throw new AppError('link_expired', 403, 'This label link has expired; request a new one with POST .../label/.');
    }
  }
}
