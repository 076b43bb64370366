/**
 * Shared set-up for end-to-end tests: a sandbox the test owns (so it can read postings and billing), a fresh data
 * folder, and the settings that point a run at both, for an in-process runJob or a child `seo-etl` process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, type Sandbox, type SandboxClock } from '../../src/sandbox/index.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const NIGHTLY = path.join(ROOT, 'pipelines', 'nightly.yaml');

export interface TestProject {
  sandbox: Sandbox;
  config: Config;
  dataDir: string;
  /** Overrides for runJob's configOverrides. */
  overrides: Record<string, unknown>;
  /** Environment for a child process or runJob: the sandbox URL and its credentials. */
  env: NodeJS.ProcessEnv;
  /** Stops the sandbox and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Fast settings: short completion delay, quick polls and callback waits, and the rate-limit window a tenth of a
 * minute on both sides, so tasks_ready's 20 calls a window pace at 300 ms, not 3 s.
 */
export const FAST = {
  sandbox: { completion_delay_ms: 30, rate_limit_window_ms: 6000 },
  rate_limit: { window_ms: 6000 },
  collect: { poll_min_ms: 20, poll_max_ms: 200, straggler_after_ms: 1500, ambiguous_grace_ms: 1500, drain_timeout_ms: 60_000 },
  api: { timeout_ms: 5000, retry_base_ms: 20 },
};

/**
 * The tests' runs use one DuckDB thread each (warehouse.threads): their warehouses are small, and on the suite's two
 * shared cores a second thread per instance cost some 13% of the suite's CPU without making a run faster.
 */
export const TEST_DUCKDB_THREADS = 1;

export async function startProject(extra: Record<string, unknown> = {}, opts: { clock?: SandboxClock } = {}): Promise<TestProject> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-e2e-'));
  // A test's own sandbox settings keep the fast window unless they set theirs.
  const sandboxExtra = { sandbox: { rate_limit_window_ms: FAST.sandbox.rate_limit_window_ms, ...(extra.sandbox as object | undefined) } };
  const sandboxConfig = loadConfig({ root: ROOT, overrides: { ...FAST, ...extra, ...(extra.sandbox ? sandboxExtra : {}) } });
  const sandbox = await startSandbox({ config: sandboxConfig, callbackTimeoutMs: 1000, ...(opts.clock ? { clock: opts.clock } : {}) });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SEO_ETL_API_BASE_URL: sandbox.url,
    SEO_ETL_LOGIN: sandboxConfig.sandbox.login,
    SEO_ETL_PASSWORD: sandboxConfig.sandbox.password,
    SEO_ETL_WAREHOUSE_DIR: dataDir,
    SEO_ETL_WAREHOUSE_THREADS: String(TEST_DUCKDB_THREADS),
  };
  const overrides = { ...FAST, ...extra, api: { ...FAST.api, base_url: sandbox.url }, warehouse: { dir: dataDir, threads: TEST_DUCKDB_THREADS } };
  // The data folder goes with the project: left behind, a suite's runs kept gigabytes in the temporary folder.
  const close = async () => {
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { sandbox, config: sandboxConfig, dataDir, overrides, env, close };
}

/** A stream that keeps what is written, for summaries and logs. */
export function collectStream(): Writable & { text(): string } {
  const chunks: string[] = [];
  const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { text(): string };
  w.text = () => chunks.join('');
  return w;
}

/** Runs one query on a warehouse file opened read-only. */
/** A DATE or TIMESTAMP read back from DuckDB as its UTC day, YYYY-MM-DD: days compare as text only in this form. */
export function isoDay(v: unknown): string {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) return v.slice(0, 10);
  throw new Error(`not a date: ${String(v)}`);
}

export async function queryFile(file: string, sql: string): Promise<Record<string, unknown>[]> {
  const i = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const c = await i.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    i.closeSync();
  }
}

/** A pipeline file holding `yaml`, in a folder of its own. */
export function pipelineFile(yaml: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pipe-'));
  const file = path.join(dir, 'p.yaml');
  writeFileSync(file, yaml);
  return file;
}
