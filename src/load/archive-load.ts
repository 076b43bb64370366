/**
 * Loading raw archive files (reprocess, ingest, the benchmark) through the nightly's own path: the load channel
 * (channel.ts) cuts the transactions and bounds what is held, and each commits with Warehouse.loadTasks, as the
 * writer does for every transaction of a night. Lines are streamed, so memory stays flat however large the
 * archive is; the next lines are read while DuckDB commits the transaction before, and transactions commit in
 * order, so a later line of a task replaces what an earlier one loaded. No ledger moves: an archive's tasks were
 * recorded by the runs that fetched them.
 */
import type { Engines } from '../config/index.js';
import { readLines, type ReadReport } from '../archive/reader.js';
import { isArchiveRecord, isEnvelope, tasksOfEnvelope, tasksOfRecord } from '../archive/records.js';
import type { CollectedTask } from '../normalize/extract.js';
import { LoadChannel } from './channel.js';
import { resultsOf } from './outcome.js';
import { Warehouse, emptySummary, mergeSummary, type LoadSummary } from './warehouse.js';

export interface ArchiveLoadOptions {
  loadedAt?: Date;
  engines?: Engines | null;
  /** Tasks per transaction at most (default 2000); the channel also ends one at its bytes of archive lines. */
  batchTasks?: number;
  /** Run id for lines that carry none (bare envelopes). */
  runId?: string;
}

export interface ArchiveLoadResult extends LoadSummary {
  files: ReadReport[];
  lines: number;
  /** Lines that were not JSON or held no envelope. */
  badLines: number;
  /** Where the time went: loading (normalize + append + commit), and reading waiting for room in the channel. */
  timings: { totalMs: number; loadMs: number; waitMs: number };
}

/** Loads archive (or NDJSON response) files into the warehouse, in order. */
export async function loadArchiveFiles(wh: Warehouse, files: readonly string[], opts: ArchiveLoadOptions = {}): Promise<ArchiveLoadResult> {
  const started = performance.now();
  const engines = opts.engines ?? null;
  const loadOpts = { runId: opts.runId ?? 'archive', loadedAt: opts.loadedAt ?? new Date(), engines: engines ? Object.values(engines) : [] };
  const result: ArchiveLoadResult = { ...emptySummary(), files: [], lines: 0, badLines: 0, timings: { totalMs: 0, loadMs: 0, waitMs: 0 } };
  const channel = new LoadChannel({
    maxCount: opts.batchTasks ?? 2000,
    commit: async (batch) => {
      const t1 = performance.now();
      mergeSummary(result, await wh.loadTasks(batch.flatMap((o) => [...resultsOf(o)]), loadOpts));
      result.timings.loadMs += performance.now() - t1;
    },
  });
  let failure: unknown;
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
        for (const t of tasks) {
          const t0 = performance.now();
          const { done } = await channel.admit({ kind: 'collected', results: [t] });
          result.timings.waitMs += performance.now() - t0;
          done.catch((err: unknown) => { failure ??= err; });
        }
        if (failure) throw failure;
      }
      result.files.push(report);
    }
  } finally {
    await channel.idle();
  }
  if (failure) throw failure;
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
