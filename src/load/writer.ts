/**
 * The one writer of the working warehouse: loads, ledger writes and checkpoints take turns in one queue, because
 * DuckDB runs one transaction per connection and a checkpoint is refused while any write is open.
 *
 * Between two turns it rests the warehouse: a checkpoint once the write-ahead log has grown, under a lowered
 * memory limit, then DuckDB's cache trimmed. The memory policy is these constants; users set memory_limit only.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { CollectedTask } from '../normalize/extract.js';
import { sizeInBytes } from '../config/index.js';
import { Warehouse, emptySummary, type LoadSummary } from './warehouse.js';
import { WAREHOUSE_STORAGE } from './database.js';
import { loadArchiveFiles, type ArchiveLoadOptions, type ArchiveLoadResult } from './archive-load.js';
import { reexportMovedRuns, rewriteParquet } from './parquet-sync.js';

/**
 * Checkpoint once the log holds this much: a small log keeps each checkpoint (the peaks of a night) small, and rows
 * committed since the last checkpoint stay in DuckDB's memory (its log is not its storage) until one runs.
 */
const CHECKPOINT_WAL = 4e6;
/** DuckDB's memory during a checkpoint: its cache takes all it may, and below 128MB a checkpoint ran out of memory. */
const CHECKPOINT_MEMORY = 128e6;
/** DuckDB's cache kept between turns: it otherwise holds every block it touched until memory_limit presses. The ledger's
 * reads on another connection wait while the limit is lowered to it (memory-gate.ts), so it need not leave them room. */
const CACHE_BETWEEN_LOADS = 32e6;
/** DuckDB's own checkpoint stays as a safety net, well past ours. */
const DUCKDB_CHECKPOINT_THRESHOLD = `${Math.ceil((4 * CHECKPOINT_WAL) / 1024)}KiB`;

export interface WriterLog {
  debug(obj: object, msg: string): void;
}

export class Writer {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly connections: DuckDBConnection[] = [];
  private closed = false;
  /** Where checkpoints are logged (debug), once the run has a log. */
  log?: WriterLog;

  private constructor(private readonly warehouse: Warehouse, private readonly memoryLimit: string, private readonly checkpointWal: number) {}

  /**
   * Opens the working warehouse file for this writer, its tables created from the catalog (with `tables`, those of
   * a pipeline: pipelineTables). `checkpointWalBytes` is a test seam (checkpoints of a small night).
   */
  static async open(file: string, memoryLimit: string, opts: { checkpointWalBytes?: number; tables?: readonly string[] } = {}): Promise<Writer> {
    const warehouse = await Warehouse.open(file, { memoryLimit, checkpointThreshold: DUCKDB_CHECKPOINT_THRESHOLD, ...WAREHOUSE_STORAGE });
    warehouse.use(opts.tables ?? []);
    await warehouse.ensureSchema();
    return new Writer(warehouse, memoryLimit, opts.checkpointWalBytes ?? CHECKPOINT_WAL);
  }

  /** Puts a pipeline's tables in use (a resumed run reads its pipeline after opening): the next load creates them. */
  use(tables: readonly string[]): void {
    this.warehouse.use(tables);
  }

  /** Another connection (the ledger's: its transactions are its own), closed with the writer. */
  async connect(): Promise<DuckDBConnection> {
    const conn = await this.warehouse.connect();
    this.connections.push(conn);
    return conn;
  }

  /** Runs another connection's reads (the ledger's) beside the writes, never while DuckDB's memory limit is lowered. */
  beside<T>(work: () => Promise<T>): Promise<T> {
    return this.warehouse.beside(work);
  }

  /** Runs `work` after everything queued before it; a failure reaches its caller, not the next in line. */
  queue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once everything queued so far is done. */
  async idle(): Promise<void> {
    let seen: Promise<unknown>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }

  /**
   * Normalizes and loads `tasks`, with `moves` (the ledger's) and `inTransaction` in the same transaction; then
   * rests.
   */
  load(tasks: readonly CollectedTask[], opts: { runId: string; engines: readonly string[]; moves?: (conn: DuckDBConnection) => Promise<void>; inTransaction?: (conn: DuckDBConnection) => Promise<void> }): Promise<LoadSummary> {
    // Ledger moves alone (a call about to be sent, an adoption): one small transaction, nothing to rest after.
    if (!tasks.length) return this.queue(async () => { if (opts.moves) await this.warehouse.transact(opts.moves); return emptySummary(); });
    return this.queue(async () => {
      const summary = await this.warehouse.loadTasks(tasks, opts);
      await this.restNow('load');
      return summary;
    });
  }

  /** A read of the working warehouse, in turn with the writes: its rows as arrays. */
  query(sql: string, params?: DuckDBValue[]): Promise<unknown[][]> {
    return this.queue(async () => (await this.warehouse.connection.runAndReadAll(sql, params)).getRows() as unknown[][]);
  }

  /** A read of the working warehouse, in turn with the writes: its rows as objects. */
  queryObjects(sql: string): Promise<Record<string, unknown>[]> {
    return this.queue(async () => (await this.warehouse.connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);
  }

  /** Row counts of every catalog table. */
  tableCounts(): Promise<Record<string, number>> {
    return this.queue(() => this.warehouse.tableCounts());
  }

  /** Drops and recreates every catalog table (reprocess); the ledger's tables are left alone. */
  resetTables(): Promise<void> {
    return this.queue(async () => { await this.warehouse.resetTables(); });
  }

  /** Loads raw archive files through the load channel (archive-load.ts): reprocess and ingest. */
  loadArchive(files: readonly string[], opts: ArchiveLoadOptions = {}): Promise<ArchiveLoadResult> {
    return this.queue(async () => {
      const r = await loadArchiveFiles(this.warehouse, files, opts);
      await this.restNow('load');
      return r;
    });
  }

  /** The Parquet export rewritten from the warehouse, every run's rows under its day (reprocess, ingest). */
  rewriteParquet(parquetDir: string): Promise<{ table: string; file: string; rows: number }[]> {
    return this.queue(() => rewriteParquet(this.warehouse, parquetDir));
  }

  /** Parquet parts of earlier runs whose rows this run took over, written again (parquet-sync.ts). */
  reexportMovedRuns(parquetDir: string, runId: string): Promise<string[]> {
    return this.queue(() => reexportMovedRuns(this.warehouse, parquetDir, runId));
  }

  /** A rest queued behind the writes before it (after the ledger's own writes: planning, posting). */
  rest(): Promise<void> {
    return this.queue(() => this.restNow('ledger'));
  }

  private async restNow(after: 'load' | 'ledger'): Promise<void> {
    const wal = this.warehouse.walBytes();
    if (wal >= this.checkpointWal) {
      const started = Date.now();
      // Merging (at most two merges a table): each checkpoint otherwise starts every table it touched a row group,
      // whose in-memory metadata (about 2 KB a column) the process keeps for the rest of the run.
      const done = await this.warehouse.mergingCheckpoint(CHECKPOINT_MEMORY, this.memoryLimit);
      this.log?.debug({ after, wal_bytes: wal, done, ms: Date.now() - started }, 'warehouse checkpoint');
    }
    await this.warehouse.trimCache(CACHE_BETWEEN_LOADS, this.memoryLimit);
  }

  /** This run's rows as Parquet, table by table under the resting cache size so exports do not add up. */
  exportParquet(dir: string, runDate: string, runId: string, beforeRename: () => Promise<void>): Promise<{ table: string; file: string; rows: number }[]> {
    return this.queue(async () => {
      // The rows since the last checkpoint into the file first: the export's cache trims between tables would
      // otherwise write them to DuckDB's temporary files and read them back, a file per block.
      if (this.warehouse.walBytes() > 0) await this.warehouse.mergingCheckpoint(CHECKPOINT_MEMORY, this.memoryLimit);
      return this.warehouse.exportParquet(dir, runDate, runId, {
        lean: { memoryBytes: Math.min(CACHE_BETWEEN_LOADS, sizeInBytes(this.memoryLimit)), memoryLimit: this.memoryLimit },
        beforeRename,
      });
    });
  }

  /**
   * Checkpoints (merging row groups, see Warehouse.mergingCheckpoint) and closes the file, so it can be copied for
   * publishing. Throws when the checkpoint is refused: a write still open would otherwise be lost from the copy.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const c of this.connections.splice(0)) c.closeSync();
    if (!(await this.warehouse.mergingCheckpoint(CHECKPOINT_MEMORY, this.memoryLimit))) throw new Error('could not checkpoint the working warehouse before publishing it: another connection has a write open');
    this.closed = true;
    this.warehouse.close();
  }

  /** Closes without a checkpoint (after a failure; DuckDB replays its log at the next open). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.connections.splice(0)) c.closeSync();
    this.warehouse.close();
  }
}
