/** `run`, `resume`, `plan` and `status`: flags in, one entry point each, an exit code out. */
import path from 'node:path';
import { accountLines } from '../check/index.js';
import { existsSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig } from '../config/index.js';
import { Ledger, readRunLock, type RunSummary } from '../ledger/index.js';
import { pidAlive } from '../ledger/lock.js';
import { type Schedule } from '../pipeline/plan.js';
import { estimatePlan, formatPlan, formatPlanJson, loadPipeline, pipelineWarnings, planPipeline, runIdFor, utcDate } from '../pipeline/index.js';
import { warehousePaths } from '../config/data-paths.js';
import { callbackWarning } from '../pipeline/callbacks.js';
import { checkLocations, locationCacheDir, serviceLocationFetch } from '../check/locations.js';
import { EXIT } from '../exit.js';
import { runJob, type RunJobOptions } from './job.js';
import { NothingToResume, pendingPublish } from './resume.js';
import { groupFailures, runCondition, statusLines } from './status-view.js';
import { pauseFromEnv } from './test-pause.js';
import { tuneHeapForJob } from './heap.js';
import { costNote, otherDataFolder, serviceOf, serviceOfRun } from '../config/service.js';
import { createDuckdb } from '../load/threads.js';

/** Which service a plan is for, and where its data would go. */
const serviceLine = (baseUrl: string, dataDir: string) => {
  const s = serviceOf(baseUrl);
  return `Service: ${s.label}; data folder ${dataDir}${s.kind === 'sandbox' ? `; costs${costNote(s)}` : ''}`;
};

/** How `run` and `resume` show their work (src/run/progress.ts, src/run/summary.ts, src/log/log-output.ts). */
type Output = Pick<RunJobOptions, 'progress' | 'quiet' | 'logFormat' | 'sandbox' | 'takeOverDestinations' | 'waitMs'>;

export async function runCommand(o: { root: string; pipeline: string; runDate?: string; allowFutureDate?: boolean } & Output): Promise<number> {
  tuneHeapForJob();
  const r = await runJob({ root: o.root, pipelineFile: o.pipeline, runDate: o.runDate, allowFutureDate: o.allowFutureDate, progress: o.progress, quiet: o.quiet, logFormat: o.logFormat, sandbox: o.sandbox, takeOverDestinations: o.takeOverDestinations, waitMs: o.waitMs, pause: pauseFromEnv(process.env) });
  return r.exitCode;
}

export async function resumeCommand(o: { root: string; pipeline?: string } & Output): Promise<number> {
  tuneHeapForJob();
  try {
    const r = await runJob({ root: o.root, pipelineFile: o.pipeline, resume: true, progress: o.progress, quiet: o.quiet, logFormat: o.logFormat, sandbox: o.sandbox, takeOverDestinations: o.takeOverDestinations, waitMs: o.waitMs, pause: pauseFromEnv(process.env) });
    return r.exitCode;
  } catch (err) {
    if (!(err instanceof NothingToResume)) throw err;
    process.stdout.write(`${err.message}\n`);
    return err.exitCode;
  }
}

/** Opens a warehouse file read-only, if it exists and no writer holds it. */
async function openReadOnly(file: string): Promise<{ instance: DuckDBInstance; close(): void } | undefined> {
  if (!existsSync(file)) return undefined;
  try {
    const instance = await createDuckdb(file, { access_mode: 'READ_ONLY' });
    return { instance, close: () => instance.closeSync() };
  } catch {
    return undefined;
  }
}

export async function planCommand(o: { root: string; pipeline: string; json: boolean; schedule?: Schedule }): Promise<number> {
  const config = loadConfig({ root: o.root });
  const pipeline = loadPipeline(path.resolve(o.root, o.pipeline), config);
  for (const w of pipelineWarnings(pipeline)) process.stderr.write(`seo-etl: warning: ${w}\n`);
  const dataDir = path.resolve(o.root, config.warehouse.dir);
  await checkLocations(pipeline, { cacheDir: locationCacheDir(dataDir), fetch: serviceLocationFetch(config), warn: (m) => process.stderr.write(`seo-etl: warning: ${m}\n`) });
  // SQL-fed steps are counted from the published warehouse as it is now (the plan never touches the job's files).
  const db = await openReadOnly(warehousePaths(dataDir).published);
  try {
    const conn = db ? await db.instance.connect() : undefined;
    const plan = await planPipeline(pipeline, {
      runId: runIdFor(pipeline.name, utcDate(new Date())),
      ...(conn ? { query: async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[] } : {}),
    });
    if (o.schedule) plan.schedule = o.schedule; // --schedule over the pipeline's schedule:
    const estimate = estimatePlan(plan, config);
    process.stdout.write(o.json ? `${formatPlanJson(estimate)}\n` : `${formatPlan(estimate)}\n${serviceLine(config.api.base_url, dataDir)}\n`);
    const unreachable = callbackWarning(pipeline.steps, config);
    if (unreachable) (o.json ? process.stderr : process.stdout).write(`${o.json ? 'seo-etl: ' : ''}warning: ${unreachable}\n`);
    // The account's balance beside the estimate, when a real service answers (never fails the plan).
    if (!o.json) for (const line of await accountLines(config, estimate.totals.costUsd)) process.stdout.write(`${line}\n`);
    // A plan over its budget would stop posting part-way: a scheduler's check before `run` must see that.
    return estimate.totals.withinBudget ? EXIT.ok : EXIT.budget;
  } finally {
    db?.close();
  }
}

export async function statusCommand(o: { root: string; json: boolean }): Promise<number> {
  const config = loadConfig({ root: o.root });
  const dataDir = path.resolve(o.root, config.warehouse.dir);
  const lock = readRunLock(dataDir);
  const running = lock && pidAlive(lock.pid) ? lock : undefined;
  const paths = warehousePaths(dataDir);
  // While a run holds the working file, the last published snapshot is what can be read.
  const db = (running ? undefined : await openReadOnly(paths.work)) ?? (await openReadOnly(paths.published));
  const summaries: RunSummary[] = [];
  if (db) {
    try {
      const conn = await db.instance.connect();
      const hasLedger = (await conn.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = '_runs'`)).getRows()[0][0];
      if (Number(hasLedger) > 0) {
        const ledger = await Ledger.open(conn, { readOnly: true });
        for (const run of await ledger.runs({ limit: 10 })) {
          const summary = await ledger.summary(run.runId);
          if (summary) summaries.push(summary);
        }
      }
    } finally {
      db.close();
    }
  }
  const service = (runId: string) => serviceOfRun(dataDir, runId);
  if (o.json) {
    const runs = summaries.map((r) => ({ ...r, service: service(r.run.runId) ?? null, condition: runCondition(r, running?.run_id), failureGroups: groupFailures(r.failures) }));
    process.stdout.write(`${JSON.stringify({ dataDir, running, runs }, null, 2)}\n`);
    return EXIT.ok;
  }
  const lines: string[] = [`data folder: ${dataDir}`];
  if (running) lines.push(`a run is in progress: pid ${running.pid}, started ${running.started_at}${running.run_id ? `, run ${running.run_id}` : ''} (showing the last published state)`);
  if (!summaries.length) lines.push('no runs yet');
  lines.push(...statusLines(summaries, running?.run_id, service));
  const unpublished = running ? undefined : pendingPublish(dataDir);
  if (unpublished?.behind?.length) lines.push(`${unpublished.behind.map(destinationName).join(', ')} is behind: run ${unpublished.runId} was not published to it; 'seo-etl resume' publishes it`);
  else if (unpublished) lines.push(`run ${unpublished.runId} was stopped while publishing: 'seo-etl resume' publishes it`);
  const other = otherDataFolder(o.root, config);
  if (other) lines.push(`${other.kind === 'sandbox' ? 'sandbox' : 'live'} runs are in ${other.dir}: ${other.how}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** A destination as users know it. */
const destinationName = (name: string) => (name === 'postgres' ? 'PostgreSQL' : name === 'lake' ? 'the lake' : name);
