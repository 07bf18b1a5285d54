// The feed operations: every kind of catalog write a feed carries, one entry each, and nothing
// else names one. Submission (what a feed names, how its items are validated, whether it may be
// empty), processing (items per transaction, the apply function), reports (how an item reads)
// and the admin (its type filter) read this table. Adding an operation is an entry here and
// its apply function in this folder (docs/architecture.md, "Adding a feed operation").
import type { Executor } from '../../db/database.ts';
import type { ItemKind } from '../product-validation.ts';
import { applyImageAdd, applyImageRemove, applyImageReorder } from './images.ts';
import type { ApplyTarget, ChunkOutcome, Indexed } from './items.ts';
import { applyProductCreate, applyProductDelete, applyProductMerge, applyProductUpdate } from './products.ts';
import { applyImageDelete, applyImageReplace, applyVariationCreate, applyVariationDelete, applyVariationUpdate } from './variations.ts';

/** Items applied per transaction, each chunk committed with its report (resumes after the last). */
export const CHUNK_SIZE = 1_000;

export interface FeedOperation<T = unknown> {
  /**
   * What the feed is of besides its shop, named by the URL and checked when it is submitted:
   * its shop's catalog, a product, or a variation of a product.
   */
  scope: 'shop' | 'product' | 'variation';
  /** The item schema: items are validated against product-validation.ts's schema of this kind. */
  items: ItemKind;
  /**
   * The presenter of its items in reports: 'product' (product_pk and sku; a feed's skus are
   * listed for the search by sku), 'variation' (product_pk is the variation's, parent_pk its
   * product's), 'image' (product_pk is the product's, image_pk the image's).
   */
  report: 'product' | 'variation' | 'image';
  /**
   * Items applied per transaction; 'whole': the set sent is one unit (the images a variation
   * gets, in order), applied in one transaction and refused whole.
   */
  chunkSize: number | 'whole';
  /** A feed with no items is accepted (any other operation needs at least one item). */
  mayBeEmpty?: true;
  /** Applies validated items inside the caller's transaction; applying the same items again changes nothing. */
  apply(db: Executor, target: ApplyTarget, items: Indexed<T>[]): Promise<ChunkOutcome>;
}

/** An entry, its item type taken from its apply function. */
const operation = <T>(o: FeedOperation<T>): FeedOperation => o as FeedOperation;

export const FEED_OPERATIONS = {
  product_create: operation({ scope: 'shop', items: 'product', report: 'product', chunkSize: CHUNK_SIZE, apply: applyProductCreate }),
  product_update: operation({
    scope: 'shop',
    items: 'product_update',
    report: 'product',
    chunkSize: CHUNK_SIZE,
    apply: applyProductUpdate,
  }),
  // {product, defaults} items from a connector (submitValidated with merge); the API refuses them.
  product_merge: operation({ scope: 'shop', items: 'product_update', report: 'product', chunkSize: CHUNK_SIZE, apply: applyProductMerge }),
  product_delete: operation({ scope: 'shop', items: 'product_ref', report: 'product', chunkSize: CHUNK_SIZE, apply: applyProductDelete }),
  variation_create: operation({
    scope: 'product',
    items: 'variation_create',
    report: 'variation',
    chunkSize: CHUNK_SIZE,
    apply: applyVariationCreate,
  }),
  variation_update: operation({
    scope: 'product',
    items: 'variation_update',
    report: 'variation',
    chunkSize: CHUNK_SIZE,
    apply: applyVariationUpdate,
  }),
  variation_delete: operation({
    scope: 'product',
    items: 'pk_ref',
    report: 'variation',
    chunkSize: CHUNK_SIZE,
    apply: applyVariationDelete,
  }),
  image_replace: operation({ scope: 'variation', items: 'pk_ref', report: 'image', chunkSize: 'whole', apply: applyImageReplace }),
  // The route turns a DELETE without a body into the variation's linked images; a variation
  // with none gives a feed of no items (done at once, nothing detached).
  image_delete: operation({
    scope: 'variation',
    items: 'pk_ref',
    report: 'image',
    chunkSize: 'whole',
    mayBeEmpty: true,
    apply: applyImageDelete,
  }),
  product_image_add: operation({ scope: 'product', items: 'image_input', report: 'image', chunkSize: 'whole', apply: applyImageAdd }),
  product_image_reorder: operation({
    scope: 'product',
    items: 'image_position',
    report: 'image',
    chunkSize: 'whole',
    apply: applyImageReorder,
  }),
  product_image_delete: operation({ scope: 'product', items: 'pk_ref', report: 'image', chunkSize: 'whole', apply: applyImageRemove }),
} as const satisfies Record<string, FeedOperation>;

export type FeedOperationName = keyof typeof FEED_OPERATIONS;

/** Every operation's name, in the table's order (the API's FeedType, the admin's type filter). */
export const FEED_TYPES = Object.keys(FEED_OPERATIONS) as FeedOperationName[];

/** Items of a feed of `total` items applied per transaction. */
export const chunkSizeOf = (name: FeedOperationName, total: number): number => {
  const size = FEED_OPERATIONS[name].chunkSize;
  return size === 'whole' ? Math.max(total, 1) : size;
};
