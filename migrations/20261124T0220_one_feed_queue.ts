import { sql, type Kysely } from 'kysely';

// Feeds have one queue, feed.process; feed.process.small is gone. The jobs still waiting in it
// (queued, waiting for a retry, or left active by a stopped worker) move to feed.process, and
// its dead-letter copies to feed.process.dead, so the admin can still retry them; then the old
// queues go. Applying a feed that is already done changes nothing, so a moved job whose old
// worker had finished it is harmless. A fresh database has no pg-boss schema yet: nothing to do.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    begin
      if to_regclass('pgboss.job') is null or to_regclass('pgboss.queue') is null then
        return;
      end if;
      if exists (select 1 from pgboss.queue where name = 'feed.process')
         and exists (select 1 from pgboss.queue where name = 'feed.process.dead') then
        update pgboss.job set name = 'feed.process', dead_letter = 'feed.process.dead'
          where name = 'feed.process.small' and state in ('created', 'retry', 'active');
        update pgboss.job set name = 'feed.process.dead', source_name = 'feed.process'
          where name = 'feed.process.small.dead' and state in ('created', 'retry', 'active');
      end if;
      if to_regprocedure('pgboss.delete_queue(text)') is not null then
        if not exists (select 1 from pgboss.job where name = 'feed.process.small' and state in ('created', 'retry', 'active')) then
          perform pgboss.delete_queue(q.name) from pgboss.queue q where q.name = 'feed.process.small';
        end if;
        if not exists (select 1 from pgboss.job where name = 'feed.process.small.dead' and state in ('created', 'retry', 'active')) then
          perform pgboss.delete_queue(q.name) from pgboss.queue q where q.name = 'feed.process.small.dead';
        end if;
      end if;
    end $$`.execute(db);
}

// The jobs stay where they are: the previous version works feed.process too, and creates its
// small queue again at start.
export async function down(): Promise<void> {}
