// Catalog reads (products with images and variations) and the checks writes make first.
import { withTimeLimit, type Db } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { formatTimestamp } from '../validation/timestamp.ts';
import * as repo from './catalog.repository.ts';
import type { StoredImage, StoredProduct, StoredVariation } from './catalog.schemas.ts';

/** The client-side bound of one catalog.tidy run, ms (a VACUUM of a large catalog's new pages). */
const TIDY_TIME_LIMIT_MS = 600_000;

export interface ProductQuery {
  sku?: string;
  updatedSince?: Date;
  page: number;
  pageSize: number;
}

/**
 * Products read and serialized at a time by a list (a product's category attributes take at most
 * 256 KiB): a page of 1,000 large products is never in memory at once.
 */
export const LIST_BATCH = 25;

export class CatalogService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * A page of products: how many match, and the page read in batches of LIST_BATCH products, so
   * a reply being sent holds one batch at a time whatever the products' size.
   */
  async listProducts(shopPk: number, q: ProductQuery): Promise<{ count: number; batches: AsyncIterable<StoredProduct[]> }> {
    const filter = { sku: q.sku, updatedSince: q.updatedSince };
    const page = { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
    let count: number;
    let pks: number[];
    if (q.sku === undefined && q.updatedSince === undefined && page.offset > 0) {
      // The count the writer keeps (not a scan of every product on each page); knowing it, a
      // page in the later half is sought from the end. Page 1 needs no count to be found.
      count = await repo.liveProductCount(this.#db, shopPk);
      pks = await repo.pagePks(this.#db, shopPk, { ...page, total: count });
    } else {
      [pks, count] = await Promise.all([
        repo.pagePks(this.#db, shopPk, { ...filter, ...page }),
        q.sku === undefined && q.updatedSince === undefined
          ? repo.liveProductCount(this.#db, shopPk)
          : repo.countProducts(this.#db, shopPk, filter),
      ]);
    }
    const batches = async function* (this: CatalogService): AsyncGenerator<StoredProduct[]> {
      for (let i = 0; i < pks.length; i += LIST_BATCH) yield this.#hydrate(await repo.productsByPk(this.#db, pks.slice(i, i + LIST_BATCH)));
    };
    return { count, batches: batches.call(this) };
  }

  /**
   * Brings the catalog's tables up to date for reads after large writes (catalog.tidy job, sent
   * by the feed worker when a large feed is done): lists right after a big import read only the
   * index, without waiting for autovacuum.
   */
  async tidy(): Promise<void> {
    await withTimeLimit(TIDY_TIME_LIMIT_MS, () => repo.vacuumCatalog(this.#db));
  }

  async getProduct(shopPk: number, productPk: number): Promise<StoredProduct> {
    const row = await repo.findProduct(this.#db, shopPk, productPk);
    if (row === undefined) throw notFound(`Product ${productPk}`);
    return (await this.#hydrate([row]))[0]!;
  }

  /** 404 unless the product exists in the shop (and is not deleted). */
  async assertProduct(shopPk: number, productPk: number): Promise<void> {
    if ((await repo.findProduct(this.#db, shopPk, productPk)) === undefined) throw notFound(`Product ${productPk}`);
  }

  /** 404 unless the variation exists under the shop's product. */
  async assertVariation(shopPk: number, productPk: number, variationPk: number): Promise<void> {
    await this.assertProduct(shopPk, productPk);
    if ((await repo.findVariation(this.#db, productPk, variationPk)) === undefined) throw notFound(`Variation ${variationPk}`);
  }

  async listVariations(shopPk: number, productPk: number): Promise<StoredVariation[]> {
    return (await this.getProduct(shopPk, productPk)).variations;
  }

  async getVariation(shopPk: number, productPk: number, variationPk: number): Promise<StoredVariation> {
    const v = (await this.getProduct(shopPk, productPk)).variations.find((x) => x.pk === variationPk);
    if (v === undefined) throw notFound(`Variation ${variationPk}`);
    return v;
  }

  async variationImages(shopPk: number, productPk: number, variationPk: number): Promise<StoredImage[]> {
    return (await this.getVariation(shopPk, productPk, variationPk)).images;
  }

  /** One image of a variation (its position is the variation's order). */
  async variationImage(shopPk: number, productPk: number, variationPk: number, imagePk: number): Promise<StoredImage> {
    const image = (await this.variationImages(shopPk, productPk, variationPk)).find((i) => i.pk === imagePk);
    if (image === undefined) throw notFound(`Image ${imagePk} of variation ${variationPk}`);
    return image;
  }

  /** The images of a product in order: one page of them and how many there are. */
  async productImages(
    shopPk: number,
    productPk: number,
    page: number,
    pageSize: number,
  ): Promise<{ total: number; results: StoredImage[] }> {
    await this.assertProduct(shopPk, productPk);
    const all = await repo.imagesOf(this.#db, [productPk]);
    return {
      total: all.length,
      results: all.slice((page - 1) * pageSize, page * pageSize).map((i) => ({ pk: i.pk, url: i.url, position: i.position })),
    };
  }

  async productImage(shopPk: number, productPk: number, imagePk: number): Promise<StoredImage> {
    await this.assertProduct(shopPk, productPk);
    const image = (await repo.imagesOf(this.#db, [productPk])).find((i) => i.pk === imagePk);
    if (image === undefined) throw notFound(`Image ${imagePk} of product ${productPk}`);
    return { pk: image.pk, url: image.url, position: image.position };
  }

  /** The pks of the images linked to a variation, in order. */
  async variationImagePks(shopPk: number, productPk: number, variationPk: number): Promise<number[]> {
    return (await this.variationImages(shopPk, productPk, variationPk)).map((i) => i.pk);
  }

  /** Soft-deletes one product now (DELETE /products/{pk}/ answers 204). */
  async deleteProduct(shopPk: number, productPk: number): Promise<void> {
    if (!(await repo.softDeleteProduct(this.#db, shopPk, productPk))) throw notFound(`Product ${productPk}`);
  }

  async #hydrate(rows: repo.ProductRecord[]): Promise<StoredProduct[]> {
    const pks = rows.map((r) => r.pk);
    const [images, variations] = await Promise.all([repo.imagesOf(this.#db, pks), repo.liveVariationsOf(this.#db, pks)]);
    const links = await repo.linksOf(
      this.#db,
      variations.map((v) => v.pk),
    );
    const imageByPk = new Map(images.map((i) => [i.pk, i]));
    const group = <T, K>(list: T[], by: (t: T) => K): Map<K, T[]> => {
      const m = new Map<K, T[]>();
      for (const t of list) (m.get(by(t)) ?? m.set(by(t), []).get(by(t))!).push(t);
      return m;
    };
    const imagesOf = group(images, (i) => i.product_pk);
    const variationsOf = group(variations, (v) => v.product_pk);
    const linksOf = group(links, (l) => l.variation_pk);
    return rows.map((p) => ({
      pk: p.pk,
      shop_pk: p.shop_pk,
      sku: p.sku,
      name: p.name,
      price: p.price,
      stock: p.stock,
      ...p.attrs,
      images: (imagesOf.get(p.pk) ?? []).map((i) => ({ pk: i.pk, url: i.url, position: i.position })),
      variations: (variationsOf.get(p.pk) ?? []).map((v) => ({
        pk: v.pk,
        product_pk: v.product_pk,
        sku: v.sku,
        price: v.price ?? p.price,
        stock: v.stock ?? p.stock,
        ...v.attrs,
        images: (linksOf.get(v.pk) ?? []).flatMap((l) => {
          const i = imageByPk.get(l.image_pk);
          return i === undefined ? [] : [{ pk: i.pk, url: i.url, position: l.position }];
        }),
        created_at: formatTimestamp(v.created_at),
        updated_at: formatTimestamp(v.updated_at),
      })),
      created_at: formatTimestamp(p.created_at),
      updated_at: formatTimestamp(p.updated_at),
    }));
  }
}
