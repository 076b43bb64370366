/**
 * A rank-tracking history for the report and alert tests: the rank-tracking example (plus an `alerts:` section)
 * run against a sandbox the test owns on fixed days, the sandbox's clock set to each run's day (never the real date).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { loadConfig } from '../../src/config/index.js';
import { startSandbox, systemClock, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, ROOT, collectStream } from '../helpers/project.js';
import type { PauseHook } from '../../src/pause.js';

export const EXAMPLE = path.join(ROOT, 'pipelines', 'examples', 'rank-tracking.yaml');

const pipelineDirs: string[] = [];

/** Removes the folders rankTrackingPipeline made. */
export function removePipelines(): void {
  while (pipelineDirs.length) rmSync(pipelineDirs.pop()!, { recursive: true, force: true });
}

/** The example with its keyword file made absolute and `extra` appended (an alerts: section). */
export function rankTrackingPipeline(extra = ''): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-rank-pipe-'));
  pipelineDirs.push(dir);
  const text = readFileSync(EXAMPLE, 'utf8').replace('../../data/inputs/rank-keywords.txt', path.join(ROOT, 'data', 'inputs', 'rank-keywords.txt'));
  const file = path.join(dir, 'rank-tracking.yaml');
  writeFileSync(file, `${text}\n${extra}`);
  return file;
}

export interface History {
  sandbox: Sandbox;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  overrides: Record<string, unknown>;
  /** Runs (or resumes) the pipeline for a day, the sandbox's clock at noon UTC of that day. */
  run(runDate: string, o?: { resume?: boolean; out?: NodeJS.WritableStream; pause?: PauseHook }): Promise<RunJobResult>;
  close(): Promise<void>;
}

export async function startHistory(pipelineFile: string, o: { env?: NodeJS.ProcessEnv; overrides?: Record<string, unknown> } = {}): Promise<History> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-report-'));
  // Real time passes (completion delays), from an offset set for each run's day.
  const clock = systemClock();
  let offset = 0;
  const config = loadConfig({ root: ROOT, overrides: { ...FAST } });
  const sandbox = await startSandbox({ config, clock, callbackTimeoutMs: 1000 });
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.env, SEO_ETL_API_BASE_URL: sandbox.url, SEO_ETL_LOGIN: config.sandbox.login, SEO_ETL_PASSWORD: config.sandbox.password, SEO_ETL_WAREHOUSE_DIR: dataDir };
  const overrides = { ...FAST, ...o.overrides, api: { ...FAST.api, base_url: sandbox.url }, warehouse: { dir: dataDir } };
  return {
    sandbox, dataDir, env, overrides,
    run: (runDate, r = {}) => {
      const target = Date.parse(`${runDate}T12:00:00Z`) - Date.now();
      clock.advance(target - offset);
      offset = target;
      return runJob({ root: ROOT, pipelineFile: pipelineFile, runDate: r.resume ? undefined : runDate, resume: r.resume, env, configOverrides: overrides, progress: false, out: r.out ?? collectStream(), logDestination: collectStream(), stderrLog: false, pause: r.pause });
    },
    close: () => sandbox.close(),
  };
}
