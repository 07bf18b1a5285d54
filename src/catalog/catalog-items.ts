// What applying feed items reports, and how validated items become stored rows.
import { productAttributeFields, type ImageInput } from './catalog.schemas.ts';

export interface ImageOut {
  image_pk: number;
  url: string;
  position: number;
}

/** One applied item of a feed's `result.success`. `warning` is filled by the feed service. */
export interface ItemSuccess {
  index: number;
  sku?: string;
  product_pk?: number;
  variation_pk?: number;
  variation_pks?: number[];
  image_pk?: number;
  url?: string;
  position?: number;
  images?: ImageOut[];
  warning: { pointer: string; message: string }[];
}

/** One refused item of a feed's `result.errors`. */
export interface ItemError {
  index: number;
  sku?: string;
  pk?: number;
  pointer: string;
  code: string;
  message: string;
}

export interface ChunkOutcome {
  success: ItemSuccess[];
  errors: ItemError[];
}

export interface Indexed<T> {
  index: number;
  item: T;
}

const PRODUCT_ATTRS = Object.keys(productAttributeFields);
const VARIATION_ATTRS = ['availability', 'condition', 'color', 'secondary_color', 'size', 'discount', 'discount_from', 'discount_to'];

const pick = (item: Record<string, unknown>, keys: string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (item[k] !== undefined) out[k] = item[k];
  return out;
};

/** The attributes document of a product (every field but sku/name/price/stock/images/variations). */
export const productAttrs = (item: object): Record<string, unknown> => pick(item as Record<string, unknown>, PRODUCT_ATTRS);
export const variationAttrs = (item: object): Record<string, unknown> => pick(item as Record<string, unknown>, VARIATION_ATTRS);

export const imageUrl = (image: ImageInput): string => (typeof image === 'string' ? image : image.url);

/** Image addresses in order, each once. */
export const imageUrls = (images: ImageInput[]): string[] => [...new Set(images.map(imageUrl))];

export const notFoundError = (index: number, pointer: string, message: string, extra: { sku?: string; pk?: number } = {}): ItemError => ({
  index,
  ...extra,
  pointer,
  code: 'not_found',
  message,
});
