/**
 * Loading raw archive files (reprocess, ingest, benchmark): streamed line by line, so memory stays flat however
 * large the archive is, and loaded in batches with the same task-level replace as live loads. Later lines win
 * over earlier ones for the same task (a re-collection replaces what was collected before).
 *
 * Two routes, chosen per line (see sql-path.ts for why and when):
 * - lines of a result family the catalog can describe to DuckDB (keyword data, merchant, technologies, ...) whose
 *   keys and values a byte-level check proves regular go to the SQL fast path: staged to a file per family and
 *   parsed and flattened by DuckDB (read_json with the schema derived from the catalog), several times faster
 *   than JSON.parse + flatten + append in JS;
 * - everything else is parsed in JS and goes through the reference extractor (normalizeTask).
 * A test loads the same archive both ways and compares every table.
 *
 * It is a pipeline: JS reads, checks and stages lines while DuckDB loads the batches already closed, each in one
 * transaction, on two connections side by side (DuckDB runs one statement of ours on one core well, but not on
 * two: the big statements unnest from temp tables of one row group). A batch waits for any running load that
 * holds one of its tasks.
 */
import { availableParallelism } from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';
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
  /**
   * Bytes of one family's fast-path lines staged before DuckDB loads them (default 64 MiB). Smaller stages cost
   * more CPU (more statements, and more of the rows go through the WAL and a checkpoint instead of being written
   * once in full row groups: 16 MiB stages took about 1.4x the CPU time of 64 MiB ones).
   */
  stageBytes?: number;
  /**
   * The most bytes of stages loading at once (default one stage's size). The peak memory follows it (DuckDB
   * takes about 5 bytes per staged byte), whatever the archive's size. Measured on 2 cores under load, two
   * 32 MiB stages side by side (the same bound) were slower than one 64 MiB stage at a time (median ratio to
   * DuckDB's read_json 0.87 against 0.71 in the same rounds); two 64 MiB ones (twice the memory bound) had
   * 0.72 against 0.87 in one set of rounds, not clearly better (docs/performance.md).
   */
  inFlightBytes?: number;
  /**
   * DuckDB threads while loading (default: the cores less one, at least one; 0 leaves the setting alone),
   * restored after. The JS stage keeps a core busy; and DuckDB's workers gain nothing on our statements (they
   * unnest from temp tables of one row group, which one thread scans) while costing CPU time waiting for each
   * other (measured on 2 cores under load: 2 threads took 1.6x the CPU time and up to 2x the wall time of 1).
   */
  threads?: number;
  /**
   * DuckDB connections loading batches side by side (default 2): the parallelism DuckDB's threads do not give
   * (measured on 2 cores: median ratio to DuckDB's own read_json 0.90 with 2, 1.11 with 1).
   */
  lanes?: number;
}

const NONE: ReadonlySet<string> = new Set();
const DEFAULT_STAGE_BYTES = 64 * 1024 * 1024;

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (big.has(x)) return true;
  return false;
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
  const stageBytes = opts.stageBytes ?? DEFAULT_STAGE_BYTES;
  let batch: CollectedTask[] = [];
  const jsTaskIds = new Set<string>();
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
  const stageJs = (tasks: CollectedTask[]): { summary: LoadSummary; apply: (conn: DuckDBConnection) => Promise<void> } => {
    const stats = new NormalizeStats();
    const staged = stageTasks(tasks, { runId: opts.runId ?? 'archive', loadedAt, engines: engineNames }, stats);
    const summary = emptySummary();
    addStats(summary, stats);
    for (const [name, rows] of staged.rows) summary.rows[name] = rows.length;
    return { summary, apply: (conn) => wh.applyStaged(staged, undefined, conn) };
  };
  const sql = opts.sqlPath === false ? null : new SqlRoute(wh, {
    loadedAt, runId: opts.runId, maxBytes: stageBytes,
    fallback: async (lines, conn) => {
      const tasks = lines.flatMap((l) => tasksOfLine(l) ?? []);
      const js = stageJs(tasks);
      await js.apply(conn);
      result.jsTasks += tasks.length;
      return js.summary;
    },
  });

  // DuckDB loads closed batches while JS reads, checks and stages the next, on up to `lanes` connections side by
  // side. A batch holding a task that a running load holds waits for it, so the copies of one task are applied in
  // the order they were read; at most `lanes` loads run while the next batch fills, which bounds memory and disk.
  // DuckDB's memory for a load grows with its stage (about 5 bytes per staged byte here): loads run side by side
  // only while their stages add up to at most `inFlightBytes` (default: one stage's size), so the peak is bounded
  // however large the archive is (the tail of small family stages loads in parallel; full stages one at a time).
  const laneCount = Math.max(1, opts.lanes ?? 2);
  const budget = Math.max(stageBytes, opts.inFlightBytes ?? stageBytes);
  const lanes: { conn: DuckDBConnection; running: Promise<void> | null; ids: ReadonlySet<string>; bytes: number }[] = [];
  let failure: unknown = null;
  const enqueue = async (ids: ReadonlySet<string>, bytes: number, load: (conn: DuckDBConnection) => Promise<void>) => {
    const t0 = performance.now();
    for (;;) {
      if (failure) break;
      const holding = lanes.filter((l) => l.running && overlaps(l.ids, ids));
      if (holding.length) { await Promise.all(holding.map((l) => l.running)); continue; }
      const busy = lanes.filter((l) => l.running);
      const inFlight = busy.reduce((n, l) => n + l.bytes, 0);
      let lane = lanes.find((l) => !l.running);
      if (!lane && lanes.length < laneCount) {
        lane = { conn: lanes.length ? await wh.connect() : wh.connection, running: null, ids: NONE, bytes: 0 };
        lanes.push(lane);
      }
      if (!lane || (busy.length > 0 && inFlight + bytes > budget)) { await Promise.race(busy.map((l) => l.running)); continue; }
      const chosen = lane;
      const started = performance.now();
      chosen.ids = ids;
      chosen.bytes = bytes;
      chosen.running = load(chosen.conn)
        .catch((err) => { failure ??= err; })
        .finally(() => { chosen.running = null; chosen.ids = NONE; chosen.bytes = 0; result.timings.duckdbMs += performance.now() - started; });
      break;
    }
    result.timings.waitMs += performance.now() - t0;
    if (failure) throw failure;
  };
  const drain = async () => {
    const t0 = performance.now();
    while (lanes.some((l) => l.running)) await Promise.all(lanes.map((l) => l.running));
    result.timings.waitMs += performance.now() - t0;
  };
  const flushJs = async () => {
    if (!batch.length) return;
    const tasks = batch;
    batch = [];
    const ids = new Set(jsTaskIds);
    jsTaskIds.clear();
    const js = stageJs(tasks);
    await enqueue(ids, 0, async (conn) => {
      await js.apply(conn);
      mergeSummary(result, js.summary);
      result.jsTasks += tasks.length;
    });
  };
  const flushSql = async (onlyFull = false) => {
    if (!sql || !sql.pending) return;
    for (const stage of sql.take(onlyFull)) {
      if (process.env.SEO_ETL_TRACE) process.stderr.write(`@${performance.now().toFixed(0)} stage closed ${stage.bytes} bytes\n`);
      await enqueue(stage.ids, stage.bytes, async (conn) => {
        const { summary, fallback } = await sql.load(stage, conn);
        mergeSummary(result, summary);
        if (!fallback) result.sqlTasks += summary.tasks;
      });
    }
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
    await drain();
    if (failure) throw failure;
  } finally {
    await drain();
    for (const l of lanes) if (l.conn !== wh.connection) l.conn.closeSync();
    await sql?.dispose();
    if (restoreThreads !== null) await wh.connection.run(`SET threads = ${Number(restoreThreads)}`);
  }
  result.timings.totalMs = performance.now() - started;
  return result;
}
