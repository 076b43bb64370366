/**
 * Loading raw archive files (reprocess, ingest, benchmark): streamed line by line, so memory stays flat however
 * large the archive is, and loaded in batches with the same task-level replace as live loads. Later lines win
 * over earlier ones for the same task (a re-collection replaces what was collected before).
 *
 * Two routes, chosen per line (see sql-path.ts for why and when):
 * - keyword task_get lines whose keys are all known go to the SQL fast path: DuckDB parses and flattens them
 *   (read_json with the schema derived from the catalog), which is several times faster than JSON.parse +
 *   flatten + append in JS for these bulk tables;
 * - everything else is parsed in JS and goes through the reference extractor (normalizeTask).
 * A test loads the same archive both ways and compares every table.
 */
import { availableParallelism } from 'node:os';
import type { Engines } from '../config/index.js';
import { readLines, type ReadReport } from '../archive/reader.js';
import { isArchiveRecord, isEnvelope, tasksOfEnvelope, tasksOfRecord } from '../archive/records.js';
import { NormalizeStats, type CollectedTask } from '../normalize/extract.js';
import { Warehouse, stageTasks, emptySummary, addStats, mergeSummary, type LoadSummary } from './warehouse.js';
import { SqlRoute } from './sql-path.js';

export interface ArchiveLoadOptions {
  loadedAt?: Date;
  engines?: Engines | null;
  /** Use the SQL fast path for keyword results (default true). */
  sqlPath?: boolean;
  /** Tasks per JS-path batch (default 2000). */
  batchTasks?: number;
  /** Run id for lines that carry none (bare envelopes). */
  runId?: string;
  /** Bytes of one family's fast-path lines staged before DuckDB loads them (default 64 MiB); smaller keeps memory lower. */
  stageBytes?: number;
  /**
   * DuckDB threads while loading (default: the cores less one, at least one; 0 leaves the setting alone). The
   * load is a two-stage pipeline, JS reading and checking lines on one core while DuckDB loads the previous
   * stage: with a thread per core DuckDB's workers and the JS stage contend for the same cores, and on a busy
   * machine DuckDB's workers spend more time waiting for each other than they gain (measured here: 2 threads
   * took 1.6x the CPU time and 2x the wall time of 1 thread on a 2-core machine under load).
   */
  threads?: number;
}

export interface ArchiveLoadResult extends LoadSummary {
  files: ReadReport[];
  lines: number;
  /** Lines that were not JSON or held no envelope. */
  badLines: number;
  /** Tasks loaded by the SQL fast path and by the JS extractor. */
  sqlTasks: number;
  jsTasks: number;
  /**
   * Where the time went: `duckdbMs` DuckDB loading stages and batches, `waitMs` the JS stage (reading, checking,
   * extracting) waiting for it; the JS stage was busy for `totalMs - waitMs`, overlapping DuckDB.
   */
  timings: { totalMs: number; duckdbMs: number; waitMs: number };
}

/** Loads archive (or NDJSON response) files into the warehouse, in order. */
export async function loadArchiveFiles(wh: Warehouse, files: readonly string[], opts: ArchiveLoadOptions = {}): Promise<ArchiveLoadResult> {
  const loadedAt = opts.loadedAt ?? new Date();
  const engines = opts.engines ?? null;
  const engineNames = engines ? Object.values(engines) : [];
  const started = performance.now();
  const result: ArchiveLoadResult = { ...emptySummary(), files: [], lines: 0, badLines: 0, sqlTasks: 0, jsTasks: 0, timings: { totalMs: 0, duckdbMs: 0, waitMs: 0 } };
  const batchSize = opts.batchTasks ?? 2000;
  let batch: CollectedTask[] = [];
  const jsTaskIds = new Set<string>();
  /** Tasks of staged lines DuckDB refused, loaded by the JS extractor instead. */
  let fallbackTasks = 0;
  const tasksOfLine = (line: Buffer): CollectedTask[] | null => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.toString('utf8'));
    } catch {
      return null;
    }
    return isArchiveRecord(parsed)
      ? tasksOfRecord(parsed, engines)
      : isEnvelope(parsed) ? tasksOfEnvelope(parsed, { runId: opts.runId }, engines) : null;
  };
  /** Normalizes in JS now; the returned function loads the rows (later, in DuckDB's turn). */
  const stageJs = (tasks: CollectedTask[]): { summary: LoadSummary; apply: () => Promise<void> } => {
    const stats = new NormalizeStats();
    const staged = stageTasks(tasks, { runId: opts.runId ?? 'archive', loadedAt, engines: engineNames }, stats);
    const summary = emptySummary();
    addStats(summary, stats);
    for (const [name, rows] of staged.rows) summary.rows[name] = rows.length;
    return { summary, apply: () => wh.applyStaged(staged) };
  };
  const sql = opts.sqlPath === false ? null : new SqlRoute(wh, {
    loadedAt, runId: opts.runId, maxBytes: opts.stageBytes,
    fallback: async (lines) => {
      const tasks = lines.flatMap((l) => tasksOfLine(l) ?? []);
      const js = stageJs(tasks);
      await js.apply();
      result.jsTasks += tasks.length;
      fallbackTasks += js.summary.tasks;
      return js.summary;
    },
  });

  // DuckDB loads one batch while JS reads, checks and stages the next: every load goes through this chain, in
  // the order the batches were closed, so the order between copies of one task is kept. One load at a time may
  // be running while the next batch fills; closing another waits for it, which bounds memory and disk.
  let running: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  const waitForDuckdb = async () => {
    const t0 = performance.now();
    await running;
    result.timings.waitMs += performance.now() - t0;
  };
  const enqueue = async (load: () => Promise<void>) => {
    await waitForDuckdb();
    if (failure) throw failure;
    const t0 = performance.now();
    running = load().catch((err) => { failure = err; }).finally(() => { result.timings.duckdbMs += performance.now() - t0; });
  };
  const flushJs = async () => {
    if (!batch.length) return;
    const tasks = batch;
    batch = [];
    jsTaskIds.clear();
    const js = stageJs(tasks);
    await enqueue(async () => {
      await js.apply();
      mergeSummary(result, js.summary);
      result.jsTasks += tasks.length;
    });
  };
  const flushSql = async (onlyFull = false) => {
    if (!sql || !sql.pending) return;
    await enqueue(async () => {
      const before = fallbackTasks;
      const summary = await sql.flush(onlyFull);
      mergeSummary(result, summary);
      result.sqlTasks += summary.tasks - (fallbackTasks - before);
    });
  };

  const threads = opts.threads ?? Math.max(1, availableParallelism() - 1);
  let restoreThreads: string | null = null;
  try {
    if (threads > 0) {
      const cur = await wh.connection.runAndReadAll(`SELECT current_setting('threads')`);
      restoreThreads = String(cur.getRows()[0][0]);
      if (Number(restoreThreads) !== threads) await wh.connection.run(`SET threads = ${Math.floor(threads)}`);
      else restoreThreads = null;
    }
    for (const file of files) {
      const report: ReadReport = { file, lines: 0, droppedBytes: 0 };
      for await (const line of readLines(file, report)) {
        result.lines++;
        if (sql) {
          const routed = sql.offer(line);
          if (routed) {
            // Order matters only for the same task: if the JS batch holds it, load that batch first.
            if (routed.some((id) => jsTaskIds.has(id))) await flushJs();
            if (sql.full) await flushSql(true);
            continue;
          }
        }
        const tasks = tasksOfLine(line);
        if (!tasks) {
          result.badLines++;
          continue;
        }
        for (const t of tasks) {
          if (sql?.holds(t.task.id)) await flushSql();
          batch.push(t);
          jsTaskIds.add(t.task.id);
        }
        if (batch.length >= batchSize) await flushJs();
      }
      result.files.push(report);
    }
    // SQL-routed lines were offered in order relative to the JS batch only per task; loading the JS batch
    // after the SQL one is safe because a task in both was flushed when the second copy arrived.
    await flushSql();
    await flushJs();
    await waitForDuckdb();
    if (failure) throw failure;
  } finally {
    await running;
    await sql?.dispose();
    if (restoreThreads !== null) await wh.connection.run(`SET threads = ${Number(restoreThreads)}`);
  }
  result.timings.totalMs = performance.now() - started;
  return result;
}
