// Catalog reads (products with images and variations) and the checks writes make first.
import type { Db } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { formatTimestamp } from '../validation/timestamp.ts';
import * as repo from './catalog.repository.ts';
import type { StoredImage, StoredProduct, StoredVariation } from './catalog.schemas.ts';

export interface ProductQuery {
  sku?: string;
  updatedSince?: Date;
  page: number;
  pageSize: number;
}

export class CatalogService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async listProducts(shopPk: number, q: ProductQuery): Promise<{ count: number; results: StoredProduct[] }> {
    const filter = { sku: q.sku, updatedSince: q.updatedSince };
    const page = { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
    if (q.sku === undefined && q.updatedSince === undefined && page.offset > 0) {
      // The count the writer keeps (not a scan of every product on each page); knowing it, a
      // page in the later half is sought from the end. Page 1 needs no count to be found.
      const count = await repo.liveProductCount(this.#db, shopPk);
      return { count, results: await this.#hydrate(await repo.listProducts(this.#db, shopPk, { ...page, total: count })) };
    }
    const [rows, count] = await Promise.all([
      repo.listProducts(this.#db, shopPk, { ...filter, ...page }),
      q.sku === undefined && q.updatedSince === undefined ? repo.liveProductCount(this.#db, shopPk) : repo.countProducts(this.#db, shopPk, filter),
    ]);
    return { count, results: await this.#hydrate(rows) };
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
  async productImages(shopPk: number, productPk: number, page: number, pageSize: number): Promise<{ total: number; results: StoredImage[] }> {
    await this.assertProduct(shopPk, productPk);
    const all = await repo.imagesOf(this.#db, [productPk]);
    return { total: all.length, results: all.slice((page - 1) * pageSize, page * pageSize).map((i) => ({ pk: i.pk, url: i.url, position: i.position })) };
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
    const links = await repo.linksOf(this.#db, variations.map((v) => v.pk));
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
