import { sql, type Kysely } from 'kysely';

// Delta hashes (connector_product_hashes) are written a row per product sent, 1,000 at a time:
// their foreign key to shops checked (and key-share locked) the shop once per row, about 40%
// of the upsert's time (34k rows: 360-400 ms with it, 170-260 ms without). The shop is known
// to exist when they are written (the run checks it, and the feed they follow was inserted
// under the feeds' own key to shops), so the key goes; a trigger keeps what its cascade did:
// a shop deleted takes its hashes with it.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table connector_product_hashes drop constraint connector_product_hashes_shop_pk_fkey`.execute(db);
  await sql`
    create function connector_product_hashes_shop_deleted() returns trigger language plpgsql as $$
    begin
      delete from connector_product_hashes where shop_pk = old.pk;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger shops_delete_connector_product_hashes after delete on shops
    for each row execute function connector_product_hashes_shop_deleted()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger shops_delete_connector_product_hashes on shops`.execute(db);
  await sql`drop function connector_product_hashes_shop_deleted()`.execute(db);
  await sql`delete from connector_product_hashes h where not exists (select 1 from shops s where s.pk = h.shop_pk)`.execute(db);
  await sql`
    alter table connector_product_hashes add constraint connector_product_hashes_shop_pk_fkey
    foreign key (shop_pk) references shops (pk) on delete cascade`.execute(db);
}
