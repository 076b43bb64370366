/**
 * Loading raw archive files (reprocess, ingest, the benchmark) through the nightly's own path: the load channel
 * (channel.ts) cuts the transactions and bounds what is held, and each commits with Warehouse.loadPrepared, the
 * task-level replace of every transaction of a night. Lines are streamed, so memory stays flat however large the
 * archive is; the next lines are read while DuckDB commits the transaction before, and transactions commit in
 * order, so a later line of a task replaces what an earlier one loaded. No ledger moves: an archive's tasks were
 * recorded by the runs that fetched them. Lines are parsed, normalized and encoded on a worker thread (prepare.ts)
 * while the main thread appends the lines before them.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Engines } from '../config/index.js';
import { readLines, readProblem, type ReadReport } from '../archive/reader.js';
import type { ArchiveProblem } from '../archive/records.js';
import { LoadChannel } from './channel.js';
import { inThread, onWorker, type Preparer } from './prepare-pool.js';
import type { PreparedLoad } from './prepare.js';
import { duckdbThreads } from './threads.js';
import { Warehouse, emptySummary, mergeSummary, type LoadSummary } from './warehouse.js';

export interface ArchiveLoadOptions {
  loadedAt?: Date;
  engines?: Engines | null;
  /** Archive lines per transaction at most (default 2000); the channel also ends one at its bytes of lines. */
  batchTasks?: number;
  /** Run id for lines that carry none (bare envelopes). */
  runId?: string;
  /** Whether lines are prepared on a worker thread; by default when it pays (workerPays). */
  worker?: boolean;
}

export interface ArchiveLoadResult extends LoadSummary {
  files: ReadReport[];
  lines: number;
  /**
   * The lines and tasks refused, by file and line (archive order): not JSON or cut short, no envelope, a task without
   * an id or with a `result` that is no list, a task whose rows could not be made. Nothing of them is loaded.
   */
  problems: ArchiveProblem[];
  /** Where the time went: loading (append + commit), and reading waiting for room in the channel. */
  timings: { totalMs: number; loadMs: number; waitMs: number };
}

/** Lines are sent to be prepared in groups of this many bytes at most (a line larger goes alone). */
const JOB_BYTES = 2 ** 20;
/** Below this many bytes of files a worker thread costs more to start than it saves. */
export const WORKER_MIN_BYTES = 4 * 2 ** 20;

/** Loads archive (or NDJSON response) files into the warehouse, in order. */
export async function loadArchiveFiles(wh: Warehouse, files: readonly string[], opts: ArchiveLoadOptions = {}): Promise<ArchiveLoadResult> {
  const started = performance.now();
  const batchLines = opts.batchTasks ?? 2000;
  const prepOpts = { engines: opts.engines ?? null, runId: opts.runId, loadedAt: opts.loadedAt ?? new Date(), layouts: await wh.layouts() };
  const result: ArchiveLoadResult = { ...emptySummary(), files: [], lines: 0, problems: [], timings: { totalMs: 0, loadMs: 0, waitMs: 0 } };
  const channel = new LoadChannel({
    maxCount: batchLines,
    // A file ends with idle(), never with quiet: a pause in reading (a busy machine, a slow disk) does not cut a
    // transaction short, so an archive loads in the same transactions on every machine.
    quietMs: Infinity,
    commit: async (batch) => {
      const loads: PreparedLoad[] = [];
      for (const o of batch) if (o.kind === 'archived') loads.push(await o.load);
      const t1 = performance.now();
      for (const run of disjointRuns(loads)) {
        mergeSummary(result, await wh.loadPrepared(run));
      }
      result.timings.loadMs += performance.now() - t1;
    },
  });
  const preparer: Preparer = opts.worker ?? workerPays(files) ? onWorker() : inThread;
  let failure: unknown;
  let job: Buffer[] = [];
  let jobBytes = 0;
  // Where the job's lines are: its file (a job never spans two) and each line's number in it.
  let jobFile = '';
  let jobLines: number[] = [];
  // A group of lines goes to be prepared at once, and into the channel, which holds it until its transaction.
  const send = async () => {
    if (!job.length) return;
    const text = new Uint8Array(jobBytes + job.length);
    let at = 0;
    for (const line of job) {
      text.set(line, at);
      at += line.length;
      text[at++] = 10;
    }
    const lines = job.length;
    const bytes = text.length; // the worker takes the buffer over
    const file = jobFile;
    const numbers = jobLines;
    job = [];
    jobBytes = 0;
    jobLines = [];
    const load = preparer.prepare(text, prepOpts).then((p) => {
      for (const { at, task, reason } of p.problems) result.problems.push({ file, line: numbers[at], task, reason });
      return p;
    });
    load.catch(() => undefined); // its transaction's commit reports the failure
    const t0 = performance.now();
    const { done } = await channel.admit({ kind: 'archived', lines, bytes, load });
    result.timings.waitMs += performance.now() - t0;
    done.catch((err: unknown) => { failure ??= err; });
  };
  try {
    for (const file of files) {
      const report: ReadReport = { file, lines: 0, droppedBytes: 0 };
      jobFile = file;
      for await (const line of readLines(file, report)) {
        result.lines++;
        if (job.length && (jobBytes + line.length > JOB_BYTES || job.length >= batchLines)) await send();
        job.push(line);
        jobLines.push(report.at!);
        jobBytes += line.length;
        if (failure) throw failure;
      }
      await send();
      result.files.push(report);
      const unread = readProblem(report);
      if (unread) result.problems.push(unread);
    }
  } finally {
    await channel.idle();
    await preparer.close();
  }
  if (failure) throw failure;
  const order = new Map(files.map((f, i) => [f, i]));
  result.problems.sort((a, b) => order.get(a.file)! - order.get(b.file)! || a.line - b.line);
  result.timings.totalMs = performance.now() - started;
  return result;
}

/** The loads cut where one names a task an earlier one of its run does (a later line replaces an earlier one's rows). */
function disjointRuns(loads: readonly PreparedLoad[]): PreparedLoad[][] {
  const runs: PreparedLoad[][] = [];
  let seen = new Set<string>();
  let run: PreparedLoad[] = [];
  for (const p of loads) {
    if (run.length && p.taskKeys.some((k) => seen.has(k))) {
      runs.push(run);
      run = [];
      seen = new Set();
    }
    run.push(p);
    for (const k of p.taskKeys) seen.add(k);
  }
  if (run.length) runs.push(run);
  return runs;
}

/**
 * Whether a worker thread is worth starting: the files are large enough, there is a second core, and the
 * configuration did not ask for one thread (`warehouse.threads: 1` leaves the other cores to others).
 */
export function workerPays(files: readonly string[]): boolean {
  if (availableParallelism() < 2 || duckdbThreads() === 1) return false;
  let n = 0;
  for (const f of files) n += statSync(f).size;
  return n > WORKER_MIN_BYTES;
}
