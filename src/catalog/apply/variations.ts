// Variation create/update/delete and variation image replace/delete, for feed processing.
import type { Executor } from '../../db/database.ts';
import type { ImageRef, VariationCreate, VariationUpdate } from '../catalog.schemas.ts';
import { writeChildren } from './children.ts';
import {
  foldAttrs,
  notFoundError,
  ok,
  productGone,
  variationAttrs,
  type ApplyTarget,
  type ChunkOutcome,
  type ImageOut,
  type Indexed,
  type ItemError,
  type ItemSuccess,
} from './items.ts';
import * as w from './write.repository.ts';

async function productImages(db: Executor, productPk: number): Promise<Map<number, ImageOut>> {
  const rows = await w.imagesOfProducts(db, [productPk]);
  return new Map(rows.map((i) => [i.pk, { image_pk: i.pk, url: i.url, url_source: i.url, position: i.position }]));
}

export async function applyVariationCreate(db: Executor, target: ApplyTarget, items: Indexed<VariationCreate>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  if (!(await w.productAlive(db, target.shopPk, productPk))) return productGone(items, productPk, true);
  const children = await writeChildren(db, [{ productPk, variations: items.map(({ item }) => item) }]);
  const success: ItemSuccess[] = [];
  for (const { index, item } of items) {
    const vpk = children.variationPk(productPk, item.sku);
    success.push(
      ok(index, { sku: item.sku, product_pk: vpk, parent_pk: productPk, variation_pk: vpk, images: await children.variationImages(vpk) }),
    );
  }
  return { success, errors: [] };
}

export async function applyVariationUpdate(db: Executor, target: ApplyTarget, items: Indexed<VariationUpdate>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  if (!(await w.productAlive(db, target.shopPk, productPk))) return productGone(items, productPk, true);
  const variations = await w.variationsOfProducts(db, [productPk]);
  const byPk = new Map(variations.map((v) => [v.pk, v]));
  const skuOwner = new Map(variations.map((v) => [v.sku, v.pk]));
  const images = await productImages(db, productPk);
  const errors: ItemError[] = [];
  const good: Indexed<VariationUpdate>[] = [];
  for (const { index, item } of items) {
    const v = byPk.get(item.pk);
    if (v === undefined || v.deleted_at !== null) {
      errors.push(
        notFoundError(index, `/${index}/pk`, `Variation ${item.pk} was not found in product ${productPk}.`, {
          sku: item.sku,
          product_pk: item.pk,
          parent_pk: productPk,
        }),
      );
      continue;
    }
    const badImages = (item.images ?? []).flatMap((ref, j) => (images.has(ref.pk) ? [] : [j]));
    if (badImages.length > 0) {
      for (const j of badImages) {
        errors.push(
          notFoundError(index, `/${index}/images/${j}/pk`, `Image ${item.images![j]!.pk} is not an image of product ${productPk}.`, {
            sku: v.sku,
            product_pk: item.pk,
            parent_pk: productPk,
            image_pk: item.images![j]!.pk,
          }),
        );
      }
      continue;
    }
    const owner = item.sku === undefined ? undefined : skuOwner.get(item.sku);
    if (owner !== undefined && owner !== item.pk) {
      errors.push({
        index,
        sku: item.sku,
        product_pk: item.pk,
        parent_pk: productPk,
        pointer: `/${index}/sku`,
        code: 'conflict',
        message: `Variation ${owner} of product ${productPk} already has sku ${item.sku}.`,
      });
      continue;
    }
    if (item.sku !== undefined) {
      skuOwner.delete(v.sku);
      skuOwner.set(item.sku, item.pk);
      v.sku = item.sku;
    }
    good.push({ index, item });
  }
  // Several updates of one variation in a chunk fold into one, in order.
  const patches = new Map<
    number,
    Omit<w.VariationPatchRow, 'attrs' | 'drop'> & { set: Record<string, unknown>; drop: Set<string>; images?: number[] }
  >();
  for (const { item } of good) {
    const p = patches.get(item.pk) ?? { pk: item.pk, sku: null, price: null, stock: null, set: {}, drop: new Set<string>() };
    p.sku = item.sku ?? p.sku;
    p.price = item.price ?? p.price;
    p.stock = item.stock ?? p.stock;
    foldAttrs(p, variationAttrs(item));
    if (item.images !== undefined) p.images = [...new Set(item.images.map((r) => r.pk))];
    patches.set(item.pk, p);
  }
  const all = [...patches.values()];
  const touched = await w.patchVariations(
    db,
    all.map(({ set, drop, images: _i, ...p }) => ({ ...p, attrs: JSON.stringify(set), drop: JSON.stringify([...drop]) })),
  );
  const withImages = all.filter((p) => p.images !== undefined);
  const links = withImages.flatMap((p) => p.images!.map((image_pk, position) => ({ variation_pk: p.pk, image_pk, position })));
  if (
    await w.setVariationImages(
      db,
      withImages.map((p) => p.pk),
      links,
    )
  )
    touched.push(productPk);
  await w.touchProducts(db, touched);
  const linked = new Map<number, ImageOut[]>();
  for (const l of await w.linksOfVariations(db, [...patches.keys()])) {
    (linked.get(l.variation_pk) ?? linked.set(l.variation_pk, []).get(l.variation_pk)!).push({
      ...images.get(l.image_pk)!,
      position: l.position,
    });
  }
  return {
    success: good.map(({ index, item }) =>
      ok(index, {
        sku: byPk.get(item.pk)!.sku,
        product_pk: item.pk,
        parent_pk: productPk,
        variation_pk: item.pk,
        images: linked.get(item.pk) ?? [],
      }),
    ),
    errors,
  };
}

export async function applyVariationDelete(db: Executor, target: ApplyTarget, items: Indexed<ImageRef>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  if (!(await w.productAlive(db, target.shopPk, productPk))) return productGone(items, productPk, true);
  const byPk = new Map((await w.variationsOfProducts(db, [productPk])).map((v) => [v.pk, v]));
  const found = items.filter(({ item }) => byPk.has(item.pk));
  const touched = await w.softDeleteVariations(db, [...new Set(found.map(({ item }) => item.pk))]);
  await w.touchProducts(db, touched);
  return {
    success: found.map(({ index, item }) =>
      ok(index, { sku: byPk.get(item.pk)!.sku, product_pk: item.pk, parent_pk: productPk, variation_pk: item.pk }),
    ),
    errors: items
      .filter(({ item }) => !byPk.has(item.pk))
      .map(({ index, item }) =>
        notFoundError(index, `/${index}/pk`, `Variation ${item.pk} was not found in product ${productPk}.`, {
          product_pk: item.pk,
          parent_pk: productPk,
        }),
      ),
  };
}

/** The feed's variation (its sku), or undefined when it or its product is gone. */
async function liveVariation(db: Executor, target: ApplyTarget): Promise<{ sku: string } | undefined> {
  if (!(await w.productAlive(db, target.shopPk, target.productPk!))) return undefined;
  const v = (await w.variationsOfProducts(db, [target.productPk!])).find((x) => x.pk === target.variationPk);
  return v !== undefined && v.deleted_at === null ? v : undefined;
}

const variationGone = (items: Indexed<unknown>[], target: ApplyTarget): ChunkOutcome => ({
  success: [],
  errors: items.map(({ index }) =>
    notFoundError(index, `/${index}`, `Variation ${target.variationPk} of product ${target.productPk} was not found.`, {
      product_pk: target.productPk!,
    }),
  ),
});

/** One report item per image of a variation image feed. */
const imageItem = (index: number, sku: string, target: ApplyTarget, image: ImageOut): ItemSuccess =>
  ok(index, {
    sku,
    product_pk: target.productPk!,
    variation_pk: target.variationPk!,
    image_pk: image.image_pk,
    url_source: image.url_source,
    position: image.position,
  });

const imageNotFound = (index: number, target: ApplyTarget, pk: number, of: string): ItemError =>
  notFoundError(index, `/${index}/pk`, `Image ${pk} is not an image of ${of}.`, { product_pk: target.productPk!, image_pk: pk });

/** The images sent become the variation's images, in the order sent; refs to other products' images are reported. */
export async function applyImageReplace(db: Executor, target: ApplyTarget, items: Indexed<ImageRef>[]): Promise<ChunkOutcome> {
  const variation = await liveVariation(db, target);
  if (variation === undefined) return variationGone(items, target);
  const productPk = target.productPk!;
  const variationPk = target.variationPk!;
  const images = await productImages(db, productPk);
  const order: number[] = [];
  const success: ItemSuccess[] = [];
  const errors: ItemError[] = [];
  for (const { index, item } of items) {
    const img = images.get(item.pk);
    if (img === undefined) {
      errors.push(imageNotFound(index, target, item.pk, `product ${productPk}`));
      continue;
    }
    if (!order.includes(item.pk)) order.push(item.pk);
    success.push(imageItem(index, variation.sku, target, { ...img, position: order.indexOf(item.pk) }));
  }
  if (
    await w.setVariationImages(
      db,
      [variationPk],
      order.map((image_pk, position) => ({ variation_pk: variationPk, image_pk, position })),
    )
  ) {
    await w.touchProducts(db, [productPk]);
  }
  return { success, errors };
}

/** Detaches images from the variation (the product keeps them); each is reported with the position it had. */
export async function applyImageDelete(db: Executor, target: ApplyTarget, items: Indexed<ImageRef>[]): Promise<ChunkOutcome> {
  const variation = await liveVariation(db, target);
  if (variation === undefined) return variationGone(items, target);
  const productPk = target.productPk!;
  const variationPk = target.variationPk!;
  const images = await productImages(db, productPk);
  const linked = new Map((await w.linksOfVariations(db, [variationPk])).map((l) => [l.image_pk, l.position]));
  const removed = await w.unlinkVariationImages(
    db,
    variationPk,
    items.filter(({ item }) => linked.has(item.pk)).map(({ item }) => item.pk),
  );
  if (removed.length > 0) await w.touchProducts(db, [productPk]);
  return {
    success: items
      .filter(({ item }) => linked.has(item.pk))
      .map(({ index, item }) => imageItem(index, variation.sku, target, { ...images.get(item.pk)!, position: linked.get(item.pk)! })),
    errors: items
      .filter(({ item }) => !linked.has(item.pk))
      .map(({ index, item }) => imageNotFound(index, target, item.pk, `variation ${variationPk}`)),
  };
}
