// Images and variations of products, written in bulk for a chunk of feed items: product
// images first (a variation refers to product images by address), then variations, then the
// variation-image links. Used by product create/update and variation create.
import type { Executor } from '../db/database.ts';
import * as w from './catalog-write.repository.ts';
import type { ImageInput, VariationCreate } from './catalog.schemas.ts';
import { imageUrls, variationAttrs, type ImageOut } from './catalog-items.ts';

export interface ChildrenInput {
  productPk: number;
  /** When present, the product's images become exactly these (plus the variations' own). */
  images?: ImageInput[];
  variations?: VariationCreate[];
}

export interface ChildrenResult {
  /** The product's images after the write, by product. */
  images: Map<number, ImageOut[]>;
  /** Variation pk by product pk and sku. */
  variationPk: (productPk: number, sku: string) => number;
  /** The linked images of a variation after the write. */
  variationImages: (variationPk: number) => ImageOut[];
}

const key = (productPk: number, sku: string): string => `${productPk}\u0000${sku}`;

export async function writeChildren(db: Executor, entries: ChildrenInput[]): Promise<ChildrenResult> {
  const productPks = [...new Set(entries.map((e) => e.productPk))];
  const current = await w.imagesOfProducts(db, productPks);
  const currentOf = new Map<number, { url: string; position: number }[]>();
  for (const img of current) (currentOf.get(img.product_pk) ?? currentOf.set(img.product_pk, []).get(img.product_pk)!).push(img);

  // 1. Product images: a sent list replaces; otherwise the variations' addresses are appended.
  const rows: w.ImageRow[] = [];
  const replaceFor: number[] = [];
  const merged = new Map<number, ChildrenInput>();
  for (const e of entries) {
    const m = merged.get(e.productPk) ?? { productPk: e.productPk };
    if (e.images !== undefined) m.images = e.images;
    if (e.variations !== undefined) m.variations = [...(m.variations ?? []), ...e.variations];
    merged.set(e.productPk, m);
  }
  for (const e of merged.values()) {
    const fromVariations = imageUrls((e.variations ?? []).flatMap((v) => v.images ?? []));
    if (e.images !== undefined) {
      replaceFor.push(e.productPk);
      const urls = [...new Set([...imageUrls(e.images), ...fromVariations])];
      urls.forEach((url, position) => rows.push({ product_pk: e.productPk, url, position }));
    } else if (fromVariations.length > 0) {
      const have = currentOf.get(e.productPk) ?? [];
      const known = new Set(have.map((i) => i.url));
      let next = have.reduce((max, i) => Math.max(max, i.position + 1), 0);
      for (const url of fromVariations) if (!known.has(url)) rows.push({ product_pk: e.productPk, url, position: next++ });
    }
  }
  const touched = await w.writeProductImages(db, rows, replaceFor);
  const imagesNow = rows.length > 0 || replaceFor.length > 0 ? await w.imagesOfProducts(db, productPks) : current;
  const images = new Map<number, ImageOut[]>(productPks.map((pk) => [pk, []]));
  const imagePkByUrl = new Map<string, number>();
  const imageByPk = new Map<number, ImageOut>();
  for (const i of imagesNow) {
    const out = { image_pk: i.pk, url: i.url, position: i.position };
    images.get(i.product_pk)!.push(out);
    imagePkByUrl.set(key(i.product_pk, i.url), i.pk);
    imageByPk.set(i.pk, out);
  }

  // 2. Variations by (product, sku); the last one sent wins.
  const variations = new Map<string, { productPk: number; v: VariationCreate }>();
  for (const e of merged.values()) for (const v of e.variations ?? []) variations.set(key(e.productPk, v.sku), { productPk: e.productPk, v });
  const variationPks = new Map<string, number>();
  const links: w.LinkRow[] = [];
  const linkedFor: number[] = [];
  if (variations.size > 0) {
    touched.push(...(await w.upsertVariations(db, [...variations.values()].map(({ productPk, v }) => ({
      product_pk: productPk,
      sku: v.sku,
      price: v.price ?? null,
      stock: v.stock ?? null,
      attrs: JSON.stringify(variationAttrs(v)),
    })))));
    const withVariations = [...new Set([...variations.values()].map((x) => x.productPk))];
    for (const r of await w.variationsOfProducts(db, withVariations)) variationPks.set(key(r.product_pk, r.sku), r.pk);
    // 3. Links of the variations that sent images.
    for (const [k, { productPk, v }] of variations) {
      if (v.images === undefined) continue;
      const vpk = variationPks.get(k)!;
      linkedFor.push(vpk);
      imageUrls(v.images).forEach((url, position) => links.push({ variation_pk: vpk, image_pk: imagePkByUrl.get(key(productPk, url))!, position }));
    }
    if (await w.setVariationImages(db, linkedFor, links)) touched.push(...withVariations);
  }
  await w.touchProducts(db, touched);

  const linksByVariation = new Map<number, ImageOut[]>();
  const allLinks = linkedFor.length === variationPks.size ? links : await w.linksOfVariations(db, [...variationPks.values()]);
  for (const l of allLinks) {
    const img = imageByPk.get(l.image_pk);
    if (img !== undefined) (linksByVariation.get(l.variation_pk) ?? linksByVariation.set(l.variation_pk, []).get(l.variation_pk)!).push({ ...img, position: l.position });
  }
  return {
    images,
    variationPk: (productPk, sku) => variationPks.get(key(productPk, sku))!,
    variationImages: (vpk) => linksByVariation.get(vpk) ?? [],
  };
}
