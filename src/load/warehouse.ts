/**
 * The working warehouse: catalog tables in one DuckDB file, loaded with a task-level replace.
 *
 * The unit of loading is the collected task. ONE transaction deletes whatever an earlier load wrote for the same
 * tasks, appends the new rows as the normalizer makes them and runs the caller's callback (the ledger marks the tasks loaded there), so a result's rows and its ledger state change together.
 * Loading the same response twice therefore changes nothing, and a re-collected task (tasks_fixed) replaces
 * its earlier rows.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connectTo, openDatabase, WAREHOUSE_CATALOG, type StorageOptions } from './database.js';
import type { Catalog } from '../catalog/catalog.js';
import { CATALOG } from '../families/index.js';
import { TablesInUse } from './tables-in-use.js';
import { allColumns, type TableDef } from '../catalog/table.js';
import { normalizeTaskInto, NormalizeStats, type CollectedTask, type Row } from '../normalize/extract.js';
import { addReplaced, planLoad, tablesOfTasks, type LoadPlan } from './plan.js';
import { statsOf, type Layout, type PreparedLoad, type PreparedTable } from './prepare.js';
import { kindOfType } from './chunk-fill.js';
import { kindOfTypeName } from './column-encode.js';
import { createTableSql, ensureSchema, lit, q, tablesWithRows, type SchemaChange } from './ddl.js';
import { appendRows, RowAppender } from './append.js';
import { inTransaction } from './transaction.js';
import { sizeInBytes } from '../config/index.js';
import { MemoryGate } from './memory-gate.js';

export interface LoadOptions {
  runId: string;
  loadedAt?: Date;
  /** Engine names stripped from item types (config.paths values). */
  engines?: readonly string[];
  /**
   * The ledger's moves, run first in the load transaction: a few short statements before the rows' long synchronous
   * append, so that answers arriving during the append are handled while DuckDB commits, not between two moves.
   */
  moves?: (conn: DuckDBConnection) => Promise<void>;
  /** Runs inside the load transaction, after the rows are in; a throw rolls the whole load back. */
  inTransaction?: (conn: DuckDBConnection) => Promise<void>;
}

export interface LoadSummary {
  tasks: number;
  failedTasks: number;
  /** Responses without a collected task (task_post answers). */
  skippedTasks: number;
  rows: Record<string, number>;
  unknownFields: number;
  unknownItemTypes: number;
  badValues: number;
  /** Detail by `table.path` / `table:type`, for the run summary. */
  unknownFieldPaths: Record<string, number>;
  unknownItemTypeNames: Record<string, number>;
}

export function emptySummary(): LoadSummary {
  return { tasks: 0, failedTasks: 0, skippedTasks: 0, rows: {}, unknownFields: 0, unknownItemTypes: 0, badValues: 0, unknownFieldPaths: {}, unknownItemTypeNames: {} };
}

export function addStats(summary: LoadSummary, stats: NormalizeStats): void {
  summary.tasks += stats.tasks;
  summary.failedTasks += stats.failedTasks;
  summary.skippedTasks += stats.skippedTasks;
  summary.unknownFields += stats.unknownFieldCount;
  summary.unknownItemTypes += stats.unknownItemTypeCount;
  summary.badValues += stats.badValueCount;
  for (const [k, v] of stats.unknownFields) summary.unknownFieldPaths[k] = (summary.unknownFieldPaths[k] ?? 0) + v;
  for (const [k, v] of stats.unknownItemTypes) summary.unknownItemTypeNames[k] = (summary.unknownItemTypeNames[k] ?? 0) + v;
}

export function mergeSummary(into: LoadSummary, from: LoadSummary): void {
  into.tasks += from.tasks;
  into.failedTasks += from.failedTasks;
  into.skippedTasks += from.skippedTasks;
  into.unknownFields += from.unknownFields;
  into.unknownItemTypes += from.unknownItemTypes;
  into.badValues += from.badValues;
  for (const [k, v] of Object.entries(from.rows)) into.rows[k] = (into.rows[k] ?? 0) + v;
  for (const [k, v] of Object.entries(from.unknownFieldPaths)) into.unknownFieldPaths[k] = (into.unknownFieldPaths[k] ?? 0) + v;
  for (const [k, v] of Object.entries(from.unknownItemTypeNames)) into.unknownItemTypeNames[k] = (into.unknownItemTypeNames[k] ?? 0) + v;
}

/** What a lean export leaves cached after each table: room for another connection's small statements meanwhile. */
const EXPORT_CACHE_KEPT = 16 * 2 ** 20;

/**
 * A table of fewer rows is exported under the whole limit: its blocks are a few MB, the trim after it empties them,
 * and lowering the limit and restoring it cost two statements that wait for every other connection.
 */
const LEAN_EXPORT_MIN_ROWS = 10_000;

export interface ExportOptions {
  /** Every run's rows, not only this run's. */
  all?: boolean;
  rowGroupSize?: number;
  /** Each table exported with DuckDB's memory limited to `memoryBytes` (see underMemoryLimit), its cache emptied after. */
  lean?: { memoryBytes: number; memoryLimit: string };
  beforeRename?: (tmp: string, file: string) => Promise<void>;
}

export class Warehouse {
  /** Each table's column order in the file, read once (see columnsOf); forgotten when the schema changes. */
  private readonly columnOrder = new Map<string, string[]>();
  /** The catalog tables this warehouse holds or is about to (its schema follows them). */
  readonly inUse: TablesInUse;
  /** A lowered memory limit runs alone; other connections' statements run beside each other (memory-gate.ts). */
  private readonly gate = new MemoryGate();

  private constructor(readonly file: string, private readonly instance: DuckDBInstance, readonly connection: DuckDBConnection, readonly catalog: Catalog) {
    this.inUse = new TablesInUse(catalog);
  }

  /**
   * Opens (creating) a warehouse file; `:memory:` for tests. A DuckDB file is open in one process at a time.
   * Writers pass WAREHOUSE_STORAGE (see openDatabase); without it DuckDB's own storage defaults apply.
   */
  static async open(file: string, opts: StorageOptions & { threads?: number; memoryLimit?: string; checkpointThreshold?: string; /** Its tables' catalog: the process's unless given. */ catalog?: Catalog } = {}): Promise<Warehouse> {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    const settings: Record<string, string> = {};
    if (opts.threads) settings.threads = String(opts.threads);
    if (opts.memoryLimit) settings.memory_limit = opts.memoryLimit;
    if (opts.checkpointThreshold) settings.checkpoint_threshold = opts.checkpointThreshold;
    const { instance, connection } = await openDatabase(file, { rowGroupSize: opts.rowGroupSize, mergeRowGroups: opts.mergeRowGroups, blockSize: opts.blockSize, storageVersion: opts.storageVersion, settings });
    return new Warehouse(file, instance, connection, opts.catalog ?? CATALOG);
  }

  /** Bytes DuckDB holds now (buffer pool, temporary data, indexes), from `duckdb_memory()`. */
  async memoryInUse(): Promise<number> {
    return (await this.memory()).total;
  }

  /**
   * Bytes DuckDB holds in all, and of them those of rows on no disk yet (committed since the last checkpoint:
   * `IN_MEMORY_TABLE`). A wide family holds a block a column of those however few its rows (Labs' 1,329 columns
   * at 64 KiB, and as many for their validity), and a limit below them makes DuckDB write each to a temporary file
   * of its own and read it back: the checkpoint, which writes them to the file anyway, is never limited below them.
   */
  async memory(): Promise<{ total: number; unpersisted: number }> {
    const r = await this.connection.runAndReadAll(`SELECT sum(memory_usage_bytes)::BIGINT, (sum(memory_usage_bytes) FILTER (WHERE tag = 'IN_MEMORY_TABLE'))::BIGINT FROM duckdb_memory()`);
    const [total, unpersisted] = r.getRows()[0];
    return { total: Number(total ?? 0), unpersisted: Number(unpersisted ?? 0) };
  }

  /**
   * Lets DuckDB's cache shrink to `restBytes` between loads while a load may still use up to `memoryLimit`.
   * DuckDB keeps committed blocks cached until the limit presses, so a long night's memory grew with its data
   * until the limit; lowering the limit for a moment evicts them (checkpointed blocks are in the file, others go
   * to DuckDB's temporary files) and the memory is given back. When DuckDB cannot free that much (blocks pinned
   * by an open transaction) it keeps the old limit, and this only restores it. Other connections' statements that
   * go through `beside` wait for that moment to pass. Returns the bytes in use afterwards.
   */
  async trimCache(restBytes: number, memoryLimit: string): Promise<number> {
    const before = await this.memoryInUse();
    if (before <= restBytes) return before;
    await this.underMemoryLimit(restBytes, memoryLimit, async () => undefined);
    return this.memoryInUse();
  }

  /**
   * Runs `work` with DuckDB's memory limited to `bytes` (never above `memoryLimit`), then restores `memoryLimit`.
   * Lowering the limit evicts cached blocks down to it first, and the limit holds for every connection meanwhile:
   * it waits for the statements running `beside` and keeps new ones waiting until it is restored. When DuckDB
   * cannot evict that much now (blocks pinned by an open transaction) it refuses the lower limit and `work` runs
   * under the one it had.
   */
  underMemoryLimit<T>(bytes: number, memoryLimit: string, work: () => Promise<T>): Promise<T> {
    const kib = Math.max(1, Math.floor(Math.min(bytes, sizeInBytes(memoryLimit)) / 1024));
    return this.gate.alone(async () => {
      try {
        await this.connection.run(`SET memory_limit = '${kib}KiB'`).catch(() => undefined);
        return await work();
      } finally {
        await this.connection.run(`SET memory_limit = '${memoryLimit}'`);
      }
    });
  }

  /** Runs another connection's statements (the ledger's reads), never while the memory limit is lowered. */
  beside<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.beside(work);
  }

  /** Bytes in the write-ahead log now: what the next checkpoint writes into the file. */
  walBytes(): number {
    if (this.file === ':memory:') return 0;
    try {
      return statSync(`${this.file}.wal`).size;
    } catch {
      return 0;
    }
  }

  /**
   * Checkpoints with DuckDB's memory limited to about `memoryBytes` (checkpointMemory, underMemoryLimit): DuckDB
   * keeps what a checkpoint touches cached up to its limit. Returns false, having done nothing, while another
   * connection has a write open.
   */
  async checkpoint(memoryBytes: number, memoryLimit: string): Promise<boolean> {
    const { unpersisted } = await this.memory();
    return this.underMemoryLimit(checkpointMemory(memoryBytes, unpersisted, this.walBytes()), memoryLimit, async () => {
      try {
        await this.connection.run(`CHECKPOINT ${WAREHOUSE_CATALOG}`);
        return true;
      } catch (err) {
        if (/other write transactions active/i.test(String((err as Error).message))) return false;
        throw err;
      }
    });
  }

  /**
   * A checkpoint of the writer (its rests and Writer.close: every run, reprocess and ingest) with DuckDB's merge of
   * under-full row groups on for it alone, at most MERGE_TASKS merges a table. Without merges every checkpoint
   * leaves each table it touched a row group and a block of its own: a year of small nights made 661 MB of working
   * file against 116 MB published, and within a night the groups' metadata grew the process by about 2 KB a column
   * a checkpoint (Labs' 1,329 columns: 2.7 MB a load). Without a bound, merges cost a large night ~100 MB at its
   * end (docs/journal/performance-2026-11-22-to-2026-11-27.md, "Row ids derived", "three memory causes fixed").
   */
  async mergingCheckpoint(memoryBytes: number, memoryLimit: string): Promise<boolean> {
    const before = Number((await this.connection.runAndReadAll(`SELECT current_setting('max_vacuum_tasks')`)).getRows()[0][0]);
    await this.connection.run(`SET max_vacuum_tasks = ${MERGE_TASKS}`);
    try {
      return await this.checkpoint(memoryBytes, memoryLimit);
    } finally {
      await this.connection.run(`SET max_vacuum_tasks = ${before}`);
    }
  }

  /** Another connection to the same database: a DuckDB transaction spans one connection, so the ledger's own
   *  commits use a second one while a load transaction is open on `connection`. */
  connect(): Promise<DuckDBConnection> {
    return connectTo(this.instance);
  }

  /** Creates missing tables and columns from the catalog (never drops or narrows). */
  async ensureSchema(): Promise<SchemaChange[]> {
    this.columnOrder.clear();
    const changes = await ensureSchema(this.connection, this.inUse);
    this.tablesInSchema = this.inUse.tables.length;
    return changes;
  }
  private tablesInSchema = -1;

  /**
   * Puts tables in use (created by the next load or ensureSchema): those a pipeline fetches into or a load's tasks
   * write. An item type's own tables and those below them wait for their first row.
   */
  use(names: Iterable<string>): void {
    this.inUse.add([...names].filter((n) => !this.catalog.inUseOnFirstRow(this.catalog.table(n))));
  }

  /** Drops and recreates every catalog table (reprocess). Other tables (the ledger's) are left alone. */
  async resetTables(): Promise<void> {
    for (const t of this.inUse.tables) await this.connection.run(`DROP TABLE IF EXISTS ${q(t.name)}`);
    await this.ensureSchema();
  }

  /**
   * Normalizes and loads collected tasks with a task-level replace, in one transaction with `inTransaction`: deletes
   * the replaced tasks' rows, then normalizes task after task, each row appended as it is made (an appender writes
   * in the connection's open transaction), so a load never holds its rows, only a chunk of each table. The writer's
   * queue is what keeps anything else from waiting on this transaction.
   */
  async loadTasks(tasks: readonly CollectedTask[], opts: LoadOptions): Promise<LoadSummary> {
    const plan = planLoad(tasks, this.catalog);
    // A task of a generated family puts its tables in use: created before the load writes. An item type's tables
    // come into use with their first row, below.
    const tables = tablesOfTasks(plan.tasks, this.catalog);
    this.use(tables);
    const stats = new NormalizeStats();
    const ctx = { runId: opts.runId, loadedAt: opts.loadedAt ?? new Date(), engines: opts.engines, catalog: this.catalog };
    return this.replaceTasks(plan, async (open, summary, inUse) => {
      // Every table a load may write, opened before the first row: opening one is a round trip to DuckDB.
      const writes = new Set(tables);
      const appenders = await open(tables.filter((name) => inUse.has(name)));
      // Rows of a table not in use yet wait for the end of their task, which then creates it (in this transaction).
      const waiting = new Map<string, Row[]>();
      const emit = (table: string, row: Row) => {
        const a = appenders.get(table);
        if (a) return a.add(row);
        if (!writes.has(table)) throw new Error(`load: a row of ${table}, which no task of this load writes (tablesOfTask)`);
        let rows = waiting.get(table);
        if (!rows) waiting.set(table, (rows = []));
        rows.push(row);
      };
      for (const t of plan.tasks) {
        normalizeTaskInto(t, ctx, stats, emit);
        if (!waiting.size) continue;
        for (const [name, a] of await open([...waiting.keys()])) {
          appenders.set(name, a);
          for (const row of waiting.get(name) ?? []) a.add(row);
        }
        waiting.clear();
      }
      addStats(summary, stats);
    }, opts);
  }

  /**
   * Loads archive lines prepared on a worker thread (prepare.ts) in one transaction, with the task-level replace of
   * loadTasks: the replaced tasks' rows deleted, then each table's encoded chunks appended. The loads are in order
   * and name no task twice (archive-load.ts splits its transactions there).
   */
  async loadPrepared(loads: readonly PreparedLoad[]): Promise<LoadSummary> {
    const plan: LoadPlan = { tasks: [], replace: new Map(), taskRowIds: new Set() };
    const endpoints = new Set<string>();
    for (const p of loads) {
      for (const id of p.taskRowIds) plan.taskRowIds.add(id);
      for (const [name, ids] of p.replace) addReplaced(plan, name, ids);
      for (const e of p.endpoints) endpoints.add(e);
    }
    this.use(tablesOfTasks([...endpoints].map((endpointId) => ({ endpointId })), this.catalog)); // their families' tables
    return this.replaceTasks(plan, async (open, summary) => {
      for (const p of loads) {
        addStats(summary, statsOf(p));
        const appenders = await open(p.tables.map((t) => t.name));
        for (const t of p.tables) {
          const a = appenders.get(t.name)!;
          checkLayout(t, a);
          for (const c of t.chunks) a.addEncoded(c.columns, p.arena, c.rows);
        }
      }
    });
  }

  /**
   * One load transaction with a task-level replace: the replaced tasks' rows deleted, then `write` appends through
   * `open` (the appenders of the named tables, tables not in use created in this transaction), then `inTransaction`
   * and COMMIT, the ledger's `moves` first; on any failure, ROLLBACK and nothing of it stays.
   */
  private async replaceTasks(plan: LoadPlan, write: (open: (names: readonly string[]) => Promise<Map<string, RowAppender>>, summary: LoadSummary, inUse: ReadonlySet<string>) => Promise<void>, opts: Pick<LoadOptions, 'moves' | 'inTransaction'> = {}): Promise<LoadSummary> {
    const conn = this.connection;
    if (this.inUse.tables.length !== this.tablesInSchema) await this.ensureSchema();
    // The replaced tasks' rows are deleted from the tables in use; one not in use (not in the warehouse) has none.
    const inUse = new Set(this.inUse.tables.map((t) => t.name));
    for (const name of [...plan.replace.keys()]) if (!inUse.has(name)) plan.replace.delete(name);
    await this.stageKeys(plan);
    const appenders = new Map<string, RowAppender>();
    let created = 0; // tables this transaction created: a rollback takes them back
    const open = async (names: readonly string[]) => {
      const fresh = names.filter((n) => !inUse.has(n));
      if (fresh.length) {
        for (const def of this.inUse.add(fresh)) {
          await conn.run(createTableSql(def, { derivedIds: true }));
          created++;
        }
        for (const n of fresh) inUse.add(n);
      }
      const out = new Map<string, RowAppender>();
      for (const name of names) {
        let a = appenders.get(name);
        if (!a) appenders.set(name, (a = await RowAppender.open(conn, name, await this.columnsOf(name, conn))));
        out.set(name, a);
      }
      return out;
    };
    await conn.run('BEGIN TRANSACTION');
    try {
      await this.deleteReplaced(plan, conn);
      if (opts.moves) await opts.moves(conn);
      const summary = emptySummary();
      await write(open, summary, inUse);
      for (const [name, a] of appenders) {
        appenders.delete(name);
        a.close();
        if (a.rows) summary.rows[name] = a.rows;
      }
      if (opts.inTransaction) await opts.inTransaction(conn);
      await conn.run('COMMIT');
      // Counted, not read from inUse: a table put in use meanwhile outside this load is still to be created.
      this.tablesInSchema += created;
      return summary;
    } catch (err) {
      for (const a of appenders.values()) a.abandon();
      await conn.run('ROLLBACK').catch(() => undefined);
      // Tables this load put in use stay in use: the rollback took them back, so they are created again, empty.
      if (created) await this.ensureSchema().catch(() => undefined);
      throw err;
    }
  }

  /** Every table's stored columns and their types as the file has them, for a worker to encode rows in (prepare.ts). */
  async layouts(conn: DuckDBConnection = this.connection): Promise<Record<string, Layout>> {
    const r = await conn.runAndReadAll(`SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND column_default IS NULL ORDER BY table_name, column_index`);
    const out: Record<string, Layout> = {};
    for (const [t, c, ty] of r.getRows() as [string, string, string][]) {
      const layout = (out[t] ??= { columns: [], types: [] });
      layout.columns.push(c);
      layout.types.push(ty);
    }
    return out;
  }

  /** The replaced tasks' keys in a temporary table, for deleteReplaced to join (before the load's transaction). */
  private async stageKeys(plan: LoadPlan): Promise<void> {
    const conn = this.connection;
    await conn.run('DROP TABLE IF EXISTS temp._stage_keys');
    await conn.run('CREATE TEMP TABLE _stage_keys (tbl VARCHAR, k VARCHAR)');
    const keyRows: Row[] = [];
    for (const id of plan.taskRowIds) keyRows.push({ tbl: 'tasks', k: id });
    for (const [name, ids] of plan.replace) for (const id of ids) keyRows.push({ tbl: name, k: id });
    await appendRows(conn, '_stage_keys', ['tbl', 'k'], keyRows);
  }

  /** Runs `work` in one transaction on the writing connection (ledger moves with no rows to load). */
  transact(work: (conn: DuckDBConnection) => Promise<void>): Promise<void> {
    return inTransaction(this.connection, work);
  }

  /**
   * A table's stored columns in the order the file has them (a column added by schema evolution is last); a
   * generated column (a derived `_id`) is computed by DuckDB, and the only kind with an expression here.
   */
  private async columnsOf(name: string, conn: DuckDBConnection): Promise<string[]> {
    if (!this.columnOrder.has(name)) {
      // Every table's at once: a load opens dozens of tables, and each read scanned the whole catalog anyway.
      for (const [t, layout] of Object.entries(await this.layouts(conn))) this.columnOrder.set(t, layout.columns);
      if (!this.columnOrder.has(name)) this.columnOrder.set(name, []);
    }
    return this.columnOrder.get(name)!;
  }

  private async deleteReplaced(staged: LoadPlan, conn: DuckDBConnection): Promise<void> {
    // A task's rows in any table were written with its `tasks` row: when no task of the batch has one yet there is
    // nothing to replace, and the deletes (each a scan of a whole table) are skipped.
    const seen = await conn.runAndReadAll(`SELECT count(*) FROM tasks WHERE _task_id IN (SELECT k FROM temp._stage_keys WHERE tbl <> 'tasks')
      OR _id IN (SELECT k FROM temp._stage_keys WHERE tbl = 'tasks')`);
    if (Number(seen.getRows()[0][0]) === 0) return;
    if (staged.taskRowIds.size) {
      await conn.run(`DELETE FROM tasks WHERE _id IN (SELECT k FROM temp._stage_keys WHERE tbl = 'tasks')`);
      for (const t of this.inUse.tables.filter((x) => x.parent === 'tasks')) {
        await conn.run(`DELETE FROM ${q(t.name)} WHERE _parent_id IN (SELECT k FROM temp._stage_keys WHERE tbl = 'tasks')`);
      }
    }
    for (const name of staged.replace.keys()) {
      await conn.run(`DELETE FROM ${q(name)} WHERE _task_id IN (SELECT k FROM temp._stage_keys WHERE tbl = '${name}')`);
    }
  }

  /** Row counts of every catalog table. */
  async tableCounts(): Promise<Record<string, number>> {
    const parts = this.inUse.tables.map((t) => `SELECT '${t.name}' AS t, count(*) AS n FROM ${q(t.name)}`).join(' UNION ALL ');
    const reader = await this.connection.runAndReadAll(parts);
    const out: Record<string, number> = {};
    for (const [t, n] of reader.getRows() as [string, bigint][]) out[t] = Number(n);
    return out;
  }

  /**
   * Writes each table's rows of `runId` (or every row with `all`) to
   * `<dir>/<table>/snapshot_date=<date>/part-<runId>.parquet` with DuckDB's COPY (zstd), under a hidden temporary
   * name first and renamed, so a reader never sees a partial file. Tables without rows get no file.
   */
  async exportParquet(dir: string, snapshotDate: string, runId: string, opts: ExportOptions = {}): Promise<{ table: string; file: string; rows: number }[]> {
    if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new Error(`exportParquet: runId: only letters, digits, '.', '_' and '-' go in a file name, got '${runId}'`);
    const out: { table: string; file: string; rows: number }[] = [];
    // No promised order and row groups bounded in bytes: a sort, or insertion order across threads, held whole
    // tables in memory (figures: docs/journal/performance-2026-11-22-to-2026-11-27.md).
    const previous = (await this.connection.runAndReadAll(`SELECT current_setting('preserve_insertion_order')`)).getRows()[0][0];
    await this.connection.run('SET preserve_insertion_order = false');
    try {
      await this.exportTables(dir, snapshotDate, runId, opts, out);
    } finally {
      await this.connection.run(`SET preserve_insertion_order = ${previous === true || previous === 'true' ? 'true' : 'false'}`);
    }
    return out;
  }

  private async exportTables(dir: string, snapshotDate: string, runId: string, opts: ExportOptions, out: { table: string; file: string; rows: number }[]): Promise<void> {
    const where = opts.all ? '' : ` WHERE _run_id = ${lit(runId)}`;
    // Every table's rows in one statement: a statement a table cost a run hundreds of round trips. A table DuckDB
    // counts no row in holds none of this run's either: most of a night's tables are empty.
    const filled = await tablesWithRows(this.connection);
    const candidates = this.inUse.tables.filter((t) => filled.has(t.name));
    const counts = new Map(candidates.length ? (await this.connection.runAndReadAll(candidates.map((t) => `SELECT ${lit(t.name)} AS t, count(*) AS n FROM ${q(t.name)}${where}`).join(' UNION ALL ')))
      .getRows().map(([t, n]) => [String(t), Number(n)] as [string, number]) : []);
    for (const t of this.inUse.tables) {
      const rows = counts.get(t.name) ?? 0;
      if (!rows) continue;
      const partDir = path.join(dir, t.name, `snapshot_date=${snapshotDate}`);
      mkdirSync(partDir, { recursive: true });
      const file = path.join(partDir, `part-${runId}.parquet`);
      const tmp = path.join(partDir, `.part-${runId}.parquet.tmp-${process.pid}`);
      // Temporary files of this run left by a killed process (another pid): one run holds the warehouse at a time.
      for (const f of readdirSync(partDir)) if (f.startsWith(`.part-${runId}.parquet.tmp-`)) rmSync(path.join(partDir, f), { force: true });
      // Catalog columns in catalog order and type, never `*`: a column added later by schema evolution sits at the
      // end of the DuckDB table, but every file of a table must carry one schema (docs/parquet.md).
      const cols = allColumns(t).map((c) => `CAST(${q(c.name)} AS ${c.type}) AS ${q(c.name)}`).join(', ');
      const copy = () => this.connection.run(`COPY (SELECT ${cols} FROM ${q(t.name)}${where}) TO ${lit(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${Math.max(2048, Math.floor(opts.rowGroupSize ?? PARQUET_ROW_GROUP))}, ROW_GROUP_SIZE_BYTES ${PARQUET_ROW_GROUP_BYTES})`);
      if (opts.lean && rows >= LEAN_EXPORT_MIN_ROWS) {
        // The blocks a table's export reads stay cached until the limit presses: under a low limit, and emptied
        // after each table, they never add up across tables. A table the low limit cannot export goes again
        // under the whole limit (the file is written anew).
        await this.underMemoryLimit(opts.lean.memoryBytes, opts.lean.memoryLimit, copy).catch((err: Error) => {
          if (!/out of memory/i.test(err.message)) throw err;
          return copy();
        });
      } else {
        await copy();
      }
      if (opts.lean) await this.trimCache(EXPORT_CACHE_KEPT, opts.lean.memoryLimit);
      await opts.beforeRename?.(tmp, file);
      renameSync(tmp, file);
      out.push({ table: t.name, file, rows });
    }
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/**
 * Merges (vacuum tasks) a table's checkpoint may run in the checkpoint that merges: a night adds a row group per
 * table and checkpoint, so two keep up with small nights while bounding what a large night's end rewrites at once
 * (DuckDB's default, 100, merged all of a 200-task SERP night's groups at its end: +100 MB of peak RSS).
 */
const MERGE_TASKS = 2;

/** A checkpoint's room above the rows it writes (checkpointMemory). */
export const CHECKPOINT_ROOM = 32e6;

/**
 * The memory a checkpoint runs under: `memoryBytes`, but never below the rows it writes, which are in memory already
 * (`unpersisted`, see Warehouse.memory), with room to write beside them (the blocks it wrote are in the file, so
 * DuckDB drops them from its cache at no cost), nor below twice the WAL (a checkpoint that runs out of memory is
 * fatal to the instance). Below the rows, DuckDB wrote each block to a temporary file and read it back
 * (docs/performance.md, "What limits the family figures").
 */
export function checkpointMemory(memoryBytes: number, unpersisted: number, walBytes: number): number {
  return Math.max(memoryBytes, unpersisted + CHECKPOINT_ROOM, 2 * walBytes);
}

/** Most rows in a Parquet row group (DuckDB's default, a multiple of its 2,048-row vector). */
export const PARQUET_ROW_GROUP = 122_880;
/**
 * Most bytes (as DuckDB holds the rows in memory, before compression) in a Parquet row group: what one export
 * thread buffers before writing. Narrow tables reach PARQUET_ROW_GROUP first, wide ones this.
 */
export const PARQUET_ROW_GROUP_BYTES = 4 * 2 ** 20;

/** A prepared table's columns must be the file's, in its order and of its types: a worker encoded them so. */
function checkLayout(t: PreparedTable, a: RowAppender): void {
  const types = a.columnTypes;
  const sameCount = types.length === t.columns.length;
  const bad = sameCount ? types.findIndex((ty, i) => kindOfType(ty) !== kindOfTypeName(t.types[i])) : -1;
  if (!sameCount || bad >= 0) {
    throw new Error(`load ${q(t.name)}: the rows were prepared for ${t.columns.length} columns (${bad >= 0 ? `${t.columns[bad]} as ${t.types[bad]}` : 'another layout'}), the table has ${types.length}`);
  }
}
