// Images and variations of products, written in bulk for a chunk of feed items: product
// images first (a variation refers to product images by address), then variations, then the
// variation-image links. Used by product create/update and variation create. Products the
// chunk has just created have nothing to compare with or remove, so their reads are skipped.
import type { Executor } from '../../db/database.ts';
import * as w from './write.repository.ts';
import type { ImageInput, VariationCreate } from '../catalog.schemas.ts';
import { imageUrls, variationAttrs, type ImageOut } from './items.ts';

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
  /** The linked images of a variation after the write (read on demand). */
  variationImages: (variationPk: number) => Promise<ImageOut[]>;
}

const key = (productPk: number, sku: string): string => `${productPk}\u0000${sku}`;

const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
};

/**
 * `fresh`: products created in this transaction (no images, variations or links yet).
 * `merge`: variations keep what they are not sent (a merge feed).
 */
export async function writeChildren(
  db: Executor,
  entries: ChildrenInput[],
  fresh: Set<number> = new Set(),
  merge = false,
): Promise<ChildrenResult> {
  const merged = new Map<number, ChildrenInput>();
  for (const e of entries) {
    const m = merged.get(e.productPk) ?? { productPk: e.productPk };
    if (e.images !== undefined) m.images = e.images;
    if (e.variations !== undefined) m.variations = [...(m.variations ?? []), ...e.variations];
    merged.set(e.productPk, m);
  }
  const productPks = [...merged.keys()];
  const old = productPks.filter((pk) => !fresh.has(pk));
  const currentOf = new Map<number, w.ImageRow[]>();
  for (const img of await w.imagesOfProducts(db, old)) push(currentOf, img.product_pk, img);

  // 1. Product images: a sent list replaces; otherwise the variations' addresses are appended.
  const rows: w.ImageRow[] = [];
  const replaceFor: number[] = [];
  for (const e of merged.values()) {
    const fromVariations = imageUrls((e.variations ?? []).flatMap((v) => v.images ?? []));
    if (e.images !== undefined) {
      if (!fresh.has(e.productPk)) replaceFor.push(e.productPk);
      [...new Set([...imageUrls(e.images), ...fromVariations])].forEach((url, position) =>
        rows.push({ product_pk: e.productPk, url, position }),
      );
    } else if (fromVariations.length > 0) {
      const have = currentOf.get(e.productPk) ?? [];
      const known = new Set(have.map((i) => i.url));
      let next = have.reduce((max, i) => Math.max(max, i.position + 1), 0);
      for (const url of fromVariations) if (!known.has(url)) rows.push({ product_pk: e.productPk, url, position: next++ });
    }
  }
  const { changed: touched, written } = await w.writeProductImages(db, rows, replaceFor);
  // Images now: what was written, plus (for older products) what was there and stays.
  const stored =
    old.length > 0 && (rows.length > 0 || replaceFor.length > 0)
      ? await w.imagesOfProducts(db, old)
      : ([...currentOf.values()].flat() as (w.ImageRow & { pk: number })[]);
  const images = new Map<number, ImageOut[]>(productPks.map((pk) => [pk, []]));
  const imagePkByUrl = new Map<string, number>();
  const imageByPk = new Map<number, ImageOut>();
  const all = [...stored, ...written.filter((i) => fresh.has(i.product_pk))].sort(
    (a, b) => a.product_pk - b.product_pk || a.position - b.position,
  );
  for (const i of all) {
    const out = { image_pk: i.pk, url: i.url, url_source: i.url, position: i.position };
    images.get(i.product_pk)?.push(out);
    imagePkByUrl.set(key(i.product_pk, i.url), i.pk);
    imageByPk.set(i.pk, out);
  }

  // 2. Variations by (product, sku); the last one sent wins.
  const variations = new Map<string, { productPk: number; v: VariationCreate }>();
  for (const e of merged.values())
    for (const v of e.variations ?? []) variations.set(key(e.productPk, v.sku), { productPk: e.productPk, v });
  const variationPks = new Map<string, number>();
  if (variations.size > 0) {
    const upserted = await w.upsertVariations(
      db,
      [...variations.values()].map(({ productPk, v }) => ({
        product_pk: productPk,
        sku: v.sku,
        price: v.price ?? null,
        stock: v.stock ?? null,
        attrs: JSON.stringify(variationAttrs(v).set),
      })),
      merge,
    );
    for (const r of upserted) variationPks.set(key(r.product_pk, r.sku), r.pk);
    touched.push(...upserted.map((r) => r.product_pk));
    // Unchanged variations are not returned by the upsert: read theirs.
    if (variationPks.size < variations.size) {
      const withVariations = [...new Set([...variations.values()].map((x) => x.productPk))].filter((pk) => !fresh.has(pk));
      for (const r of await w.variationsOfProducts(db, withVariations)) variationPks.set(key(r.product_pk, r.sku), r.pk);
    }
    // 3. Links of the variations that sent images (a fresh product's variations have none to drop).
    const links: w.LinkRow[] = [];
    const linkedFor: number[] = [];
    const linkedProducts: number[] = [];
    const addOnly: w.LinkRow[] = [];
    for (const [k, { productPk, v }] of variations) {
      if (v.images === undefined) continue;
      const vpk = variationPks.get(k)!;
      const target = fresh.has(productPk) ? addOnly : links;
      if (!fresh.has(productPk)) linkedFor.push(vpk);
      linkedProducts.push(productPk);
      imageUrls(v.images).forEach((url, position) =>
        target.push({ variation_pk: vpk, image_pk: imagePkByUrl.get(key(productPk, url))!, position }),
      );
    }
    if (await w.setVariationImages(db, linkedFor, links)) touched.push(...linkedProducts.filter((pk) => !fresh.has(pk)));
    await w.insertVariationImages(db, addOnly);
  }
  await w.touchProducts(
    db,
    touched.filter((pk) => !fresh.has(pk)),
  );

  return {
    images,
    variationPk: (productPk, sku) => variationPks.get(key(productPk, sku))!,
    variationImages: async (vpk) =>
      (await w.linksOfVariations(db, [vpk])).flatMap((l) => {
        const img = imageByPk.get(l.image_pk);
        return img === undefined ? [] : [{ ...img, position: l.position }];
      }),
  };
}
