import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHECKPOINT_ROOM, PARQUET_ROW_GROUP, Warehouse, checkpointMemory } from '../../src/load/warehouse.js';
import { keywordTask, merchantTask, technologyTask, onpageTask, eventsTask, listTasks, task } from '../normalize/fixtures.js';
import { dumpTables } from './helpers.js';

const open: Warehouse[] = [];
const tmp: string[] = [];
afterEach(() => {
  while (open.length) open.pop()!.close();
  while (tmp.length) rmSync(tmp.pop()!, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tmp.push(dir);
  return dir;
}
/** A warehouse in a file of its own temporary directory (both gone after the test). */
async function fileWarehouse(prefix: string, opts: Parameters<typeof Warehouse.open>[1]): Promise<{ w: Warehouse; dir: string }> {
  const dir = tempDir(prefix);
  const w = await Warehouse.open(path.join(dir, 'w.duckdb'), opts);
  open.push(w);
  return { w, dir };
}
const limitOf = async (w: Warehouse) => String((await w.connection.runAndReadAll(`SELECT current_setting('memory_limit')`)).getRows()[0][0]);
/**
 * Has `before` see each statement run on the warehouse's main connection (it may await: the statement waits), and
 * `failed` each error one throws; returns what puts the connection back.
 */
function watchRun(w: Warehouse, watch: { before?: (sql: string) => unknown; failed?: (err: Error) => void }): () => void {
  const run = w.connection.run.bind(w.connection);
  w.connection.run = async (sql: string, ...rest: unknown[]) => {
    await watch.before?.(sql);
    try {
      return await run(sql, ...(rest as []));
    } catch (err) {
      watch.failed?.(err as Error);
      throw err;
    }
  };
  return () => {
    w.connection.run = run;
  };
}
async function warehouse(): Promise<Warehouse> {
  const w = await Warehouse.open(':memory:');
  open.push(w);
  await w.ensureSchema();
  return w;
}
const all = () => [keywordTask('K1', 8, 1), keywordTask('K2', 5, 2, 'keywords_for_keywords'), merchantTask('M1'), technologyTask('D1'), onpageTask('O1'), eventsTask('E1'), ...listTasks()];

describe('Warehouse.loadTasks', () => {
  it('loading the same tasks twice gives identical tables (task-level replace)', async () => {
    const w = await warehouse();
    const loadedAt = new Date('2026-01-15T12:00:00Z');
    const first = await w.loadTasks(all(), { runId: 'r1', loadedAt });
    const once = await dumpTables(w, { withLoadedAt: true });
    await w.loadTasks(all(), { runId: 'r1', loadedAt });
    expect(await dumpTables(w, { withLoadedAt: true })).toEqual(once);
    const counts = await w.tableCounts();
    for (const [t, n] of Object.entries(first.rows)) expect(counts[t], t).toBe(n);
    expect(counts.merchant_shopping__items).toBeGreaterThan(0);
  });

  it('replaces a re-collected task\'s rows, leaving other tasks alone', async () => {
    const w = await warehouse();
    await w.loadTasks([keywordTask('K1', 8, 1), keywordTask('K2', 5, 2)], { runId: 'r1' });
    await w.loadTasks([keywordTask('K1', 3, 4)], { runId: 'r2' });
    const r = await w.connection.runAndReadAll(`SELECT _task_id, _run_id, count(*) FROM keyword_data GROUP BY ALL ORDER BY 1`);
    expect(r.getRowsJson()).toEqual([['K1', 'r2', '3'], ['K2', 'r1', '5']]);
    const orphans = await w.connection.runAndReadAll(`SELECT count(*) FROM keyword_data__monthly_searches m LEFT JOIN keyword_data k ON m._parent_id = k._id WHERE k._id IS NULL`);
    expect(Number(orphans.getRows()[0][0])).toBe(0);
  });

  it('runs the caller\'s callback in the load transaction: a failing callback leaves no rows', async () => {
    const w = await warehouse();
    await w.connection.run('CREATE TABLE ledger (task_id VARCHAR, state VARCHAR)');
    await expect(w.loadTasks([keywordTask('K1', 4, 1)], { runId: 'r1', inTransaction: async (conn) => {
      await conn.run(`INSERT INTO ledger VALUES ('K1', 'loaded')`);
      throw new Error('ledger says no');
    } })).rejects.toThrow('ledger says no');
    expect((await w.tableCounts()).keyword_data).toBe(0);
    expect(Number((await w.connection.runAndReadAll('SELECT count(*) FROM ledger')).getRows()[0][0])).toBe(0);
    await w.loadTasks([keywordTask('K1', 4, 1)], { runId: 'r1', inTransaction: async (conn) => { await conn.run(`INSERT INTO ledger VALUES ('K1', 'loaded')`); } });
    expect((await w.tableCounts()).keyword_data).toBe(4);
    expect(Number((await w.connection.runAndReadAll('SELECT count(*) FROM ledger')).getRows()[0][0])).toBe(1);
  });

  it('stores typed values: timestamps as TIMESTAMPTZ, seconds as DOUBLE, large ids as text', async () => {
    const w = await warehouse();
    await w.loadTasks([eventsTask('E1'), task('T1', 'serp.events.tasks_fixed', [], {}, { time: '1.5 sec.' })], { runId: 'r1' });
    const types = await w.connection.runAndReadAll(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'events_serp__items' AND column_name IN ('start_datetime', 'venue_cid')`);
    expect(Object.fromEntries(types.getRows() as [string, string][])).toEqual({ start_datetime: 'TIMESTAMP WITH TIME ZONE', venue_cid: 'VARCHAR' });
    const t = await w.connection.runAndReadAll(`SELECT time_seconds FROM tasks WHERE _task_id = 'T1'`);
    expect(t.getRows()[0][0]).toBe(1.5);
  });
});

describe('schema evolution', () => {
  it('adds a column the catalog declares and never drops one it no longer declares', async () => {
    const w = await warehouse();
    await w.connection.run('ALTER TABLE keyword_data DROP COLUMN cpc');
    await w.connection.run('ALTER TABLE keyword_data ADD COLUMN legacy_note VARCHAR');
    const changes = await w.ensureSchema();
    expect(changes).toEqual([{ table: 'keyword_data', column: 'cpc', action: 'added_column', to: 'DOUBLE' }]);
    await w.loadTasks([keywordTask('K1', 2, 1)], { runId: 'r1' });
    const r = await w.connection.runAndReadAll(`SELECT count(cpc), count(*) FILTER (WHERE legacy_note IS NULL) FROM keyword_data`);
    expect(r.getRows()[0].map(Number)).toEqual([2, 2]);
    expect(await w.ensureSchema()).toEqual([]);
  });

  it('widens an integer column in place and keeps a narrower catalog type from narrowing it', async () => {
    const w = await warehouse();
    await w.connection.run('ALTER TABLE keyword_data ALTER COLUMN search_volume SET DATA TYPE INTEGER');
    await w.connection.run('ALTER TABLE keyword_data ALTER COLUMN keyword SET DATA TYPE VARCHAR');
    await w.connection.run('ALTER TABLE keyword_data__monthly_searches ALTER COLUMN year SET DATA TYPE DOUBLE');
    const changes = await w.ensureSchema();
    expect(changes).toContainEqual({ table: 'keyword_data', column: 'search_volume', action: 'widened', from: 'INTEGER', to: 'BIGINT' });
    expect(changes).toContainEqual({ table: 'keyword_data__monthly_searches', column: 'year', action: 'kept_type', from: 'DOUBLE', to: 'INTEGER' });
  });
});

describe('schema evolution: text columns a later catalog types', () => {
  it('retypes a text column in place when every value converts, times as the service writes them', async () => {
    const w = await warehouse();
    await w.connection.run('ALTER TABLE keyword_data ALTER COLUMN search_volume SET DATA TYPE VARCHAR');
    await w.connection.run('ALTER TABLE serp_results ALTER COLUMN datetime SET DATA TYPE VARCHAR');
    await w.connection.run(`INSERT INTO keyword_data (_task_id, search_volume) VALUES ('old', ' 720')`);
    await w.connection.run(`INSERT INTO serp_results (_task_id, datetime) VALUES ('old', '2024-03-18 09:41:07 +00:00')`);
    const changes = await w.ensureSchema();
    expect(changes).toContainEqual({ table: 'keyword_data', column: 'search_volume', action: 'retyped', from: 'VARCHAR', to: 'BIGINT' });
    expect(changes).toContainEqual({ table: 'serp_results', column: 'datetime', action: 'retyped', from: 'VARCHAR', to: 'TIMESTAMPTZ' });
    const r = await w.connection.runAndReadAll(`SELECT k.search_volume, epoch(s.datetime) FROM keyword_data k, serp_results s WHERE k._task_id = 'old' AND s._task_id = 'old'`);
    expect(r.getRows()[0].map(Number)).toEqual([720, Date.UTC(2024, 2, 18, 9, 41, 7) / 1000]);
    await w.loadTasks([keywordTask('K1', 2, 1)], { runId: 'r1' });
    expect(await w.ensureSchema()).toEqual([]);
  });

  it('keeps a text column that holds a value the type cannot take, and loads typed values into it as text', async () => {
    const w = await warehouse();
    await w.connection.run('ALTER TABLE keyword_data ALTER COLUMN search_volume SET DATA TYPE VARCHAR');
    await w.connection.run(`INSERT INTO keyword_data (_task_id, search_volume) VALUES ('old', 'n/a')`);
    expect(await w.ensureSchema()).toContainEqual({ table: 'keyword_data', column: 'search_volume', action: 'kept_type', from: 'VARCHAR', to: 'BIGINT' });
    await w.loadTasks([keywordTask('K1', 2, 1)], { runId: 'r1' });
    const r = await w.connection.runAndReadAll(`SELECT search_volume FROM keyword_data ORDER BY _task_id, search_volume`);
    const values = r.getRows().map(([v]) => v);
    expect(values[values.length - 1]).toBe('n/a');
    expect(values.slice(0, -1).every((v) => typeof v === 'string' && /^\d+$/.test(v))).toBe(true);
  });
});

describe('Parquet export', () => {
  it('writes hive-partitioned zstd files per table for the run, renamed into place', async () => {
    const w = await warehouse();
    const dir = tempDir('seo-etl-pq-');
    await w.loadTasks([keywordTask('K1', 4, 1), technologyTask('D1')], { runId: 'r1' });
    await w.loadTasks([keywordTask('K9', 2, 1)], { runId: 'r2' });
    const files = await w.exportParquet(dir, '2026-01-15', 'r1');
    const kw = files.find((f) => f.table === 'keyword_data')!;
    expect(kw.file).toBe(path.join(dir, 'keyword_data', 'snapshot_date=2026-01-15', 'part-r1.parquet'));
    expect(kw.rows).toBe(4);
    const r = await w.connection.runAndReadAll(`SELECT count(*), min(snapshot_date)::VARCHAR FROM read_parquet('${dir}/keyword_data/*/*.parquet', hive_partitioning = true)`);
    expect(r.getRowsJson()[0]).toEqual(['4', '2026-01-15']);
    expect(readdirSync(path.dirname(kw.file))).toEqual(['part-r1.parquet']);
    expect(files.map((f) => f.table)).toContain('domain_technologies__items__technologies');
  });

  it('writes bounded row groups without sorting, and leaves the insertion-order setting as it found it', async () => {
    const w = await warehouse();
    const dir = tempDir('seo-etl-pq-');
    const tasks = Array.from({ length: 10 }, (_, i) => keywordTask(`K${i}`, 700, 0));
    await w.loadTasks(tasks, { runId: 'r1' });
    const setting = async () => (await w.connection.runAndReadAll(`SELECT current_setting('preserve_insertion_order')::VARCHAR`)).getRows()[0][0];
    expect(await setting()).toBe('true');
    const kw = (await w.exportParquet(dir, '2026-01-15', 'r1', { rowGroupSize: 2048 })).find((f) => f.table === 'keyword_data')!;
    expect(kw.rows).toBe(7_000);
    expect(await setting()).toBe('true');
    const groups = (await w.connection.runAndReadAll(`SELECT row_group_id, max(row_group_num_rows)::INT FROM parquet_metadata('${kw.file}') GROUP BY ALL`)).getRows();
    expect(groups.length).toBeGreaterThanOrEqual(3);
    for (const [, n] of groups) expect(n as number).toBeLessThanOrEqual(2048);
    const back = await w.connection.runAndReadAll(`SELECT count(DISTINCT _id)::INT FROM read_parquet('${kw.file}')`);
    expect(back.getRows()[0][0]).toBe(7_000);
  });

  it('bounds row groups in bytes: a table with more than 4 MiB of rows gets several groups of fewer rows than the row cap', async () => {
    const w = await warehouse();
    const dir = tempDir('seo-etl-pq-');
    await w.loadTasks(Array.from({ length: 60 }, (_, i) => keywordTask(`K${i}`, 700, 0)), { runId: 'r1' });
    const kw = (await w.exportParquet(dir, '2026-01-15', 'r1')).find((f) => f.table === 'keyword_data')!;
    expect(kw.rows).toBe(42_000);
    expect(kw.rows).toBeLessThan(PARQUET_ROW_GROUP);
    const groups = (await w.connection.runAndReadAll(`SELECT row_group_id, max(row_group_num_rows)::INT FROM parquet_metadata('${kw.file}') GROUP BY ALL`)).getRows();
    expect(groups.length).toBeGreaterThanOrEqual(2);
    expect(groups.reduce((n, [, rows]) => n + (rows as number), 0)).toBe(42_000);
  });
});

describe('lean Parquet export', () => {
  it('exports each table of 10,000 rows or more under the lowered limit, a smaller one under the whole, and empties the cache after each: same files, limit restored', async () => {
    const { w, dir } = await fileWarehouse('seo-etl-lean-', { memoryLimit: '256MB' });
    await w.ensureSchema();
    await w.loadTasks(Array.from({ length: 40 }, (_, i) => keywordTask(`K${i}`, 700, 2)), { runId: 'r1' });
    await w.connection.run('CHECKPOINT');
    const limitBefore = await limitOf(w);
    const seen: string[] = [];
    const restore = watchRun(w, { before: (sql) => /^(COPY|SET memory_limit)/.test(sql.trim()) && seen.push(sql.trim().startsWith('COPY') ? 'COPY' : sql.trim()) });
    const lean = await w.exportParquet(path.join(dir, 'lean'), '2026-01-15', 'r1', { lean: { memoryBytes: 32 * 2 ** 20, memoryLimit: '256MB' } });
    restore();
    expect(await limitOf(w)).toBe(limitBefore);
    expect(await w.memoryInUse()).toBeLessThanOrEqual(16 * 2 ** 20);
    // Each large table's COPY ran right after the limit went down to 32 MiB, and the limit came back after it; a
    // small table's ran with no change of limit around it.
    const copies = seen.flatMap((x, i) => (x === 'COPY' ? [[seen[i - 1], seen[i + 1]]] : []));
    expect(copies.length).toBe(lean.length);
    const large = lean.map((f) => f.rows >= 10_000);
    expect(large.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(large.filter((x) => !x).length).toBeGreaterThanOrEqual(1);
    copies.forEach(([before, after], i) => {
      if (large[i]) {
        expect(before).toBe(`SET memory_limit = '${32 * 1024}KiB'`);
        expect(after).toBe(`SET memory_limit = '256MB'`);
      } else {
        expect(before).not.toBe(`SET memory_limit = '${32 * 1024}KiB'`);
        expect(after).not.toBe(`SET memory_limit = '256MB'`);
      }
    });
    const plain = await w.exportParquet(path.join(dir, 'plain'), '2026-01-15', 'r1');
    expect(lean.map((f) => [f.table, f.rows])).toEqual(plain.map((f) => [f.table, f.rows]));
    for (const f of lean) {
      const other = plain.find((p) => p.table === f.table)!.file;
      const diff = await w.connection.runAndReadAll(`SELECT count(*)::INT FROM ((FROM read_parquet('${f.file}') EXCEPT ALL FROM read_parquet('${other}')) UNION ALL (FROM read_parquet('${other}') EXCEPT ALL FROM read_parquet('${f.file}')))`);
      expect(diff.getRows()[0][0]).toBe(0);
    }
  });

  it('a table the lowered limit cannot export goes again under the whole limit', async () => {
    const { w, dir } = await fileWarehouse('seo-etl-lean-', { memoryLimit: '256MB' });
    await w.ensureSchema();
    await w.loadTasks(Array.from({ length: 20 }, (_, i) => keywordTask(`K${i}`, 700, 2)), { runId: 'r1' });
    let outOfMemory = 0;
    const restore = watchRun(w, { failed: (err) => /out of memory/i.test(err.message) && outOfMemory++ });
    // 1 KiB: no COPY fits.
    const files = await w.exportParquet(path.join(dir, 'lean'), '2026-01-15', 'r1', { lean: { memoryBytes: 1024, memoryLimit: '256MB' } });
    restore();
    expect(outOfMemory).toBeGreaterThan(0);
    expect(files.find((f) => f.table === 'keyword_data')!.rows).toBe(14_000);
    const back = await w.connection.runAndReadAll(`SELECT count(*)::INT FROM read_parquet('${files.find((f) => f.table === 'keyword_data')!.file}')`);
    expect(back.getRows()[0][0]).toBe(14_000);
    expect(String((await w.connection.runAndReadAll(`SELECT current_setting('memory_limit')`)).getRows()[0][0])).toMatch(/^(256\.0 ?MB|244\.1 ?MiB)$/);
  });
});

describe('Warehouse.trimCache', () => {
  it('evicts DuckDB cache down to the resting size, restores memory_limit, and loses no data', async () => {
    const { w } = await fileWarehouse('seo-etl-trim-', { memoryLimit: '256MB' });
    // About 50 MB of table blocks, cached as a night's loads leave them (no checkpoint has dropped them yet).
    await w.connection.run(`SET checkpoint_threshold = '1GB'`);
    await w.connection.run(`CREATE TABLE big AS SELECT range AS id, md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS s FROM range(1500000)`);
    const before = await w.memoryInUse();
    expect(before).toBeGreaterThan(40e6);
    const limitBefore = await limitOf(w);
    const after = await w.trimCache(16e6, '256MB');
    expect(after).toBeLessThanOrEqual(16e6);
    expect(await w.memoryInUse()).toBe(after);
    expect(await limitOf(w)).toBe(limitBefore);
    const n = await w.connection.runAndReadAll('SELECT count(*), count(DISTINCT s) FROM big');
    expect(n.getRows()[0].map(Number)).toEqual([1_500_000, 1_500_000]);
    // Below the resting size nothing is done.
    expect(await w.trimCache(512e6, '256MB')).toBeLessThanOrEqual(512e6);
  });
});

describe('Warehouse.checkpoint', () => {
  it('writes the WAL into the file under the lowered limit, leaves that much cached at most, and restores memory_limit', async () => {
    const { w } = await fileWarehouse('seo-etl-ckpt-', { memoryLimit: '256MB', checkpointThreshold: '1GB' });
    expect(String((await w.connection.runAndReadAll(`SELECT current_setting('checkpoint_threshold')`)).getRows()[0][0])).toMatch(/^(1\.0 ?GB|953\.[0-9] ?MiB)$/);
    // In transactions of less than a row group, as a night's loads write them: they go through the WAL.
    await w.connection.run('CREATE TABLE big (id BIGINT, s VARCHAR)');
    for (let i = 0; i < 15; i++) await w.connection.run(`INSERT INTO big SELECT range AS id, md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS s FROM range(${i * 100_000}, ${(i + 1) * 100_000})`);
    expect(w.walBytes()).toBeGreaterThan(10e6);
    const limitBefore = await limitOf(w);
    expect(await w.checkpoint(64e6, '256MB')).toBe(true);
    expect(w.walBytes()).toBe(0);
    expect(await w.memoryInUse()).toBeLessThanOrEqual(64e6);
    expect(await limitOf(w)).toBe(limitBefore);
    const n = await w.connection.runAndReadAll('SELECT count(*), count(DISTINCT s) FROM big');
    expect(n.getRows()[0].map(Number)).toEqual([1_500_000, 1_500_000]);
  });

  it('raises the lowered limit to the rows it writes and room beside them, or twice the WAL when that is more', async () => {
    const { w } = await fileWarehouse('seo-etl-ckpt-', { memoryLimit: '256MB', checkpointThreshold: '1GB' });
    await w.connection.run('CREATE TABLE big (id BIGINT, s VARCHAR)');
    for (let i = 0; i < 5; i++) await w.connection.run(`INSERT INTO big SELECT range AS id, md5(range::VARCHAR) AS s FROM range(${i * 100_000}, ${(i + 1) * 100_000})`);
    const wal = w.walBytes();
    expect(wal).toBeGreaterThan(4e6);
    // The committed rows are in memory until the checkpoint writes them to the file.
    const { unpersisted } = await w.memory();
    expect(unpersisted).toBeGreaterThan(4e6);
    const sets: string[] = [];
    watchRun(w, { before: (sql) => sql.startsWith('SET memory_limit') && sets.push(sql) });
    expect(await w.checkpoint(1e6, '256MB')).toBe(true);
    const floor = Math.max(2 * wal, unpersisted + CHECKPOINT_ROOM);
    expect(sets).toEqual([`SET memory_limit = '${Math.floor(floor / 1024)}KiB'`, `SET memory_limit = '256MB'`]);
    expect(w.walBytes()).toBe(0);
    expect((await w.memory()).unpersisted).toBe(0);
    expect(Number((await w.connection.runAndReadAll('SELECT count(*) FROM big')).getRows()[0][0])).toBe(500_000);
  });

  it('checkpointMemory: the asked bytes, never below the rows in memory and room, nor twice the WAL', () => {
    expect(checkpointMemory(128e6, 0, 1e6)).toBe(128e6);
    expect(checkpointMemory(128e6, 170e6, 6e6)).toBe(170e6 + CHECKPOINT_ROOM);
    expect(checkpointMemory(1e6, 0, 40e6)).toBe(80e6);
    expect(checkpointMemory(1e6, 10e6, 40e6)).toBe(80e6);
  });

  it('runs CHECKPOINT while the lowered limit is in effect, never above memory_limit', async () => {
    const w = await Warehouse.open(':memory:');
    open.push(w);
    // memory_limit is the instance's: another connection reads what the statement runs under.
    const probe = await w.connect();
    const ran: string[] = [];
    watchRun(w, { before: async (sql) => ran.push(`${sql.trim()} -> ${String((await probe.runAndReadAll(`SELECT current_setting('memory_limit')`)).getRows()[0][0])}`) });
    expect(await w.checkpoint(96e6, '256MB')).toBe(true);
    expect(await w.checkpoint(512e6, '128MB')).toBe(true);
    // The statements that set and use the limit (the read of what DuckDB holds, which decides it, aside).
    const stmts = ran.filter((r) => !r.startsWith('SELECT'));
    expect(stmts.map((r) => r.split(' -> ')[0])).toEqual([
      `SET memory_limit = '93750KiB'`, 'CHECKPOINT warehouse', `SET memory_limit = '256MB'`,
      `SET memory_limit = '125000KiB'`, 'CHECKPOINT warehouse', `SET memory_limit = '128MB'`,
    ]);
    // The limit each CHECKPOINT started under.
    expect(stmts[1].split(' -> ')[1]).toMatch(/^(91\.5 ?MiB|93\.7 ?MB|93750 ?KiB)$/);
    expect(stmts[4].split(' -> ')[1]).toMatch(/^(119\.2 ?MiB|122\.0 ?MiB|125\.0 ?MB)$/);
    probe.closeSync();
  });

  it('does nothing and says so while another connection has a write open, and checkpoints once it is committed', async () => {
    const { w } = await fileWarehouse('seo-etl-ckpt-', { memoryLimit: '256MB', checkpointThreshold: '1GB' });
    await w.connection.run('CREATE TABLE t AS SELECT range AS id FROM range(100000)');
    const other = await w.connect();
    await other.run('BEGIN TRANSACTION');
    // An update, as the ledger's writes are (DuckDB checkpoints beside an open transaction that only appends).
    await other.run('UPDATE t SET id = -1 WHERE id = 0');
    const wal = w.walBytes();
    expect(wal).toBeGreaterThan(0);
    const limitBefore = await limitOf(w);
    expect(await w.checkpoint(64e6, '256MB')).toBe(false);
    expect(w.walBytes()).toBe(wal);
    expect(await limitOf(w)).toBe(limitBefore);
    await other.run('COMMIT');
    other.closeSync();
    expect(await w.checkpoint(64e6, '256MB')).toBe(true);
    expect(w.walBytes()).toBe(0);
    expect((await w.connection.runAndReadAll('SELECT count(*)::INT, min(id)::INT FROM t')).getRows()[0]).toEqual([100_000, -1]);
  });
});

describe('row groups (warehouse.row_group_size)', () => {
  const rowGroups = async (w: Warehouse, table: string) =>
    (await w.connection.runAndReadAll(`SELECT count(DISTINCT row_group_id)::INT, max(count)::INT FROM pragma_storage_info('${table}')`)).getRows()[0];

  it('stores rows in groups of the size given, through every connection, and spills beside the file', async () => {
    const { w, dir } = await fileWarehouse('seo-etl-rg-', { rowGroupSize: 2048 });
    await w.connection.run('CREATE TABLE t AS SELECT range AS id FROM range(10000)');
    const other = await w.connect();
    await other.run('INSERT INTO t SELECT range FROM range(10000, 12000)');
    other.closeSync();
    await w.connection.run('CHECKPOINT');
    expect(await rowGroups(w, 't')).toEqual([6, 2048]);
    expect(String((await w.connection.runAndReadAll(`SELECT current_setting('temp_directory')`)).getRows()[0][0])).toBe(path.join(dir, 'w.duckdb.tmp'));
  });

  it('keeps DuckDB\'s own size when none is given', async () => {
    const { w } = await fileWarehouse('seo-etl-rg-', {});
    await w.connection.run('CREATE TABLE t AS SELECT range AS id FROM range(130000)');
    await w.connection.run('CHECKPOINT');
    expect(await rowGroups(w, 't')).toEqual([2, 122_880]);
  });

  // Each checkpoint leaves the rows appended since the one before as a row group of their own (seen in DuckDB
  // 1.5); DuckDB's vacuum merges under-full neighbours at a later checkpoint unless mergeRowGroups is false.
  const appendInIntervals = async (w: Warehouse) => {
    await w.connection.run('CREATE TABLE t (id BIGINT, s VARCHAR)');
    for (let i = 0; i < 4; i++) {
      await w.connection.run(`INSERT INTO t SELECT range, md5(range::VARCHAR) FROM range(${i * 3000}, ${(i + 1) * 3000})`);
      await w.connection.run('CHECKPOINT');
    }
    return rowGroups(w, 't');
  };

  it('keeps the row groups each checkpoint leaves when mergeRowGroups is false', async () => {
    const { w } = await fileWarehouse('seo-etl-rg-', { rowGroupSize: 32768, mergeRowGroups: false });
    expect(await appendInIntervals(w)).toEqual([4, 3000]);
    expect(Number((await w.connection.runAndReadAll('SELECT count(DISTINCT id) FROM t')).getRows()[0][0])).toBe(12_000);
  });

  it('lets DuckDB merge them otherwise', async () => {
    const { w } = await fileWarehouse('seo-etl-rg-', { rowGroupSize: 32768 });
    const [groups, largest] = await appendInIntervals(w);
    expect(groups).toBeLessThan(4);
    expect(largest).toBeGreaterThan(3000);
  });

  it('refuses a size DuckDB cannot store, with the rule', async () => {
    const dir = tempDir('seo-etl-rg-');
    await expect(Warehouse.open(path.join(dir, 'w.duckdb'), { rowGroupSize: 3000 })).rejects.toThrow(/row group size: must be a multiple of 2048 from 2048 to 122880, got 3000/);
  });
});
