// Bulk writes of feed processing: one statement per step for a whole chunk (INSERT ... SELECT
// FROM unnest(...)), never one per row. Unchanged rows are not rewritten (updated_at stays).
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export interface ProductRow {
  sku: string;
  name: string;
  price: number;
  stock: number;
  /** JSON text of the other Product fields. */
  attrs: string;
}

export interface UpsertedProducts {
  /** pk of every sku sent. */
  pks: Map<string, number>;
  /** Products this statement created: they have no images or variations yet. */
  fresh: Set<number>;
}

/**
 * Adds the number of rows of the CTE `rows` (`sign` -1: takes it away) to the live-product
 * count of their shop, in the statement that wrote them (migration 20261124T0030). The
 * connection picks its slot, so concurrent writers of one shop rarely wait on each other.
 */
export const countChange = (rows: string, sign: 1 | -1) => sql`
  insert into product_counts (shop_pk, slot, live)
  select shop_pk, pg_backend_pid() % ${sql.lit(COUNT_SLOTS)}, ${sql.lit(sign)} * count(*) from ${sql.table(rows)} group by shop_pk
  on conflict (shop_pk, slot) do update set live = product_counts.live + excluded.live`;
const COUNT_SLOTS = 16;

/**
 * Creates or updates products by (shop, sku); a deleted product sent again comes back (same pk).
 * Two statements at most: the upsert (new and changed live products), then, for skus it did
 * not return, the revival of deleted ones and the pks of the unchanged. The upsert locks every
 * row it meets, changed or not, so the second statement sees each as it stays until commit:
 * what it revives is exactly what the count gains.
 */
export async function upsertProducts(db: Executor, shopPk: number, rows: ProductRow[]): Promise<UpsertedProducts> {
  if (rows.length === 0) return { pks: new Map(), fresh: new Set() };
  const skus = rows.map((r) => r.sku);
  const data = sql`unnest(${skus}::text[], ${rows.map((x) => x.name)}::text[], ${rows.map((x) => x.price)}::numeric[],
                  ${rows.map((x) => x.stock)}::int[], ${rows.map((x) => x.attrs)}::jsonb[]) as t(s, n, p, st, a)`;
  const r = await sql<{ pk: number; sku: string; fresh: boolean }>`
    with up as (
      insert into products (shop_pk, sku, name, price, stock, attrs)
      select ${shopPk}::bigint, s, n, p, st, a from ${data}
      on conflict (shop_pk, sku) do update
        set name = excluded.name, price = excluded.price, stock = excluded.stock, attrs = excluded.attrs, updated_at = now()
        where products.deleted_at is null
          and (products.name, products.price, products.stock, products.attrs)
              is distinct from (excluded.name, excluded.price, excluded.stock, excluded.attrs)
      returning pk, shop_pk, sku, xmax = 0 as fresh
    ), added as (select shop_pk from up where fresh), counted as (${countChange('added', 1)})
    select pk, sku, fresh from up
  `.execute(db);
  const pks = new Map(r.rows.map((x) => [x.sku, x.pk]));
  const fresh = new Set(r.rows.filter((x) => x.fresh).map((x) => x.pk));
  const rest = skus.filter((s) => !pks.has(s));
  if (rest.length > 0) {
    const restRows = rows.filter((x) => !pks.has(x.sku));
    const back = await sql<{ pk: number; sku: string }>`
      with rev as (
        update products p
        set name = t.n, price = t.p, stock = t.st, attrs = t.a, deleted_at = null, updated_at = now()
        from unnest(${restRows.map((x) => x.sku)}::text[], ${restRows.map((x) => x.name)}::text[], ${restRows.map((x) => x.price)}::numeric[],
                    ${restRows.map((x) => x.stock)}::int[], ${restRows.map((x) => x.attrs)}::jsonb[]) as t(s, n, p, st, a)
        where p.shop_pk = ${shopPk} and p.sku = t.s and p.deleted_at is not null
        returning p.pk, p.shop_pk, p.sku
      ), counted as (${countChange('rev', 1)})
      select pk, sku from rev
      union all
      select pk, sku from products where shop_pk = ${shopPk} and sku = any(${rest}::text[]) and sku not in (select sku from rev)
    `.execute(db);
    for (const x of back.rows) pks.set(x.sku, x.pk);
  }
  // A row another transaction inserted while this one ran is not in this statement's
  // snapshot; a new statement sees it.
  const missing = skus.filter((s) => !pks.has(s));
  if (missing.length > 0) {
    for (const x of await db
      .selectFrom('products')
      .select(['pk', 'sku'])
      .where('shop_pk', '=', shopPk)
      .where('sku', 'in', missing)
      .execute())
      pks.set(x.sku, x.pk);
  }
  return { pks, fresh };
}

export interface ProductPatchRow {
  pk: number;
  name: string | null;
  price: number | null;
  stock: number | null;
  /** JSON text merged over the stored attributes. */
  attrs: string;
  /** JSON text of an array: category attributes to remove. */
  drop: string;
}

/** Partial update: null keeps the stored value; attrs are merged, `drop`'s keys removed. */
export async function patchProducts(db: Executor, rows: ProductPatchRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    update products p
    set name = coalesce(d.n, p.name), price = coalesce(d.pr, p.price), stock = coalesce(d.st, p.stock),
        attrs = (p.attrs || d.a) - d.rm, updated_at = now()
    from (select pk, n, pr, st, a, array(select jsonb_array_elements_text(r)) as rm
          from unnest(${rows.map((x) => x.pk)}::bigint[], ${rows.map((x) => x.name)}::text[], ${rows.map((x) => x.price)}::numeric[],
                      ${rows.map((x) => x.stock)}::int[], ${rows.map((x) => x.attrs)}::jsonb[], ${rows.map((x) => x.drop)}::jsonb[]) as t(pk, n, pr, st, a, r)) d
    where p.pk = d.pk
      and (p.name, p.price, p.stock, p.attrs) is distinct from (coalesce(d.n, p.name), coalesce(d.pr, p.price), coalesce(d.st, p.stock), (p.attrs || d.a) - d.rm)
  `.execute(db);
}

/** Products of a shop by pk or sku, deleted ones included (so a repeated delete succeeds). */
export async function findProducts(db: Executor, shopPk: number, pks: number[], skus: string[]) {
  return db
    .selectFrom('products')
    .select(['pk', 'sku', 'deleted_at'])
    .where('shop_pk', '=', shopPk)
    .where((eb) => eb.or([eb('pk', '=', eb.fn.any(eb.val(pks))), eb('sku', '=', eb.fn.any(eb.val(skus)))]))
    .execute();
}

/** True when the product is in the shop and not deleted. */
export async function productAlive(db: Executor, shopPk: number, productPk: number): Promise<boolean> {
  const rows = await findProducts(db, shopPk, [productPk], []);
  return rows.length === 1 && rows[0]!.deleted_at === null;
}

/** Soft-deletes products (those not deleted yet; of `shopPk` only, when given), and takes them off their shop's count. */
export async function softDeleteProducts(db: Executor, pks: number[], shopPk?: number): Promise<number> {
  if (pks.length === 0) return 0;
  const r = await sql<{ n: number }>`
    with gone as (
      update products set deleted_at = now(), updated_at = now()
      where pk = any(${pks}::bigint[]) and deleted_at is null ${shopPk === undefined ? sql`` : sql`and shop_pk = ${shopPk}`}
      returning shop_pk
    ), counted as (${countChange('gone', -1)})
    select count(*)::int as n from gone
  `.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** A change to a product's variations or images changes the product's updated_at. */
export async function touchProducts(db: Executor, pks: number[]): Promise<void> {
  if (pks.length === 0) return;
  await db
    .updateTable('products')
    .set({ updated_at: sql<Date>`now()` })
    .where('pk', 'in', [...new Set(pks)])
    .execute();
}

export interface ImageRow {
  product_pk: number;
  url: string;
  position: number;
}

/**
 * Writes product images by (product, url). `replaceFor`: products whose image set is exactly
 * `rows` (their other images go). Returns the products whose images changed, and the rows
 * inserted or moved.
 */
export async function writeProductImages(
  db: Executor,
  rows: ImageRow[],
  replaceFor: number[],
): Promise<{ changed: number[]; written: (ImageRow & { pk: number })[] }> {
  const changed: number[] = [];
  let written: (ImageRow & { pk: number })[] = [];
  if (replaceFor.length > 0) {
    const keep = rows.filter((r) => replaceFor.includes(r.product_pk));
    const d = await sql<{ product_pk: number }>`
      delete from product_images
      where product_pk = any(${replaceFor}::bigint[])
        and (product_pk, url) not in (select * from unnest(${keep.map((r) => r.product_pk)}::bigint[], ${keep.map((r) => r.url)}::text[]))
      returning product_pk
    `.execute(db);
    changed.push(...d.rows.map((x) => x.product_pk));
  }
  if (rows.length > 0) {
    const u = await sql<ImageRow & { pk: number }>`
      insert into product_images (product_pk, url, position)
      select * from unnest(${rows.map((r) => r.product_pk)}::bigint[], ${rows.map((r) => r.url)}::text[], ${rows.map((r) => r.position)}::int[])
      on conflict (product_pk, url) do update set position = excluded.position
        where product_images.position <> excluded.position
      returning pk, product_pk, url, position
    `.execute(db);
    written = u.rows;
    changed.push(...u.rows.map((x) => x.product_pk));
  }
  return { changed, written };
}

export const imagesOfProducts = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('product_images')
        .select(['pk', 'product_pk', 'url', 'position'])
        .where('product_pk', 'in', productPks)
        .orderBy('product_pk')
        .orderBy('position')
        .execute();

export interface VariationRow {
  product_pk: number;
  sku: string;
  price: number | null;
  stock: number | null;
  attrs: string;
}

/** Creates or updates variations by (product, sku); returns the rows created or changed. */
/**
 * Creates or updates variations by (product, sku). `merge`: a price or stock not sent (null)
 * keeps the stored one and attributes are merged over the stored ones (a merge feed); otherwise
 * the variation becomes what was sent.
 */
export async function upsertVariations(
  db: Executor,
  rows: VariationRow[],
  merge = false,
): Promise<{ pk: number; product_pk: number; sku: string }[]> {
  if (rows.length === 0) return [];
  const price = merge ? sql`coalesce(excluded.price, variations.price)` : sql`excluded.price`;
  const stock = merge ? sql`coalesce(excluded.stock, variations.stock)` : sql`excluded.stock`;
  const attrs = merge ? sql`variations.attrs || excluded.attrs` : sql`excluded.attrs`;
  const r = await sql<{ pk: number; product_pk: number; sku: string }>`
    insert into variations (product_pk, sku, price, stock, attrs)
    select * from unnest(${rows.map((x) => x.product_pk)}::bigint[], ${rows.map((x) => x.sku)}::text[], ${rows.map((x) => x.price)}::numeric[],
                         ${rows.map((x) => x.stock)}::int[], ${rows.map((x) => x.attrs)}::jsonb[])
    on conflict (product_pk, sku) do update
      set price = ${price}, stock = ${stock}, attrs = ${attrs}, deleted_at = null, updated_at = now()
      where (variations.price, variations.stock, variations.attrs, variations.deleted_at)
            is distinct from (${price}, ${stock}, ${attrs}, null)
    returning pk, product_pk, sku
  `.execute(db);
  return r.rows;
}

export interface VariationPatchRow {
  pk: number;
  sku: string | null;
  price: number | null;
  stock: number | null;
  attrs: string;
  /** JSON text of an array: category attributes to remove. */
  drop: string;
}

export async function patchVariations(db: Executor, rows: VariationPatchRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const r = await sql<{ product_pk: number }>`
    update variations v
    set sku = coalesce(d.s, v.sku), price = coalesce(d.pr, v.price), stock = coalesce(d.st, v.stock),
        attrs = (v.attrs || d.a) - d.rm, updated_at = now()
    from (select pk, s, pr, st, a, array(select jsonb_array_elements_text(r)) as rm
          from unnest(${rows.map((x) => x.pk)}::bigint[], ${rows.map((x) => x.sku)}::text[], ${rows.map((x) => x.price)}::numeric[],
                      ${rows.map((x) => x.stock)}::int[], ${rows.map((x) => x.attrs)}::jsonb[], ${rows.map((x) => x.drop)}::jsonb[]) as t(pk, s, pr, st, a, r)) d
    where v.pk = d.pk
      and (v.sku, v.price, v.stock, v.attrs) is distinct from (coalesce(d.s, v.sku), coalesce(d.pr, v.price), coalesce(d.st, v.stock), (v.attrs || d.a) - d.rm)
    returning v.product_pk
  `.execute(db);
  return r.rows.map((x) => x.product_pk);
}

/** Variations of products (deleted ones too: a re-created sku gets its old pk back). */
export const variationsOfProducts = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db.selectFrom('variations').select(['pk', 'product_pk', 'sku', 'deleted_at']).where('product_pk', 'in', productPks).execute();

export async function softDeleteVariations(db: Executor, pks: number[]): Promise<number[]> {
  if (pks.length === 0) return [];
  const r = await db
    .updateTable('variations')
    .set({ deleted_at: new Date(), updated_at: new Date() })
    .where('pk', 'in', pks)
    .where('deleted_at', 'is', null)
    .returning('product_pk')
    .execute();
  return r.map((x) => x.product_pk);
}

export interface LinkRow {
  variation_pk: number;
  image_pk: number;
  position: number;
}

/** The images of each variation in `variationPks` become exactly its `links`, in order. Returns whether anything changed. */
export async function setVariationImages(db: Executor, variationPks: number[], links: LinkRow[]): Promise<boolean> {
  if (variationPks.length === 0) return false;
  const d = await sql`
    delete from variation_images
    where variation_pk = any(${variationPks}::bigint[])
      and (variation_pk, image_pk) not in (select * from unnest(${links.map((l) => l.variation_pk)}::bigint[], ${links.map((l) => l.image_pk)}::bigint[]))
  `.execute(db);
  if (links.length === 0) return Number(d.numAffectedRows ?? 0) > 0;
  const u = await sql`
    insert into variation_images (variation_pk, image_pk, position)
    select * from unnest(${links.map((l) => l.variation_pk)}::bigint[], ${links.map((l) => l.image_pk)}::bigint[], ${links.map((l) => l.position)}::int[])
    on conflict (variation_pk, image_pk) do update set position = excluded.position
      where variation_images.position <> excluded.position
  `.execute(db);
  return Number(d.numAffectedRows ?? 0) + Number(u.numAffectedRows ?? 0) > 0;
}

/** Links of variations that have none yet (just created): a plain multi-row insert. */
export async function insertVariationImages(db: Executor, links: LinkRow[]): Promise<void> {
  if (links.length === 0) return;
  await sql`
    insert into variation_images (variation_pk, image_pk, position)
    select * from unnest(${links.map((l) => l.variation_pk)}::bigint[], ${links.map((l) => l.image_pk)}::bigint[], ${links.map((l) => l.position)}::int[])
    on conflict (variation_pk, image_pk) do nothing
  `.execute(db);
}

export async function unlinkVariationImages(db: Executor, variationPk: number, imagePks: number[]): Promise<number[]> {
  if (imagePks.length === 0) return [];
  const r = await db
    .deleteFrom('variation_images')
    .where('variation_pk', '=', variationPk)
    .where('image_pk', 'in', imagePks)
    .returning('image_pk')
    .execute();
  return r.map((x) => x.image_pk);
}

export const linksOfVariations = (db: Executor, variationPks: number[]) =>
  variationPks.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('variation_images')
        .select(['variation_pk', 'image_pk', 'position'])
        .where('variation_pk', 'in', variationPks)
        .orderBy('variation_pk')
        .orderBy('position')
        .execute();

/** Moves product images to new 0-based positions. */
export async function setImagePositions(db: Executor, rows: { pk: number; position: number }[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    update product_images i set position = d.pos
    from unnest(${rows.map((r) => r.pk)}::bigint[], ${rows.map((r) => r.position)}::int[]) as d(pk, pos)
    where i.pk = d.pk and i.position <> d.pos
  `.execute(db);
}

/** Removes images of a product (their variation links go with them, by cascade). */
export async function deleteProductImages(db: Executor, productPk: number, pks: number[]): Promise<void> {
  if (pks.length === 0) return;
  await db.deleteFrom('product_images').where('product_pk', '=', productPk).where('pk', 'in', pks).execute();
}

/** Renumbers the image links of a product's variations 0, 1, 2... in their order (after images were removed). */
export async function compactVariationLinks(db: Executor, productPk: number): Promise<void> {
  await sql`
    update variation_images vi set position = r.rn
    from (select l.variation_pk, l.image_pk, (row_number() over (partition by l.variation_pk order by l.position) - 1)::int as rn
          from variation_images l join variations v on v.pk = l.variation_pk
          where v.product_pk = ${productPk}) r
    where vi.variation_pk = r.variation_pk and vi.image_pk = r.image_pk and vi.position <> r.rn
  `.execute(db);
}
