/**
 * The nightly job: composes the stages for `run` and `resume`.
 *
 *   open (config, pipeline, lock, warehouse, ledger) -> plan + post (or call) each step -> collect -> export
 *   Parquet -> publish to each destination -> report and alerts -> summary
 *
 * A run is identified by its pipeline and day: running the same pipeline on the same day again, or `resume`,
 * continues it from the ledger. Posted tasks are collected by id, never posted again.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Collection } from '../collect/index.js';
import { emptySummary, type LoadSummary } from '../load/index.js';
import type { RunSummary } from '../ledger/index.js';
import { Budget, pipelineWarnings, type Pipeline } from '../pipeline/index.js';
import { describeDestinations, destinationsFor, exitWithDestinations, failedDestinations, lakeOutcomeOf, postgresOutcomeOf, publishAll, verifyDestinations } from '../publish/destination.js';
import type { LakeOutcome } from '../publish/lake/index.js';
import type { PostgresOutcome } from '../publish/postgres/index.js';
import { sendNotice, type RunNotice } from './notify.js';
import { formatSummary, outcomeLine } from './summary.js';
import { costNote, serviceOf } from '../config/service.js';
import type { Config } from '../config/index.js';
import { groupFailures, runCondition } from './status-view.js';
import { noPause, type PauseHook } from '../pause.js';
import { EXIT } from '../exit.js';
import { openRun, type OpenedRun } from './open.js';
import { openLoadChannel } from './sink.js';
import { markPublishing, published as publishDone } from './resume.js';
import { postLeftovers, postableLeft, refusals, runSteps, type Refusal, type StepsContext } from './steps.js';
import { accountStopOf, newStops, stopExitCode, stopLines, type Stops } from '../post/stop.js';
import { preflight, type PreflightResult } from './preflight.js';
import { removeStaleStages } from '../publish/postgres/stages.js';
import { pidAlive } from '../ledger/lock.js';
import { onInterrupt } from './interrupt.js';
import { callbackWarning } from '../pipeline/callbacks.js';
import { checkLocations, locationCacheDir, serviceLocationFetch } from '../check/locations.js';
import { reportStage } from '../report/stage.js';
import { moverLine } from '../report/movers.js';
import type { FolderProbe } from '../config/writable.js';

export interface RunJobOptions {
  root: string;
  /** The pipeline file; `resume` without one picks the last unfinished run's. */
  pipelineFile?: string;
  runDate?: string;
  resume?: boolean;
  progress?: boolean;
  /** `--sandbox`: a sandbox run on purpose, whatever the configuration names (src/config/service.ts). */
  sandbox?: boolean;
  env?: NodeJS.ProcessEnv;
  configOverrides?: Record<string, unknown>;
  /** Where the summary is printed; stdout by default. */
  out?: NodeJS.WritableStream;
  /** Extra log destination (tests read the log back). */
  logDestination?: NodeJS.WritableStream;
  /** Log lines also go to stderr (default true; tests that read the log pass false). */
  stderrLog?: boolean;
  /** --quiet: warnings and errors on stderr, the outcome on one line (src/run/summary.ts). */
  quiet?: boolean;
  /** --log-format: human (default) or json lines on stderr; the log file is JSON either way. */
  logFormat?: string;
  /** Test seam: the terminal the progress bar is drawn on (stderr by default). */
  terminal?: NodeJS.WriteStream;
  /** Called at each pause point (src/pause.ts); the crash tests' hook waits there to be killed. */
  pause?: PauseHook;
  /** Test seam: checkpoint the warehouse once its log holds this many bytes (src/load/writer.ts). */
  checkpointWalBytes?: number;
  /** --wait: how long to wait for another run's lock (ms); 0 or absent: exit 3 at once. */
  waitMs?: number;
  /** --take-over-destinations: publish over another data folder's data in a destination (src/publish/holder.ts). */
  takeOverDestinations?: boolean;
  /** --allow-future-date: a sandbox run for a day after today, on purpose (src/run/run-date.ts). */
  allowFutureDate?: boolean;
  /** Test seam: the clock that says what day it is (the default run date, the future-date check). */
  clock?: () => Date;
  /** Test seam: what the data folder's permissions are read with (src/config/writable.ts; tests run as root). */
  folderProbe?: FolderProbe;
}

export interface RunJobResult {
  runId: string;
  exitCode: number;
  status: 'completed' | 'stopped_budget' | 'aborted';
  resumed: boolean;
  summary: RunSummary | undefined;
  load: LoadSummary;
  tableRows: Record<string, number>;
  notCollected: number;
  /** Planned tasks the service kept refusing with a retryable answer (rate limit, 5xx range): `resume` posts them. */
  notPosted: number;
  /** Their last answers, grouped: the service's code and message, per step. */
  notPostedReasons: Refusal[];
  budgetStopped: boolean;
  durationMs: number;
  publishedPath: string;
  callbacks: { received: number; rejected: number; recovered: number };
  /** The PostgreSQL destination's outcome, when one is configured. */
  postgres?: PostgresOutcome;
  /** The lake destination's outcome, when one is configured. */
  lake?: LakeOutcome;
  /** What stopped posting: an account answer, endpoints gone, the budget (src/post/stop.ts). */
  stops: Stops;
}

/** Runs (or resumes) a pipeline end to end. Throws for bad input (exit 2) and a held lock (3); an account answer ends it with exit 5 (src/post/stop.ts). */
export async function runJob(opts: RunJobOptions): Promise<RunJobResult> {
  const started = Date.now();
  const pause = opts.pause ?? noPause;
  const run = await openRun(opts);
  const { config, pipeline, runId, runDate, ledger, writer, logger, progress, paths } = run;
  const load = emptySummary();
  if (run.resumed) progress.seed(await ledger.summary(runId)); // what earlier attempts did counts on the bar too
  const channel = openLoadChannel({ writer, ledger, runId, engines: Object.values(config.paths), progress, logger, pause, load, maxCount: config.collect.load_batch });
  const settled = async () => { await channel.idle(); await writer.idle(); };
  const base = { config, pipeline, runId, ledger, client: run.client, logger, progress, budget: new Budget(pipeline.budgetUsd, (step) => ledger.spentUsd(runId, step)), pause, stops: newStops() };
  let collection: Collection | undefined;
  const destinations = destinationsFor(config, paths, pause, logger, { takeOver: opts.takeOverDestinations, env: opts.env });
  // Ctrl-C says what it interrupted and what resume will do (src/run/interrupt.ts).
  const offInterrupt = onInterrupt({ counts: () => progress.counts, stopProgress: () => progress.stop(), ambiguousGraceMs: config.collect.ambiguous_grace_ms, out: process.stderr });
  try {
    await verifyDestinations(destinations); // before anything is posted: a destination holding another folder's data refuses
    const unreachable = run.publishOnly ? undefined : callbackWarning(pipeline.steps, config);
    if (unreachable) logger.warn({}, unreachable);
    for (const w of pipelineWarnings(pipeline)) logger.warn({}, w);
    collection = await Collection.open({ ...base, load: channel, sink: (o) => channel.put(o, { now: true }), settled, rawDir: paths.raw, attemptStartedAt: run.attemptStartedAt }, (e) => run.archive.append(e));
    const steps: StepsContext = { ...base, runDate, collection, settled, rest: () => writer.rest(), query: (sql) => writer.queryObjects(sql) };
    // The account check before anything is posted; a publish-only resume posts nothing.
    const pre: PreflightResult = run.publishOnly ? { ok: true } : await preflight(config, opts.env ?? process.env, logger);
    if (!pre.ok) base.stops.account = { ...pre.stop, exitCode: pre.exitCode };
    else useAccountRate(run, pre.account?.callsPerMinute ?? null);
    // Location codes against the service's free lists (cached), once it answers: a bad code stops the run before money is spent.
    if (pre.ok && !run.publishOnly) await checkLocations(pipeline, { cacheDir: locationCacheDir(paths.dir), fetch: serviceLocationFetch(config, opts.env), warn: (m) => logger.warn({}, m) });
    if (pre.ok || pre.collects) {
      try {
        await collection.resume();
        if (!run.publishOnly) await runSteps(steps);
        await collection.drain();
        if (!run.publishOnly) await postLeftovers(steps);
        await collection.finish();
      } catch (err) {
        // An account answer while collecting (credentials revoked, access withdrawn) ends the attempt as posting's do.
        base.stops.account ??= accountStopOf(err);
        if (!base.stops.account) throw err;
      }
    }

    const budgetStopped = base.budget.stopped;
    const notCollected = await collection.outstanding();
    const notPosted = await postableLeft(steps);
    const notPostedReasons = notPosted ? await refusals(steps) : [];
    const status = base.stops.account ? 'aborted' : budgetStopped ? 'stopped_budget' : notCollected || notPosted ? 'aborted' : 'completed';
    await run.archive.close();

    // Exported before the run is marked finished: a crash during the export leaves the run for `resume`.
    removeStaleFiles(run);
    const parquet = await writer.exportParquet(paths.parquet, runDate, runId, () => pause('parquet'));
    await writer.reexportMovedRuns(paths.parquet, runId); // rows this run took over from earlier runs
    markPublishing(paths.dir, { runId, pipeline: pipeline.name, pipelineFile: pipeline.path, runDate });
    await ledger.finishRun(runId, status, base.stops.account?.message ?? finishNote(pipeline, budgetStopped, notCollected, notPosted));
    const summary = await ledger.summary(runId);
    const tableRows = await writer.tableCounts();
    await writer.close();
    const published = await publishAll(destinations, { runId, runDate, status }, { warehouse: paths.work, parquet, rows: load.rows });
    // Before the run counts as published: a crash until then leaves it for `resume`, whose alerts are never sent twice.
    const reported = await reportStage({ config, pipeline, runId, runDate, dataDir: paths.dir, publishedPath: paths.published, service: run.service.label, warn: (f, m) => logger.warn(f, m) });
    await pause('report');
    publishDone(paths.dir, failedDestinations(published)); // a destination that failed is left for `resume`

    progress.stop(summary);
    const failed = summary?.byState.failed ?? 0;
    const exitCode = exitWithDestinations(stopExitCode(base.stops) ?? (budgetStopped ? EXIT.budget : failed || notCollected || notPosted ? EXIT.taskFailures : EXIT.ok), published);
    const result: RunJobResult = {
      runId, exitCode, status, resumed: run.resumed, summary, load, tableRows, notCollected, notPosted, notPostedReasons, budgetStopped,
      durationMs: Date.now() - started, publishedPath: paths.published, callbacks: collection.callbacks, postgres: postgresOutcomeOf(published), lake: lakeOutcomeOf(published), stops: base.stops,
    };
    logger.info({ status, exit_code: exitCode, cost_usd: summary?.costUsd, by_state: summary?.byState, rows: load.rows }, 'run finished');
    const reportLine = reported.reportPath ? `report: ${reported.reportPath}\n` : '';
    // --quiet keeps its one line (cron's mail); the full summary ends with the report.
    (opts.out ?? process.stdout).write(opts.quiet ? `${outcomeLine(result, pipeline, run.service)}\n` : formatSummary(result, pipeline, run.service) + describeDestinations(published).map((l) => `${l}\n`).join('') + reportLine);
    if (config.notify.webhook_url) {
      const sent = await sendNotice(config.notify.webhook_url, { ...noticeOf(result, pipeline, config), movers: reported.movers.map(moverLine), report: reported.reportPath });
      if (!sent.ok) logger.warn({ why: sent.why }, 'the run notice was not delivered');
    }
    return result;
  } finally {
    offInterrupt();
    await collection?.close();
    await run.close();
  }
}

/** The account's own calls a minute (user_data), when it states one, paces the run instead of the configured number. */
function useAccountRate({ client, config, logger }: OpenedRun, callsPerMinute: number | null): void {
  if (callsPerMinute === null || callsPerMinute === config.rate_limit.calls) return;
  if (client.limiter.useAccountLimit(callsPerMinute)) logger.info({ calls: callsPerMinute, window_ms: config.rate_limit.window_ms, configured: config.rate_limit.calls }, "rate limit: the account's own, as user_data states it");
}

/** What the end-of-run notice says (src/run/notify.ts). */
function noticeOf(r: RunJobResult, pipeline: Pipeline, config: Config): RunNotice {
  const s = r.summary;
  return {
    runId: r.runId, pipeline: pipeline.name, exitCode: r.exitCode,
    service: serviceOf(config.api.base_url).label, costNote: costNote(serviceOf(config.api.base_url)),
    outcome: s ? runCondition(s, r.runId) : r.status,
    tasks: s?.tasks ?? 0, loaded: s?.byState.loaded ?? 0, failed: s?.byState.failed ?? 0, costUsd: s?.costUsd ?? 0,
    budgetUsd: pipeline.budgetUsd ?? null, durationMs: r.durationMs, failures: groupFailures(s?.failures ?? []).map((g) => ({ ...g, step: g.steps.join(', ') })),
    notPosted: r.notPosted,
  };
}

function finishNote(pipeline: Pipeline, budgetStopped: boolean, notCollected: number, notPosted: number): string | undefined {
  if (budgetStopped) return `stopped posting at the budget of $${pipeline.budgetUsd}`;
  if (!notCollected && !notPosted) return undefined;
  return [notCollected && `${notCollected} posted tasks not collected yet`, notPosted && `${notPosted} tasks refused by the service with a retryable answer`].filter(Boolean).join(', ') + ': run seo-etl resume';
}

/** Files a killed run left beside the published warehouse; one run holds the data folder at a time, so they are stale. */
function removeStaleFiles({ paths, logger }: OpenedRun): void {
  const dir = path.dirname(paths.published);
  const prefix = `${path.basename(paths.published)}.publishing-`;
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(prefix)) continue;
    rmSync(path.join(dir, f), { force: true });
    logger.info({ file: path.relative(paths.dir, path.join(dir, f)) }, 'removed the unfinished copy of a killed run');
  }
  const work = path.dirname(paths.work);
  for (const f of removeStaleStages(work, pidAlive)) logger.info({ dir: path.relative(paths.dir, path.join(work, f)) }, 'removed the PostgreSQL staging folder of a killed publish');
}
