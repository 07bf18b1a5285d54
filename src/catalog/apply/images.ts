// Feeds of a product's images (/shops/{shop}/products/{product}/images/): add addresses after
// the images the product has, move images to 0-based positions, remove images (and their
// variation links). Each feed is applied whole; its report has one item per image sent:
// {sku, product_pk, image_pk, url_source, position}.
import type { Executor } from '../../db/database.ts';
import type { ImageInput, ImagePosition, ImageRef } from '../catalog.schemas.ts';
import {
  imageUrl,
  notFoundError,
  ok,
  productGone,
  type ApplyTarget,
  type ChunkOutcome,
  type Indexed,
  type ItemError,
  type ItemSuccess,
} from './items.ts';
import * as w from './write.repository.ts';

interface Image {
  pk: number;
  url: string;
  position: number;
}

/** The product's sku and images in order, or undefined when it is gone. */
async function productOf(db: Executor, target: ApplyTarget): Promise<{ sku: string; images: Image[] } | undefined> {
  const rows = await w.findProducts(db, target.shopPk, [target.productPk!], []);
  if (rows.length !== 1 || rows[0]!.deleted_at !== null) return undefined;
  return { sku: rows[0]!.sku, images: await w.imagesOfProducts(db, [target.productPk!]) };
}

const imageItem = (index: number, sku: string, productPk: number, image: Image): ItemSuccess =>
  ok(index, { sku, product_pk: productPk, image_pk: image.pk, url_source: image.url, position: image.position });

const imageNotFound = (index: number, sku: string, productPk: number, pk: number): ItemError =>
  notFoundError(index, `/${index}/pk`, `Image ${pk} is not an image of product ${productPk}.`, {
    sku,
    product_pk: productPk,
    image_pk: pk,
  });

/** Adds images after the product's own, in the order sent; an address it has already is reported with its image. */
export async function applyImageAdd(db: Executor, target: ApplyTarget, items: Indexed<ImageInput>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  const product = await productOf(db, target);
  if (product === undefined) return productGone(items, productPk);
  const known = new Set(product.images.map((i) => i.url));
  let next = product.images.reduce((max, i) => Math.max(max, i.position + 1), 0);
  const rows: w.ImageRow[] = [];
  for (const { item } of items) {
    const url = imageUrl(item);
    if (known.has(url)) continue;
    known.add(url);
    rows.push({ product_pk: productPk, url, position: next++ });
  }
  const { written } = await w.writeProductImages(db, rows, []);
  if (written.length > 0) await w.touchProducts(db, [productPk]);
  const byUrl = new Map([...product.images, ...written].map((i) => [i.url, i]));
  return { success: items.map(({ index, item }) => imageItem(index, product.sku, productPk, byUrl.get(imageUrl(item))!)), errors: [] };
}

/**
 * Moves each image sent to its 0-based position (in the order sent; a position past the end
 * is the end); the others keep their order around them. Positions stay 0..n-1.
 */
export async function applyImageReorder(db: Executor, target: ApplyTarget, items: Indexed<ImagePosition>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  const product = await productOf(db, target);
  if (product === undefined) return productGone(items, productPk);
  const byPk = new Map(product.images.map((i) => [i.pk, i]));
  const errors: ItemError[] = [];
  const moves = new Map<number, number>();
  for (const { index, item } of items) {
    if (byPk.has(item.pk)) moves.set(item.pk, item.position);
    else errors.push(imageNotFound(index, product.sku, productPk, item.pk));
  }
  const order = product.images.filter((i) => !moves.has(i.pk));
  for (const [pk, position] of [...moves].sort((a, b) => a[1] - b[1])) order.splice(Math.min(position, order.length), 0, byPk.get(pk)!);
  const moved = order.flatMap((img, position) => (img.position === position ? [] : [{ pk: img.pk, position }]));
  await w.setImagePositions(db, moved);
  if (moved.length > 0) await w.touchProducts(db, [productPk]);
  const now = new Map(order.map((img, position) => [img.pk, { ...img, position }]));
  return {
    success: items
      .filter(({ item }) => byPk.has(item.pk))
      .map(({ index, item }) => imageItem(index, product.sku, productPk, now.get(item.pk)!)),
    errors,
  };
}

/** Removes images from the product and from every variation they are linked to; the rest close up (0..n-1). */
export async function applyImageRemove(db: Executor, target: ApplyTarget, items: Indexed<ImageRef>[]): Promise<ChunkOutcome> {
  const productPk = target.productPk!;
  const product = await productOf(db, target);
  if (product === undefined) return productGone(items, productPk);
  const byPk = new Map(product.images.map((i) => [i.pk, i]));
  const gone = new Set(items.filter(({ item }) => byPk.has(item.pk)).map(({ item }) => item.pk));
  if (gone.size > 0) {
    await w.deleteProductImages(db, productPk, [...gone]);
    await w.setImagePositions(
      db,
      product.images.filter((i) => !gone.has(i.pk)).map((i, position) => ({ pk: i.pk, position })),
    );
    await w.compactVariationLinks(db, productPk);
    await w.touchProducts(db, [productPk]);
  }
  return {
    success: items
      .filter(({ item }) => byPk.has(item.pk))
      .map(({ index, item }) => imageItem(index, product.sku, productPk, byPk.get(item.pk)!)),
    errors: items.filter(({ item }) => !byPk.has(item.pk)).map(({ index, item }) => imageNotFound(index, product.sku, productPk, item.pk)),
  };
}
