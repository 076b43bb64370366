/**
 * Shared by the reliability suite: the crash pipeline, a child `seo-etl` process that can be killed at a chosen
 * moment (or when it prints a marker), the FAST settings as environment variables, and read-outs of a finished
 * warehouse that do not depend on the service's task ids or the clock (so two runs can be compared).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, constants as zc } from 'node:zlib';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ROOT, collectStream, queryFile, startProject, type TestProject } from '../helpers/project.js';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { NothingToResume } from '../../src/run/resume.js';
import type { PauseHook } from '../../src/pause.js';

export const CRASH_PIPELINE = path.join(ROOT, 'test', 'reliability', 'pipelines', 'crash.yaml');
export const RUN_DATE = '2024-05-01';
/** The compiled CLI; SEO_ETL_TEST_CLI points at a private build (so another checkout's rebuild cannot race it). */
export const CLI = process.env.SEO_ETL_TEST_CLI ?? path.join(ROOT, 'bin', 'seo-etl.js');

/**
 * Sandbox settings for the suite: no re-parses (they depend on timing) and no account limit in the way. The window is
 * the children's (SEO_ETL_RATE_LIMIT_WINDOW_MS below): endpoint limits such as tasks_ready's 20 are counted over it
 * on both sides.
 */
export const SANDBOX_EXTRA = { sandbox: { reparse_share: 0, rate_limit_calls: 1_000_000, rate_limit_window_ms: 1000 } };

/** FAST (test/helpers/project.ts) for a child process, as SEO_ETL_<SECTION>_<KEY> variables. */
export function childEnv(p: TestProject, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...p.env,
    // No account limit in the way; a short window, so a rate-limit answer pauses for 100 ms (window / 10).
    SEO_ETL_RATE_LIMIT_CALLS: '1000000',
    SEO_ETL_RATE_LIMIT_WINDOW_MS: '1000',
    SEO_ETL_COLLECT_POLL_MIN_MS: '20',
    SEO_ETL_COLLECT_POLL_MAX_MS: '200',
    SEO_ETL_COLLECT_STRAGGLER_AFTER_MS: '500',
    SEO_ETL_COLLECT_AMBIGUOUS_GRACE_MS: '500',
    SEO_ETL_COLLECT_DRAIN_TIMEOUT_MS: '60000',
    SEO_ETL_API_TIMEOUT_MS: '5000',
    SEO_ETL_API_RETRY_BASE_MS: '20',
    // Small batches: more POSTs, so more moments between "sent" and "recorded" for a kill to land in.
    SEO_ETL_API_TASKS_PER_POST: '3',
    SEO_ETL_LOG_LEVEL: 'info',
    // The suite reads the child's log records from stderr (logLines): JSON, not the lines for people.
    SEO_ETL_LOG_FORMAT: 'json',
    ...extra,
  };
}

/** Closes a project's sandbox and removes its data folder. */
export async function closeProject(p: TestProject | undefined): Promise<void> {
  if (!p) return;
  await p.close();
  rmSync(p.dataDir, { recursive: true, force: true });
}

/** childEnv's settings as runJob overrides, for runs in the test's own process. */
export function inProcessOverrides(p: TestProject, extra: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  const base: Record<string, Record<string, unknown>> = {
    ...p.overrides as Record<string, Record<string, unknown>>,
    rate_limit: { calls: 1_000_000, window_ms: 1000 },
  };
  base.collect = { ...base.collect, straggler_after_ms: 500, ambiguous_grace_ms: 500 };
  base.api = { ...base.api, tasks_per_post: 3 };
  for (const [k, v] of Object.entries(extra)) base[k] = { ...(base[k] ?? {}), ...v };
  return base;
}

/** Runs the crash pipeline in this process (quicker than a child where nothing is killed). */
export async function runInProcess(p: TestProject, extra: Record<string, Record<string, unknown>> = {}, pipeline = CRASH_PIPELINE, pause?: PauseHook): Promise<RunJobResult & { out: string; log: string }> {
  const out = collectStream();
  const log = collectStream();
  const r = await runJob({ root: ROOT, pipelineFile: pipeline, runDate: RUN_DATE, env: p.env, configOverrides: inProcessOverrides(p, extra), progress: false, out, logDestination: log, stderrLog: false, pause });
  return { ...r, out: out.text(), log: log.text() };
}

/**
 * Plain `seo-etl resume` (no pipeline, no day) in this process: what an operator runs after a crash. Resolves to
 * the message instead when there is nothing to resume (the CLI prints it and exits 0).
 */
export async function resumeInProcess(p: TestProject, extra: Record<string, Record<string, unknown>> = {}): Promise<(RunJobResult & { out: string; log: string }) | { nothing: string }> {
  const out = collectStream();
  const log = collectStream();
  try {
    const r = await runJob({ root: ROOT, resume: true, env: p.env, configOverrides: inProcessOverrides(p, extra), progress: false, out, logDestination: log, stderrLog: false });
    return { ...r, out: out.text(), log: log.text() };
  } catch (err) {
    if (err instanceof NothingToResume) return { nothing: err.message };
    throw err;
  }
}

/** Task ids of every answer in the raw archive (torn files read up to their last complete line). */
export function archivedTaskIds(dataDir: string): Set<string> {
  const ids = new Set<string>();
  const raw = path.join(dataDir, 'raw');
  if (!existsSync(raw)) return ids;
  for (const day of readdirSync(raw)) {
    for (const f of readdirSync(path.join(raw, day))) {
      let text = '';
      try {
        text = gunzipSync(readFileSync(path.join(raw, day, f)), { finishFlush: zc.Z_SYNC_FLUSH }).toString('utf8');
      } catch {
        continue; // created by a killed process before its first line
      }
      for (const line of text.split('\n')) {
        try {
          for (const t of JSON.parse(line).response?.tasks ?? []) if (typeof t?.id === 'string') ids.add(t.id);
        } catch {
          /* a torn last line */
        }
      }
    }
  }
  return ids;
}

export interface Reference {
  tables: Record<string, string[]>;
  ledger: Awaited<ReturnType<typeof ledgerByKey>>;
  postings: number;
  billed: number;
}

/**
 * What an undisturbed run of the crash pipeline loads (in this process, against a fresh sandbox). Several test
 * files need it; it is computed once per version of the code and day and kept in the temp folder (the key hashes
 * src/, the crash pipeline, this file and today's date: the sandbox's answers follow the day, so a reference kept
 * from another day, or from before midnight, would not match).
 */
export async function referenceRun(): Promise<Reference> {
  const hash = createHash('sha256');
  hash.update(new Date().toISOString().slice(0, 10));
  const files = [CRASH_PIPELINE, fileURLToPath(import.meta.url), ...sourceFiles(path.join(ROOT, 'src'))];
  for (const f of files) hash.update(f).update(readFileSync(f));
  const cache = path.join(tmpdir(), `seo-etl-reliability-reference-${hash.digest('hex').slice(0, 16)}.json`);
  if (existsSync(cache)) {
    try {
      return JSON.parse(readFileSync(cache, 'utf8')) as Reference;
    } catch {
      /* a torn write by a concurrent run: compute it again */
    }
  }
  // The files that need it start side by side: one computes it, the others wait for its result.
  const lock = `${cache}.lock`;
  let fd: number | undefined;
  try {
    fd = openSync(lock, 'wx');
    writeFileSync(fd, String(process.pid));
  } catch {
    const given = await waitForFile(cache, lock);
    if (given) return given;
  }
  try {
    const ref = await computeReference();
    const tmp = `${cache}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(ref));
    renameSync(tmp, cache);
    return ref;
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
}

/** The reference another process is computing, once written; undefined if it gave up or is gone. */
async function waitForFile(cache: string, lock: string): Promise<Reference | undefined> {
  for (;;) {
    if (existsSync(cache)) {
      try {
        return JSON.parse(readFileSync(cache, 'utf8')) as Reference;
      } catch {
        /* a torn write by a concurrent run: compute it again */
        return undefined;
      }
    }
    let holder: number;
    try {
      holder = Number(readFileSync(lock, 'utf8'));
    } catch {
      return existsSync(cache) ? waitForFile(cache, lock) : undefined; // released without a result
    }
    // A lock whose holder was killed (an interrupted test run) is not waited on; nor is one still empty.
    if (!Number.isInteger(holder) || holder <= 0) return undefined;
    if (!alive(holder)) {
      rmSync(lock, { force: true });
      return undefined;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])).sort();
}

async function computeReference(): Promise<Reference> {
  const p = await startProject(SANDBOX_EXTRA);
  try {
    const r = await runInProcess(p);
    if (r.exitCode !== 0) throw new Error(`the reference run failed (exit ${r.exitCode}):\n${r.out}\n${r.log.slice(-3000)}`);
    const published = path.join(p.dataDir, 'warehouse.duckdb');
    return { tables: await tableSnapshot(published), ledger: await ledgerByKey(published), postings: p.sandbox.controls.postings().length, billed: p.sandbox.controls.billed() };
  } finally {
    await closeProject(p);
  }
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Whether this helper killed it. */
  killed: boolean;
}

export interface RunCliOptions {
  env: NodeJS.ProcessEnv;
  /** SIGKILL this long after spawning (if still running). */
  killAfterMs?: number;
  /** SIGKILL `ms` after the output first contains `text` (if still running). */
  killAfterMarker?: { text: string; ms: number };
  /** SIGKILL as soon as stderr or stdout contains this text (after `beforeKill`, if given). */
  killOnMarker?: string;
  beforeKill?: () => Promise<void>;
  /** A hang guard: the child is killed and the promise rejects after this long, CHILD_HANG_MS at least. */
  timeoutMs?: number;
  /** Working directory of the child (default: this checkout). */
  cwd?: string;
}

/**
 * The least time a child may take before it counts as hung: on 2 cores beside another heavy process, `plan` alone
 * took over 30 s (its callers' own limits, 30-180 s, were a speed check there). Below the tests' 300 s, so the
 * failure names the command.
 */
export const CHILD_HANG_MS = 240_000;

/** Runs `seo-etl <args>` as a child process. */
export function runCli(args: string[], opts: RunCliOptions): Promise<ChildResult> {
  const hangMs = Math.max(opts.timeoutMs ?? 0, CHILD_HANG_MS);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? ROOT, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let marked = false;
    let markerTimer: NodeJS.Timeout | undefined;
    const kill = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const watch = (chunk: Buffer, into: 'out' | 'err') => {
      const text = chunk.toString('utf8');
      if (into === 'out') stdout += text;
      else stderr += text;
      if (opts.killAfterMarker && !markerTimer && (stdout + stderr).includes(opts.killAfterMarker.text)) {
        markerTimer = setTimeout(kill, opts.killAfterMarker.ms);
      }
      if (opts.killOnMarker && !marked && (stdout + stderr).includes(opts.killOnMarker)) {
        marked = true;
        if (opts.beforeKill) opts.beforeKill().then(kill, kill);
        else kill();
      }
    };
    child.stdout.on('data', (c: Buffer) => watch(c, 'out'));
    child.stderr.on('data', (c: Buffer) => watch(c, 'err'));
    const timer = opts.killAfterMs !== undefined ? setTimeout(kill, opts.killAfterMs) : undefined;
    const hard = setTimeout(() => {
      kill();
      reject(new Error(`seo-etl ${args.join(' ')} did not finish within ${hangMs} ms\n${stderr.slice(-3000)}`));
    }, hangMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(markerTimer);
      clearTimeout(hard);
      resolve({ code, signal, stdout, stderr, killed });
    });
  });
}

/** `seo-etl run <crash pipeline> --run-date RUN_DATE --no-progress`. */
export function runCrashPipeline(opts: RunCliOptions, pipeline = CRASH_PIPELINE): Promise<ChildResult> {
  return runCli(['run', pipeline, '--run-date', RUN_DATE, '--no-progress'], opts);
}

/** Columns that differ between two runs of the same tasks: lineage, the service's ids and the clock. */
const VOLATILE = new Set(['datetime', 'time_seconds', 'path', 'pingback_url', 'postback_url']);

/**
 * Every result table of a warehouse as a sorted list of rows, each row with its task's key (from the ledger) in
 * place of the service's task id and without the columns that differ between runs. Two runs of the same
 * pipeline and day give equal snapshots; a row loaded twice or missing shows as a difference.
 */
export async function tableSnapshot(file: string): Promise<Record<string, string[]>> {
  return withDb(file, (query) => snapshotOf(query));
}

export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** Opens a warehouse file read-only once for several queries. */
export async function withDb<T>(file: string, fn: (query: Query) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return await fn(async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** tableSnapshot on a database already open (withDb). */
export async function snapshotOf(queryFile: Query): Promise<Record<string, string[]>> {
  const cols = await queryFile(`SELECT table_name AS t, column_name AS c FROM information_schema.columns
    WHERE table_schema = 'main' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')
      AND table_name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY table_name, ordinal_position`);
  const byTable = new Map<string, string[]>();
  for (const r of cols) byTable.set(String(r.t), [...(byTable.get(String(r.t)) ?? []), String(r.c)]);
  const out: Record<string, string[]> = {};
  for (const [t, cs] of byTable) {
    const kept = cs.filter((c) => !c.startsWith('_') && !VOLATILE.has(c)).map((c) => `, CAST(x."${c}" AS VARCHAR) AS "${c}"`);
    const idx = cs.includes('_list_idx') ? ', x._list_idx AS list_idx' : '';
    const rows = await queryFile(`SELECT k.task_key AS task${idx}${kept.join('')}
      FROM "${t}" x LEFT JOIN (SELECT DISTINCT service_id, task_key FROM _tasks WHERE service_id IS NOT NULL) k ON k.service_id = x._task_id`);
    out[t] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** The ledger's tasks by key: what a finished run must agree on whatever happened during it. */
export async function ledgerByKey(file: string): Promise<Record<string, { step: string; state: string; cost: number | null; error_code: number | null }>> {
  return ledgerOf((sql) => queryFile(file, sql));
}

/** ledgerByKey on a database already open (withDb), so several read-outs share one open. */
export async function ledgerOf(query: Query): Promise<Awaited<ReturnType<typeof ledgerByKey>>> {
  const rows = await query(`SELECT task_key, step, state, cost, error_code FROM _tasks ORDER BY task_key`);
  return Object.fromEntries(rows.map((r) => [String(r.task_key), { step: String(r.step), state: String(r.state), cost: r.cost === null ? null : Number(r.cost), error_code: r.error_code === null ? null : Number(r.error_code) }]));
}

/** Keys whose ledger entry differs between two read-outs, with both sides: empty when they agree. */
export function ledgerDiff(got: Awaited<ReturnType<typeof ledgerByKey>>, want: Awaited<ReturnType<typeof ledgerByKey>>): string[] {
  const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
  return [...keys].filter((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k])).map((k) => `${k}: got ${JSON.stringify(got[k])}, want ${JSON.stringify(want[k])}`);
}

/** Tags accepted more than once by the sandbox: must be empty (a tag names one planned task). */
export function tagsPostedTwice(p: TestProject): string[] {
  const seen = new Map<string, number>();
  for (const x of p.sandbox.controls.postings()) if (x.tag) seen.set(x.tag, (seen.get(x.tag) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([t]) => t);
}

/** A small seeded generator for the crash moments (mulberry32). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What explains a failed child run, for an assertion message: its errors and task failures, then how it finished.
 * The tail of stderr is mostly retry warnings and rarely names the task that failed.
 */
export function failureDigest(stderr: string, max = 6000): string {
  const keep = stderr.split('\n').filter((line) => {
    if (!line.startsWith('{')) return line.trim() !== '';
    const [l] = logLines(line);
    return !l || (l.level as number) >= 50 || /fail|finished/i.test(String(l.msg));
  });
  return keep.join('\n').slice(-max);
}

/** Log lines of a child (pino JSON on stderr), parsed; other lines are skipped. */
export function logLines(stderr: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      /* a torn last line of a killed process */
    }
  }
  return out;
}
