/**
 * Loading raw archive files (reprocess, ingest, the benchmark) through the nightly's own path (Warehouse.loadTasks,
 * as the writer calls it for every batch of a night), in batches. Lines are streamed, so memory stays flat however
 * large the archive is; the next batch is read while DuckDB commits the one before, and batches load in order, so
 * a later line of a task replaces what an earlier one loaded.
 */
import type { Engines } from '../config/index.js';
import { readLines, type ReadReport } from '../archive/reader.js';
import { isArchiveRecord, isEnvelope, tasksOfEnvelope, tasksOfRecord } from '../archive/records.js';
import type { CollectedTask } from '../normalize/extract.js';
import { batchFull } from '../normalize/batch.js';
import { Warehouse, emptySummary, mergeSummary, type LoadSummary } from './warehouse.js';

export interface ArchiveLoadOptions {
  loadedAt?: Date;
  engines?: Engines | null;
  /** Tasks per batch at most (default 2000); a batch also ends at LOAD_BYTES of archive lines. */
  batchTasks?: number;
  /** Run id for lines that carry none (bare envelopes). */
  runId?: string;
}

export interface ArchiveLoadResult extends LoadSummary {
  files: ReadReport[];
  lines: number;
  /** Lines that were not JSON or held no envelope. */
  badLines: number;
  /** Where the time went: loading batches (normalize + append + commit), and reading the next batch waiting for it. */
  timings: { totalMs: number; loadMs: number; waitMs: number };
}

/** Loads archive (or NDJSON response) files into the warehouse, in order. */
export async function loadArchiveFiles(wh: Warehouse, files: readonly string[], opts: ArchiveLoadOptions = {}): Promise<ArchiveLoadResult> {
  const started = performance.now();
  const engines = opts.engines ?? null;
  const loadOpts = { runId: opts.runId ?? 'archive', loadedAt: opts.loadedAt ?? new Date(), engines: engines ? Object.values(engines) : [] };
  const batchSize = opts.batchTasks ?? 2000;
  const result: ArchiveLoadResult = { ...emptySummary(), files: [], lines: 0, badLines: 0, timings: { totalMs: 0, loadMs: 0, waitMs: 0 } };
  let batch: CollectedTask[] = [];
  // One load in flight while the next batch is normalized: DuckDB works on its own threads meanwhile.
  let loading: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (!batch.length) return;
    const tasks = batch;
    batch = [];
    const t0 = performance.now();
    await loading;
    result.timings.waitMs += performance.now() - t0;
    loading = (async () => {
      const t1 = performance.now();
      mergeSummary(result, await wh.loadTasks(tasks, loadOpts));
      result.timings.loadMs += performance.now() - t1;
    })();
  };
  try {
    for (const file of files) {
      const report: ReadReport = { file, lines: 0, droppedBytes: 0 };
      for await (const line of readLines(file, report)) {
        result.lines++;
        const tasks = tasksOfLine(line, engines, opts.runId);
        if (!tasks) {
          result.badLines++;
          continue;
        }
        for (const t of tasks) batch.push(t);
        if (batchFull(batch, batchSize)) await flush();
      }
      result.files.push(report);
    }
    await flush();
  } finally {
    await loading;
  }
  result.timings.totalMs = performance.now() - started;
  return result;
}

function tasksOfLine(line: Buffer, engines: Engines | null, runId: string | undefined): CollectedTask[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.toString('utf8'));
  } catch {
    return null;
  }
  const tasks = isArchiveRecord(parsed) ? tasksOfRecord(parsed, engines) : isEnvelope(parsed) ? tasksOfEnvelope(parsed, { runId }, engines) : null;
  // The line's size, shared out among its tasks, as a fetched answer's (TaskOutcome.bytes).
  if (tasks) for (const t of tasks) t.bytes = Math.ceil(line.length / tasks.length);
  return tasks;
}
