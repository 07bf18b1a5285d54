// The log sink: lines of a process stored in log_lines in batches, the table kept to its bound,
// and a database that is away costing dropped lines (counted), never a failed write.
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { LogLineService } from '../../src/logs/log-lines.service.ts';
import { LogSink } from '../../src/logs/log-sink.ts';
import { createTestDatabase } from '../helpers/db.ts';

const database = await createTestDatabase();
const { db, pool } = createDb({ connectionString: database.url, max: 2 });
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('log lines in Postgres', () => {
  it('stores every line with its ids, keeps only the newest `keep`, and reads them back filtered', async () => {
    const sink = new LogSink({ keep: 50, batch: 20, everyMs: 60_000 });
    const log = createLogger({ level: 'info', console: false, streams: [{ level: 'trace', stream: sink }] });
    for (let i = 0; i < 120; i++) log.info({ feedPk: i % 2 === 0 ? 'feed-even' : 'feed-odd', i }, `line ${i}`);
    log.error({ runId: 7, reqId: 'req-1', token: 'secret-token-value' }, 'it broke');
    // Logged before the database was attached: kept in the queue, stored once it is.
    sink.attach(db);
    await sink.flush();
    const service = new LogLineService(db, sink);
    const all = await service.query({ limit: 2_000 });
    expect(all.lines.length).toBeLessThanOrEqual(50);
    expect(all.lines.at(-1)).toMatchObject({
      level: 'error',
      msg: 'it broke',
      fields: expect.objectContaining({ runId: 7, token: '[redacted]' }),
    });
    expect(all.lines.at(-2)?.msg).toBe('line 119');
    expect(all.last_seq).toBe(all.lines.at(-1)!.seq);
    expect((await service.query({ run: '7' })).lines.map((l) => l.msg)).toEqual(['it broke']);
    expect((await service.query({ request: 'req-1', level: 'error' })).lines).toHaveLength(1);
    expect((await service.query({ level: 'fatal' })).lines).toEqual([]);
    const odd = await service.query({ feed: 'feed-odd', limit: 3 });
    expect(odd.lines.map((l) => l.msg)).toEqual(['line 115', 'line 117', 'line 119']);
    expect((await service.query({ q: 'LINE 11', after: odd.lines[1]!.seq })).lines.map((l) => l.msg)).toEqual(['line 118', 'line 119']);
    expect(sink.dropped).toBe(0);
    await sink.detach();
  });

  it('stores a line with NUL characters (Postgres text refuses them) without them', async () => {
    const sink = new LogSink({ everyMs: 60_000 });
    const log = createLogger({ level: 'info', console: false, streams: [{ level: 'trace', stream: sink }] });
    log.info({ note: 'a\u0000b', literal: 'c\\u0000d' }, 'nul\u0000probe');
    sink.attach(db);
    await sink.flush();
    const [line] = (await new LogLineService(db, sink).query({ q: 'nulprobe' })).lines;
    expect(line).toMatchObject({ msg: 'nulprobe', fields: expect.objectContaining({ note: 'ab', literal: 'c\\u0000d' }) });
    expect(sink.dropped).toBe(0);
    await sink.detach();
  });

  it('never fails a write while the database is away: the lines are dropped and counted', async () => {
    const away = createDb({ connectionString: 'postgres://postgres@127.0.0.1:1/none', timeoutMs: 500 });
    const sink = new LogSink({ maxPending: 10, everyMs: 60_000 });
    for (let i = 0; i < 15; i++) expect(sink.write(`{"level":30,"msg":"line ${i}"}\n`)).toBe(true);
    // The queue holds 10: beyond, the oldest went.
    expect(sink.dropped).toBeGreaterThanOrEqual(5);
    sink.attach(away.db);
    await sink.flush();
    expect(sink.dropped).toBe(15);
    await sink.detach();
    await away.pool.end();
  });
});
