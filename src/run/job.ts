/**
 * The nightly job: composes the stages for `run` and `resume`.
 *
 *   pipeline (validated whole, before anything is spent) -> lock -> ledger (plan) -> post, batch by batch, the
 *   ledger written before and after each POST -> collect -> archive -> normalize + load + ledger state in one
 *   transaction -> tasks_fixed re-collection -> Parquet export -> publish -> summary.
 *
 * A run is identified by its pipeline and day: running the same pipeline on the same day again, or `resume`,
 * continues it from the ledger. Posted tasks are collected by id, never posted again; a batch whose POST got no
 * clear answer is recognised by its tags before anything of it is posted again.
 */
import path from 'node:path';
import { mkdirSync, createWriteStream, readdirSync, rmSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { endpoint } from '../api/catalog.js';
import { ApiClient, type TaskOutcome } from '../api/client.js';
import { createLogger, logLevel, secretsOf, type Logger } from '../api/logger.js';
import { pageHtmlTerms, pageResources, HTML_TERMS_ENDPOINT, RESOURCES_ENDPOINT } from '../api/paging.js';
import { isTaskError } from '../api/status.js';
import { ArchiveWriter } from '../archive/writer.js';
import { listArchiveFiles, readLines } from '../archive/reader.js';
import type { ApiTask } from '../api/envelope.js';
import { Collector, type AmbiguousTask, type CollectedResult, type TrackedTask } from '../collect/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../collect/webhook.js';
import { credentialsFor, loadConfig, sizeInBytes, type Config } from '../config/index.js';
import { Ledger, acquireRunLock, markFailed, markLoaded, markPosted, seqSpan, type LedgerTask, type PollScope, type RunSummary, type WaitingTask } from '../ledger/index.js';
import { Warehouse, emptySummary, mergeSummary, storageOptions, type LoadSummary } from '../load/index.js';
import { budgetAllows, batchCost, expandStepChunks, loadPipeline, releaseStepInputs, runIdFor, tasksPerPost, utcDate, type Pipeline, type PipelineStep } from '../pipeline/index.js';
import { publishWarehouse, warehousePaths } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { describeOutcome, publishToPostgres, type PostgresOutcome } from '../publish/postgres/index.js';
import { RateLimiter } from '../queue/index.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { EXIT, UserError } from '../exit.js';
import { Progress } from './progress.js';
import { pauseAt } from './test-pause.js';
import type { DuckDBConnection } from '@duckdb/node-api';

export interface RunJobOptions {
  root: string;
  /** The pipeline file; `resume` without one picks the last unfinished run's. */
  pipelineFile?: string;
  runDate?: string;
  resume?: boolean;
  progress?: boolean;
  env?: NodeJS.ProcessEnv;
  configOverrides?: Record<string, unknown>;
  /** Where the summary is printed; stdout by default. */
  out?: NodeJS.WritableStream;
  /** Extra log destination (tests read the log back). */
  logDestination?: NodeJS.WritableStream;
  /** Log lines also go to stderr when no progress line is drawn (default true; tests that read the log pass false). */
  stderrLog?: boolean;
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
  notPostedReasons: { code: number | null; message: string | null; step: string; count: number }[];
  budgetStopped: boolean;
  durationMs: number;
  publishedPath: string;
  callbacks: { received: number; rejected: number };
  /** The PostgreSQL destination's outcome, when one is configured. */
  postgres?: PostgresOutcome;
}

interface JobContext {
  config: Config;
  pipeline: Pipeline;
  runId: string;
  runDate: string;
  ledger: Ledger;
  warehouse: Warehouse;
  client: ApiClient;
  archive: ArchiveWriter;
  collector: Collector;
  receiver: WebhookReceiver | null;
  logger: Logger;
  progress: Progress;
  load: LoadSummary;
  /** Serialises loads: one transaction at a time on the warehouse's connection. */
  loading: Promise<void>;
  budgetStopped: boolean;
  env: NodeJS.ProcessEnv;
  /** The raw archive's root (`<data>/raw`). */
  rawDir: string;
  /** When this attempt opened the run: tasks posted before it are collected by polling, whatever their mode. */
  attemptStartedAt: Date;
}

const ENGINE_NAMES = (config: Config) => Object.values(config.engines);

/**
 * How far V8 lets the heap grow past what survived the last full collection, in percent, while a job runs. A
 * night allocates garbage fast (responses, rows, statements) around a small live set that does not grow with
 * the tasks (about 50 MB); with V8's own factor (up to 4x) the heap reached 190 MB at 10,000 tasks and 370 MB at
 * 100,000, almost all of it garbage waiting for a collection. At 1.5x it stays near what is live (62 MB at
 * 10,000) for about the same CPU: young collections take most of the garbage either way.
 */
const HEAP_GROWING_PERCENT = 50;

/** Runs (or resumes) a pipeline end to end. Throws for bad input (exit 2), a held lock (3) and refusals (5). */
export async function runJob(opts: RunJobOptions): Promise<RunJobResult> {
  const started = Date.now();
  const env = opts.env ?? process.env;
  const config = loadConfig({ root: opts.root, env, overrides: opts.configOverrides });
  const credentials = credentialsFor(config, env); // missing live credentials: exit 2 before anything else
  const level = logLevel(env); // SEO_ETL_LOG_LEVEL=debug adds each load and checkpoint to the run's log
  const dataDir = path.resolve(opts.root, config.warehouse.dir);
  const pipelineArg = opts.pipelineFile ? path.resolve(opts.root, opts.pipelineFile) : undefined;
  // Before the pipeline is read: V8 sizes the heap at each full collection, and one during a large pipeline's
  // load at its own factor let a 100,000-task plan grow the heap to 133 MB (34 MB live) before the next.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Validate the whole pipeline before taking the lock or spending anything.
  let pipeline = pipelineArg ? loadPipeline(pipelineArg, config) : undefined;

  mkdirSync(dataDir, { recursive: true });
  const lock = acquireRunLock(dataDir, { pipeline: pipeline?.name });
  const paths = warehousePaths(dataDir);
  let warehouse: Warehouse | undefined;
  let sandbox: Sandbox | null = null;
  let receiver: WebhookReceiver | null = null;
  let archive: ArchiveWriter | undefined;
  let progress: Progress | undefined;
  try {
    // DuckDB's own checkpoint at commit stays as a safety net for writes outside loads (see restWarehouse).
    warehouse = await Warehouse.open(paths.work, { memoryLimit: config.warehouse.memory_limit, checkpointThreshold: `${Math.ceil((4 * sizeInBytes(config.warehouse.checkpoint_wal)) / 1024)}KiB`, ...storageOptions(config.warehouse) });
    await warehouse.ensureSchema();
    const ledgerConn = await warehouse.connect();
    const ledger = await Ledger.open(ledgerConn);

    let runDate = opts.runDate;
    if (!pipeline) {
      const last = await ledger.lastUnfinishedRun();
      if (!last || !last.pipelineFile) throw new UserError('nothing to resume: no unfinished run in this warehouse (give a pipeline file to start one)');
      pipeline = loadPipeline(last.pipelineFile, config);
      runDate ??= last.runDate;
    } else if (opts.resume && !runDate) {
      runDate = (await ledger.lastUnfinishedRun(pipeline.name))?.runDate;
    }
    runDate ??= utcDate(new Date());
    if (!/^\d{4}-\d{2}-\d{2}$/.test(runDate)) throw new UserError(`--run-date: must be YYYY-MM-DD, got '${runDate}'`);
    const runId = runIdFor(pipeline.name, runDate);
    const attemptStartedAt = new Date();
    const { resumed } = await ledger.openRun({ runId, pipeline: pipeline.name, runDate, pipelineFile: pipeline.path, budgetUsd: pipeline.budgetUsd });

    const logDir = path.join(dataDir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const streams: pino.StreamEntry[] = [{ level, stream: createWriteStream(path.join(logDir, `${runId}.log`), { flags: 'a' }) }];
    const showProgress = opts.progress !== false && Boolean((process.stderr as NodeJS.WriteStream).isTTY);
    if (!showProgress && opts.stderrLog !== false) streams.push({ level, stream: process.stderr });
    if (opts.logDestination) streams.push({ level, stream: opts.logDestination });
    const logger = createLogger({ destination: pino.multistream(streams), secrets: secretsOf(credentials), level }).child({ run_id: runId });
    progress = new Progress(showProgress ? (process.stderr as NodeJS.WriteStream) : null);
    logger.info({ pipeline: pipeline.name, file: pipeline.file, run_date: runDate, resumed }, resumed ? 'resuming run' : 'starting run');
    if (lock.recovered) logger.warn({ stale_lock: lock.recovered }, 'recovered the lock of a run that is no longer alive');

    if (config.api.base_url === 'sandbox') {
      sandbox = await startSandbox({ config, credentials });
      logger.info({ url: sandbox.url }, 'embedded sandbox started');
    }
    archive = new ArchiveWriter({ dir: path.join(dataDir, 'raw'), runId });
    const limiter = RateLimiter.fromConfig(config);
    const client = new ApiClient({
      baseUrl: sandbox?.url ?? config.api.base_url,
      credentials,
      engines: config.engines,
      limiter,
      timeoutMs: config.api.timeout_ms,
      retries: config.api.retries,
      retryBaseMs: config.api.retry_base_ms,
      tasksPerPost: config.api.tasks_per_post,
      logger,
      onResponse: (raw) => archive!.append(raw),
    });

    const ctx = { config, pipeline, runId, runDate, ledger, warehouse, client, archive, receiver: null, logger, progress, load: emptySummary(), loading: Promise.resolve(), budgetStopped: false, env, rawDir: path.join(dataDir, 'raw'), attemptStartedAt } as unknown as JobContext;
    ctx.collector = makeCollector(ctx);
    if (pipeline.steps.some((s) => s.collect === 'pingback' || s.collect === 'postback')) {
      receiver = await startWebhookReceiver({
        host: config.webhook.listen_host,
        port: config.webhook.listen_port,
        publicUrl: config.webhook.public_url,
        maxBodyBytes: config.webhook.max_body_bytes,
        onPingback: (e) => ctx.collector.onPingback(e.id, e.tag),
        onPostback: async (e) => {
          await archive!.append({ endpointId: null, method: 'POST', path: '(postback)', httpStatus: 200, body: e.body, parsed: e.envelope, receivedAt: e.receivedAt });
          return ctx.collector.onPostback(e.envelope);
        },
        onRejected: (e) => logger.warn(e, 'webhook request rejected'),
      });
      ctx.receiver = receiver;
    }

    await resumeOutstanding(ctx);
    await runSteps(ctx);
    await ctx.collector.drain(Date.now() + config.collect.drain_timeout_ms);
    // Tasks whose ambiguous POST was never seen by the service, or that it refused with a retryable answer, went
    // back to planned: post them again, a bounded number of times.
    for (let pass = 1; pass <= config.api.retries && !ctx.budgetStopped && (await postableLeft(ctx)) > 0; pass++) {
      await runSteps(ctx, { postOnly: true });
      await ctx.collector.drain(Date.now() + config.collect.drain_timeout_ms);
    }
    await recollectFixed(ctx);
    await ctx.loading;
    await collectLeftovers(ctx);

    const notCollected = await ctx.collector.outstanding();
    const notPosted = ctx.budgetStopped ? 0 : await postableLeft(ctx);
    const notPostedReasons = notPosted ? await refusals(ctx) : [];
    const status = ctx.budgetStopped ? 'stopped_budget' : notCollected || notPosted ? 'aborted' : 'completed';
    const note = ctx.budgetStopped ? `stopped posting at the budget of $${pipeline.budgetUsd}`
      : notCollected || notPosted ? [notCollected && `${notCollected} posted tasks not collected yet`, notPosted && `${notPosted} tasks refused by the service with a retryable answer`].filter(Boolean).join(', ') + ': run seo-etl resume'
      : undefined;
    await archive.close();

    // Exported before the run is marked finished: a crash during the export leaves the run for `resume`.
    removeStaleFiles(dataDir, paths.published, logger);
    // Table by table under the memory kept between loads (warehouse.cache_between_loads): at the whole limit the
    // blocks each table's export read stayed cached and added up, and the export was the peak of a night.
    collectGarbage();
    await warehouse.exportParquet(path.join(dataDir, 'parquet'), runDate, runId, {
      lean: { memoryBytes: sizeInBytes(config.warehouse.cache_between_loads), memoryLimit: config.warehouse.memory_limit },
      beforeRename: () => pauseAt('parquet', env),
    });
    await ledger.finishRun(runId, status, note);
    const summary = await ledger.summary(runId);
    const tableRows = await warehouse.tableCounts();
    ledgerConn.closeSync();
    if (!(await checkpointWarehouse(ctx))) {
      throw new Error('could not checkpoint the working warehouse before publishing it: another connection has a write open');
    }
    warehouse.close();
    warehouse = undefined;
    await publishWarehouse({ workPath: paths.work, publishedPath: paths.published, statements: curatedViews(), ...storageOptions(config.warehouse), beforeRename: () => pauseAt('publish', env) });
    const postgres = config.postgres.url ? await publishToPostgres({ url: config.postgres.url, schema: config.postgres.schema, warehouse: paths.work, runId, logger }) : undefined;

    progress.stop();
    const failed = summary?.byState.failed ?? 0;
    const exitCode = ctx.budgetStopped ? EXIT.budget : failed || notCollected || notPosted ? EXIT.taskFailures : postgres?.status === 'failed' ? EXIT.postgres : EXIT.ok;
    const result: RunJobResult = {
      runId, exitCode, status, resumed, summary, load: ctx.load, tableRows, notCollected, notPosted, notPostedReasons, budgetStopped: ctx.budgetStopped,
      durationMs: Date.now() - started, publishedPath: paths.published,
      callbacks: { received: ctx.collector.stats.callbacks, rejected: receiver?.stats().rejected ?? 0 }, postgres,
    };
    logger.info({ status, exit_code: exitCode, cost_usd: summary?.costUsd, by_state: summary?.byState, rows: ctx.load.rows }, 'run finished');
    (opts.out ?? process.stdout).write(formatSummary(result, pipeline) + (postgres ? `${describeOutcome(postgres)}\n` : ''));
    return result;
  } finally {
    progress?.stop();
    await receiver?.close().catch(() => undefined);
    await sandbox?.close().catch(() => undefined);
    await archive?.close().catch(() => undefined);
    try { warehouse?.close(); } catch { /* already closed */ }
    lock.release();
    setFlagsFromString('--heap-growing-percent=0'); // V8's own factor again
  }
}

// ---- steps ------------------------------------------------------------------------------------------------------

async function runSteps(ctx: JobContext, opts: { postOnly?: boolean } = {}): Promise<void> {
  for (const step of ctx.pipeline.steps) {
    if (ctx.budgetStopped) break;
    if (step.deferred) {
      // A SQL-fed step reads what earlier steps loaded: let them finish first.
      await ctx.collector.drain(Date.now() + ctx.config.collect.drain_timeout_ms);
      await ctx.loading;
    }
    if (!opts.postOnly) {
      // Planned a chunk at a time: the step is checked whole first, then never held whole (see expandStepChunks).
      const chunks = expandStepChunks(ctx.pipeline, step.index, {
        runId: ctx.runId,
        runDate: ctx.runDate,
        callbacks: callbacksFor(ctx, step),
        query: (sql) => query(ctx.warehouse.connection, sql),
      });
      for await (const tasks of chunks) {
        const { inserted } = await ctx.ledger.planTasks(tasks);
        ctx.progress.add('planned', inserted);
        await restAfterLoads(ctx);
      }
      releaseStepInputs(step);
    }
    if (step.kind === 'task_post') await postStep(ctx, step);
    // tasks_fixed lists re-parsed results of completed tasks: it runs after collection (recollectFixed).
    else if (!opts.postOnly && step.kind !== 'tasks_fixed') await callStep(ctx, step);
  }
}

function callbacksFor(ctx: JobContext, step: PipelineStep) {
  if (!ctx.receiver) return undefined;
  if (step.collect === 'pingback') return { pingback_url: ctx.receiver.pingbackUrl };
  if (step.collect === 'postback') return { postback_url: ctx.receiver.postbackUrl };
  return undefined;
}

async function query(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/** Posts a step's planned tasks batch by batch; the ledger knows each batch before it is sent and after. */
async function postStep(ctx: JobContext, step: PipelineStep): Promise<void> {
  const { ledger, runId } = ctx;
  const per = tasksPerPost(step.endpointId, ctx.config);
  const callbacks = callbacksFor(ctx, step);
  // The planned tasks are read a page at a time (a whole number of batches, so the batches are the same as if
  // they were read at once); the walk starts past each page, so a batch refused back to `planned` waits for the
  // next pass, as it did when the list was read whole.
  for await (const page of ledger.pages(runId, { states: ['planned'], step: step.name }, per * POST_PAGE_BATCHES)) {
    // What the run has spent is summed over its tasks once a page, then kept up to date with what each batch
    // reported: summing it before every batch made posting slower the larger the run.
    let spent = await ledger.spentUsd(runId);
    for (let i = 0; i < page.length; i += per) {
      spent += await postBatch(ctx, step, page.slice(i, i + per), callbacks, spent);
      if (ctx.budgetStopped) return;
    }
    await restAfterLoads(ctx);
  }
}

/** Batches of a step read from the ledger at once while posting (Ledger.pages). */
const POST_PAGE_BATCHES = 10;

/**
 * Posts one batch (`spent`: what the run has spent so far): `posting` committed before the POST, `posted` (or the
 * refusals) before the next batch. Returns the cost the service reported for it.
 */
async function postBatch(ctx: JobContext, step: PipelineStep, chunk: LedgerTask[], callbacks: ReturnType<typeof callbacksFor>, spent: number): Promise<number> {
  const { ledger, runId, client, collector, logger } = ctx;
  if (!budgetAllows(spent, batchCost(chunk), ctx.pipeline.budgetUsd)) {
    ctx.budgetStopped = true;
    const notPosted = (await ledger.countTasks(runId, { states: ['planned'], step: step.name })).reduce((n, g) => n + g.count, 0);
    logger.warn({ step: step.name, spent_usd: spent, next_batch_usd: batchCost(chunk), budget_usd: ctx.pipeline.budgetUsd, not_posted: notPosted },
      'budget reached: no more tasks are posted; what was posted is still collected');
    return 0;
  }
  const span = seqSpan(chunk);
  const { keys } = await ledger.beginPost(runId, chunk.map((t) => t.key), { span });
  const allowed = new Set(keys);
  const send = chunk.filter((t) => allowed.has(t.key));
  if (!send.length) return 0;
  // The receiver's address changes between attempts of a run; the body gets the current one.
  const bodies = send.map((t) => ({ ...t.params, ...(callbacks ?? {}) }));
  const outcomes = await client.postTasks(step.endpointId, bodies);
  await pauseAt('posted', ctx.env, step.name);
  const posted: { key: string; serviceId: string; cost: number }[] = [];
  const failed: { ref: string; code: number; message: string; retry?: boolean }[] = [];
  const ambiguous: AmbiguousTask[] = [];
  outcomes.forEach((o, j) => {
    const t = send[j];
    if (o.ok) posted.push({ key: t.key, serviceId: o.task.id, cost: o.cost });
    else if (o.error.ambiguous && t.tag) ambiguous.push({ key: t.key, tag: t.tag, postId: step.endpointId, mode: modeOf(step), ...variantOf(t) });
    else failed.push({ ref: t.key, code: o.error.code, message: o.error.message, retry: isRetryablePostFailure(o) });
  });
  await ledger.recordPosted(runId, posted, { span });
  // Retryable refusals (rate limit, 5xx-range at cost 0) the client already retried go back to planned with
  // their code and message, to be posted again by a later pass or `resume`; the others fail.
  await ledger.recordPostFailed(runId, failed);
  const failedFinal = failed.filter((f) => !f.retry);
  ctx.progress.add('posted', posted.length);
  ctx.progress.add('failed', failedFinal.length);
  ctx.progress.counts.costUsd += posted.reduce((s, p) => s + p.cost, 0);
  if (failedFinal.length) logger.warn({ step: step.name, failed: failedFinal.map((f) => `${f.code} ${f.message}`).slice(0, 5) }, 'tasks refused');
  if (ambiguous.length) {
    logger.warn({ step: step.name, tasks: ambiguous.length }, 'POST without a clear answer: looking the tasks up by tag before any re-post');
    collector.awaitTags(ambiguous);
  }
  const sentByKey = new Map(send.map((t) => [t.key, t]));
  collector.track(posted.map((p) => {
    const t = sentByKey.get(p.key)!;
    return { key: p.key, serviceId: p.serviceId, postId: step.endpointId, mode: modeOf(step), ...variantOf(t) };
  }));
  return posted.reduce((s, p) => s + p.cost, 0);
}

/** Planned task_post tasks left (refused with a retryable answer, or an unclear POST the service never showed). */
async function postableLeft(ctx: JobContext): Promise<number> {
  return (await refusals(ctx)).reduce((n, g) => n + g.count, 0);
}

/** The last answers of the planned task_post tasks left, grouped by code, message and step (counted by the ledger). */
async function refusals(ctx: JobContext): Promise<RunJobResult['notPostedReasons']> {
  const groups = new Map<string, RunJobResult['notPostedReasons'][number]>();
  for (const c of await ctx.ledger.countTasks(ctx.runId, { states: ['planned'] })) {
    if (endpoint(c.endpointId).kind !== 'task_post') continue;
    const k = `${c.errorCode}\u0000${c.errorMessage}\u0000${c.step}`;
    const g = groups.get(k) ?? { code: c.errorCode, message: c.errorMessage, step: c.step, count: 0 };
    g.count += c.count;
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/**
 * Files a killed run left beside the published warehouse (its unfinished copy and that copy's WAL). Only one run
 * holds the data folder at a time (run.lock), so any such file is stale.
 */
function removeStaleFiles(dataDir: string, publishedPath: string, logger: Logger): void {
  const prefix = `${path.basename(publishedPath)}.publishing-`;
  for (const f of readdirSync(path.dirname(publishedPath))) {
    if (!f.startsWith(prefix)) continue;
    rmSync(path.join(path.dirname(publishedPath), f), { force: true });
    logger.info({ file: path.relative(dataDir, path.join(path.dirname(publishedPath), f)) }, 'removed the unfinished copy of a killed run');
  }
}

function isRetryablePostFailure(o: TaskOutcome): boolean {
  if (o.ok) return false;
  const c = o.error.code;
  return !o.error.local && (c === 40202 || c >= 50000);
}

/** How a step's (or a ledger task's) results are collected, as the collector tracks it. */
function modeOf(of: { collect: PipelineStep['collect'] }): TrackedTask['mode'] {
  return of.collect === 'pingback' || of.collect === 'postback' ? of.collect : 'tasks_ready';
}

/** A posted ledger task as the collector tracks it. */
function trackedFromLedger(t: LedgerTask, mode: TrackedTask['mode']): TrackedTask {
  return { key: t.key, serviceId: t.serviceId!, postId: t.endpointId, mode, ...variantOf(t) };
}

function variantOf(t: LedgerTask): { variant?: string } {
  const v = t.params.postback_data;
  return typeof v === 'string' ? { variant: v } : {};
}

/** Live and list steps: the answer is the result. Each task's pages load with its ledger state in one transaction. */
async function callStep(ctx: JobContext, step: PipelineStep): Promise<void> {
  const { ledger, runId, logger } = ctx;
  // `posting` here is a live call a crash interrupted: its answer (if any) is in the raw archive; ask again.
  // Read a page at a time and shared by the workers (an async generator hands each task to one of them).
  const todo = eachTask(ledger.pages(runId, { step: step.name, states: ['planned', 'posting'] }));
  const limit = ctx.config.collect.live_concurrency;
  const worker = async () => {
    while (!ctx.budgetStopped) {
      const next = await todo.next();
      if (next.done) return;
      const t = next.value;
      const spent = await ledger.spentUsd(runId);
      const pages = t.paging?.maxPages ?? 1;
      if (!budgetAllows(spent, t.price * pages, ctx.pipeline.budgetUsd)) {
        ctx.budgetStopped = true;
        logger.warn({ step: step.name, spent_usd: spent, budget_usd: ctx.pipeline.budgetUsd }, 'budget reached: no more live calls');
        return;
      }
      if (t.state === 'planned') await ledger.beginPost(runId, [t.key]);
      const results: CollectedResult[] = [];
      let cost = 0;
      let error: { code: number; message: string } | undefined;
      for await (const o of callPages(ctx, step, t)) {
        if (!o.ok) { error = { code: o.error.code, message: o.error.message }; break; }
        cost += o.cost;
        results.push({ endpointId: step.endpointId, task: o.task, version: o.version ?? '' });
      }
      if (!results.length) {
        await ledger.recordPostFailed(runId, [{ ref: t.key, code: error?.code ?? 0, message: error?.message ?? 'no answer' }]);
        ctx.progress.add('failed');
        continue;
      }
      if (error) logger.warn({ step: step.name, task: t.key, pages: results.length, error }, 'paging stopped early; the pages fetched are kept');
      await pauseAt('live', ctx.env, step.name);
      ctx.progress.add('posted');
      ctx.progress.counts.costUsd += cost;
      // The answer's id and cost are recorded in the transaction that loads its rows: never one without the other.
      await loadResults(ctx, results, [t.key], results.length, { key: t.key, serviceId: results[0].task.id, cost });
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

async function* eachTask(pages: AsyncIterable<LedgerTask[]>): AsyncGenerator<LedgerTask> {
  for await (const page of pages) yield* page;
}

async function* callPages(ctx: JobContext, step: PipelineStep, t: LedgerTask): AsyncGenerator<TaskOutcome> {
  const { client } = ctx;
  const def = endpoint(step.endpointId);
  const paging = t.paging ? { pageSize: t.paging.pageSize, ...(t.paging.maxItems !== undefined ? { maxItems: t.paging.maxItems } : {}) } : {};
  if (def.id === HTML_TERMS_ENDPOINT || def.id === RESOURCES_ENDPOINT) {
    const gen = def.id === HTML_TERMS_ENDPOINT ? pageHtmlTerms(client, t.params, paging) : pageResources(client, t.params, paging);
    let n = 0;
    for await (const o of gen) {
      yield o;
      if (++n >= (t.paging?.maxPages ?? Number.POSITIVE_INFINITY)) return;
    }
    return;
  }
  if (def.kind === 'live') yield await client.live(def.id, t.params);
  else if (def.kind === 'list') yield await client.list(def.id, def.method === 'POST' ? t.params : undefined);
  else if (def.kind === 'tasks_fixed') {
    const env = await client.get(def.id);
    const task = env.tasks?.[0];
    yield task && !isTaskError(task.status_code) ? { ok: true, task, cost: task.cost ?? 0 } : { ok: false, error: { code: task?.status_code ?? env.status_code, message: task?.status_message ?? env.status_message, path: [], data: null, local: false } };
  }
}

// ---- collection and loading ---------------------------------------------------------------------------------

function makeCollector(ctx: JobContext): Collector {
  const c = ctx.config.collect;
  return new Collector({
    client: ctx.client,
    engines: ctx.config.engines,
    logger: ctx.logger,
    pollMinMs: c.poll_min_ms,
    pollMaxMs: c.poll_max_ms,
    stragglerAfterMs: c.straggler_after_ms,
    ambiguousGraceMs: c.ambiguous_grace_ms,
    batchSize: c.load_batch,
    maxInFlight: Math.max(8, ctx.config.rate_limit.concurrency * 2),
    // Polled tasks wait in the ledger (posted, not loaded), not in the collector's memory.
    store: {
      waiting: async () => (await ctx.ledger.pollWaiting(ctx.runId, pollScope(ctx))).map((w) => ({ postId: w.endpointId, count: w.count })),
      lookup: async (ids) => (await ctx.ledger.pollLookup(ctx.runId, pollScope(ctx), ids)).map(trackedOf),
      overdue: async (before, limit) => (await ctx.ledger.pollOverdue(ctx.runId, pollScope(ctx), new Date(before), limit)).map(trackedOf),
    },
    sink: (results) => loadResults(ctx, results),
    onFailed: async (t, code, message) => {
      await ctx.ledger.markFailed(ctx.runId, [{ ref: t.serviceId, code, message }]);
      ctx.progress.add('failed');
    },
    onReady: () => ctx.progress.add('ready'),
    onAdopt: async (a, serviceId) => {
      const t = await ctx.ledger.byKey(ctx.runId, a.key);
      await ctx.ledger.recordPosted(ctx.runId, [{ key: a.key, serviceId, cost: t?.price ?? 0 }]);
      ctx.logger.info({ task: a.key, service_id: serviceId }, 'ambiguous POST resolved: the service has the task');
      ctx.progress.add('posted');
    },
    onGiveUp: async (ts) => {
      await ctx.ledger.releasePosting(ctx.runId, ts.map((t) => t.key), 'not found at the service after an unclear POST');
      ctx.logger.warn({ tasks: ts.length }, 'ambiguous POST: the service never listed these tasks; they are posted again');
    },
  });
}

/** The polled tasks of this run: its task_post steps', and all an earlier attempt posted. */
function pollScope(ctx: JobContext): PollScope {
  return { endpoints: [...new Set(ctx.pipeline.steps.filter((s) => s.kind === 'task_post').map((s) => s.endpointId))], attemptStartedAt: ctx.attemptStartedAt };
}

function trackedOf(w: WaitingTask): TrackedTask {
  return { key: w.key, serviceId: w.serviceId, postId: w.endpointId, mode: 'tasks_ready', ...(w.postbackData ? { variant: w.postbackData } : {}) };
}

/**
 * Loads results (rows of successful tasks, error rows of failed ones) and moves their ledger state in the same
 * transaction. Loads are serialised: DuckDB runs one transaction per connection.
 */
function loadResults(ctx: JobContext, results: CollectedResult[], keys?: string[], pages?: number, posted?: { key: string; serviceId: string; cost: number }): Promise<void> {
  return afterLoads(ctx, async () => {
    const ok: CollectedResult[] = [];
    const bad: CollectedResult[] = [];
    for (const r of results) (!isTaskError(r.task.status_code) && Array.isArray(r.task.result) ? ok : bad).push(r);
    const refsOk = keys ?? ok.map((r) => r.key ?? r.task.id);
    const summary = await ctx.warehouse.loadTasks(results, {
      runId: ctx.runId,
      engines: ENGINE_NAMES(ctx.config),
      inTransaction: async (conn) => {
        if (posted) await markPosted(conn, ctx.runId, [posted]);
        if (keys && bad.length && !ok.length) {
          await markFailed(conn, ctx.runId, keys.map((k) => ({ ref: k, code: bad[0].task.status_code, message: bad[0].task.status_message })));
        } else {
          await markLoaded(conn, ctx.runId, refsOk, { collected: true, ...(pages !== undefined ? { pages } : {}) });
          if (!keys && bad.length) await markFailed(conn, ctx.runId, bad.map((r) => ({ ref: r.key ?? r.task.id, code: r.task.status_code, message: r.task.status_message })));
        }
        await pauseAt('load', ctx.env);
      },
    });
    mergeSummary(ctx.load, summary);
    ctx.logger.debug({ tasks: results.length, rows: Object.values(summary.rows).reduce((a, b) => a + b, 0) }, 'results loaded');
    await restWarehouse(ctx);
    ctx.progress.add('collected', keys ? keys.length : results.length);
    ctx.progress.add('loaded', keys ? (ok.length ? keys.length : 0) : ok.length);
    ctx.progress.add('failed', keys ? (ok.length ? 0 : keys.length) : bad.length);
  });
}

/**
 * Runs `work` once the loads (and rests) before it are done, and makes the next wait for it: DuckDB runs one
 * transaction per connection, so what uses the warehouse's connection goes one at a time. A failure reaches the
 * caller, not the next in line.
 */
function afterLoads(ctx: JobContext, work: () => Promise<void>): Promise<void> {
  const run = ctx.loading.then(work);
  ctx.loading = run.catch(() => undefined);
  return run;
}

/**
 * Between two loads (which are serialised, so no load is open now): checkpoint once the WAL has grown to
 * warehouse.checkpoint_wal, with DuckDB's memory limited to warehouse.checkpoint_memory, then let its cache shrink
 * to warehouse.cache_between_loads. At DuckDB's own checkpoint (at commit, under the whole memory_limit) each
 * checkpoint of a long night was its peak. A checkpoint refused because a ledger write is open is tried again
 * after the next load.
 */
async function restWarehouse(ctx: JobContext, after: 'load' | 'ledger' = 'load'): Promise<void> {
  const w = ctx.config.warehouse;
  const wal = ctx.warehouse.walBytes();
  if (wal >= sizeInBytes(w.checkpoint_wal)) {
    const started = Date.now();
    const done = await checkpointWarehouse(ctx);
    ctx.logger.debug({ after, wal_bytes: wal, done, ms: Date.now() - started }, 'warehouse checkpoint');
  }
  await ctx.warehouse.trimCache(sizeInBytes(w.cache_between_loads), w.memory_limit);
}

/**
 * restWarehouse for the ledger's own writes (planning, posting), after the load in progress if there is one.
 * Checkpointed only after loads, a 100,000-task plan and its posting left up to 62 MB of log (DuckDB's own
 * checkpoint comes at four times checkpoint_wal) and the changes it holds in memory: the night's posting phase
 * sat at 285-314 MB, and at 241-274 MB with these checkpoints.
 */
function restAfterLoads(ctx: JobContext): Promise<void> {
  return afterLoads(ctx, () => restWarehouse(ctx, 'ledger'));
}

/** A checkpoint under warehouse.checkpoint_memory (Warehouse.checkpoint): false while another write is open. */
function checkpointWarehouse(ctx: JobContext): Promise<boolean> {
  const w = ctx.config.warehouse;
  return ctx.warehouse.checkpoint(sizeInBytes(w.checkpoint_memory), w.memory_limit);
}

/**
 * A full garbage collection now, before the export takes memory outside the JS heap: the heap then holds what is
 * live instead of garbage up to 1.5x that (100,000 tasks: 80 -> 49 MB). Forced collections cost far more CPU than
 * V8's own (about 0.4 s each with 100 MB live, measured): once a night, not before every checkpoint, where they
 * saved 44 MB of peak for 10% more CPU.
 */
let gc: (() => void) | undefined;
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * The ledger, not the collector's bookkeeping, says when collection is over: a posted task it still has as posted
 * or ready once the collector has nothing outstanding is fetched by id now (task_get is free, and its load
 * replaces any rows it already has) instead of being left for `resume`, and the warning names it. Seen once in
 * about 50 loaded runs of the fault test: a postback task stayed posted while the run exited 0. Tasks the
 * collector still counts as outstanding (the service has not finished them) are left for `resume` as before.
 */
async function collectLeftovers(ctx: JobContext): Promise<void> {
  if ((await ctx.collector.outstanding()) > 0) return;
  let left = 0;
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['posted', 'ready'] })) {
    const missed = page.filter((t) => endpoint(t.endpointId).kind === 'task_post' && t.serviceId);
    if (!missed.length) continue;
    left += missed.length;
    ctx.logger.warn({ tasks: missed.length, keys: missed.slice(0, 20).map((t) => t.key) }, 'posted tasks the collector did not account for: collecting them by id');
    ctx.collector.fetchNow(missed.map((t) => trackedFromLedger(t, modeOf(t))));
  }
  if (!left) return;
  await ctx.collector.drain(Date.now() + ctx.config.collect.drain_timeout_ms);
  await ctx.loading;
}

/** On a resumed run: collect what an earlier attempt posted, and look up batches it left without an answer. */
async function resumeOutstanding(ctx: JobContext): Promise<void> {
  let earlier = 0;
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['posted', 'ready'] })) {
    const byKind = page.filter((t) => endpoint(t.endpointId).kind === 'task_post' && t.serviceId);
    // Their callbacks went to a receiver that is gone: the service lists them as ready instead.
    ctx.collector.track(byKind.map((t) => trackedFromLedger(t, 'tasks_ready')));
    earlier += byKind.length;
  }
  if (earlier) {
    ctx.logger.info({ tasks: earlier }, 'collecting tasks posted by an earlier attempt');
    ctx.progress.add('posted', earlier);
  }
  const ambiguous = (await ctx.ledger.ambiguous(ctx.runId)).filter((t) => endpoint(t.endpointId).kind === 'task_post' && t.tag);
  if (ambiguous.length) {
    ctx.logger.warn({ tasks: ambiguous.length }, 'an earlier attempt stopped while posting: looking its tasks up by tag before any re-post');
    ctx.collector.awaitTags(ambiguous.map((t) => ({ key: t.key, tag: t.tag!, postId: t.endpointId, mode: 'tasks_ready' as const, ...variantOf(t) })));
  }
  await recoverLiveAnswers(ctx);
}

/**
 * Live calls an earlier attempt sent but did not record (it stopped between the answer and its load) are billed
 * already, and their answers are in this run's raw archive, written before they were parsed: load them from there
 * instead of asking, and paying, again. A task is recognised by the tag it was sent with (single-call tasks of
 * endpoints that take a tag); any other is asked again by callStep.
 */
async function recoverLiveAnswers(ctx: JobContext): Promise<void> {
  const waiting = (await ctx.ledger.tasks(ctx.runId, { states: ['posting'] }))
    .filter((t) => endpoint(t.endpointId).kind === 'live' && t.tag && (t.paging?.maxPages ?? 1) === 1);
  if (!waiting.length) return;
  const byTag = new Map(waiting.map((t) => [t.tag!, t]));
  const found = new Map<string, { result: CollectedResult; cost: number }>();
  const files = listArchiveFiles(ctx.rawDir).filter((f) => path.basename(f).startsWith(`${ctx.runId}-`));
  for (const file of files) {
    for await (const buf of readLines(file)) {
      const line = buf.toString('utf8');
      if (!waiting.some((t) => line.includes(t.key))) continue; // the tag holds the key; skip other lines unparsed
      let rec: { endpoint_id?: string; response?: { version?: string; tasks?: ApiTask[] } };
      try {
        rec = JSON.parse(line);
      } catch {
        continue;
      }
      const task = rec.response?.tasks?.[0];
      const tag = (task?.data as { tag?: unknown } | undefined)?.tag;
      const t = typeof tag === 'string' ? byTag.get(tag) : undefined;
      if (!t || !task || rec.endpoint_id !== t.endpointId || isTaskError(task.status_code) || !Array.isArray(task.result)) continue;
      found.set(t.key, { result: { endpointId: t.endpointId, task, version: rec.response?.version ?? '' }, cost: typeof task.cost === 'number' ? task.cost : 0 });
    }
  }
  for (const [key, { result, cost }] of found) {
    await loadResults(ctx, [result], [key], 1, { key, serviceId: result.task.id, cost });
  }
  if (found.size) ctx.logger.info({ tasks: found.size, asked_again: waiting.length - found.size }, 'live answers an earlier attempt received were loaded from the raw archive, not asked again');
}

/**
 * Re-parsed events results (tasks_fixed, E12), after everything else is collected: fetch ours again and replace
 * their rows. It runs when the pipeline has a tasks_fixed step (whose ledger task records the list) or posts
 * events tasks.
 */
async function recollectFixed(ctx: JobContext): Promise<void> {
  const step = ctx.pipeline.steps.find((s) => s.kind === 'tasks_fixed');
  const eventsPosted = ctx.pipeline.steps.some((s) => s.endpointId === 'serp.events.task_post');
  if (!step && !eventsPosted) return;
  // The list is free and changes over 24 hours, so a repeated attempt of the run asks again; the step's own
  // ledger task is only recorded the first time.
  const stepTasks = step ? await ctx.ledger.tasks(ctx.runId, { step: step.name, states: ['planned', 'posting'] }) : [];
  if (stepTasks.length) await ctx.ledger.beginPost(ctx.runId, stepTasks.map((t) => t.key));
  const env = await ctx.client.get('serp.events.tasks_fixed');
  const listTask = env.tasks?.[0];
  if (!listTask || isTaskError(listTask.status_code)) {
    if (stepTasks.length) await ctx.ledger.recordPostFailed(ctx.runId, stepTasks.map((t) => ({ ref: t.key, code: listTask?.status_code ?? env.status_code, message: listTask?.status_message ?? env.status_message })));
    return;
  }
  const keys = stepTasks.map((t) => t.key);
  // The list is a result of its own only for a tasks_fixed step; otherwise it just names what to fetch again (loading
  // it would add a row no ledger task owns, once per attempt).
  if (keys.length) {
    await ctx.ledger.recordPosted(ctx.runId, keys.map((key) => ({ key, serviceId: listTask.id, cost: 0 })));
    await loadResults(ctx, [{ endpointId: 'serp.events.tasks_fixed', task: listTask, version: env.version }], keys, 1);
  }
  const fixed = (listTask.result ?? []) as { id?: string }[];
  const ours: CollectedResult[] = [];
  for (const f of fixed) {
    if (!f.id) continue;
    // Ours if any run of this warehouse posted it: a re-parse is usually found by the next night's run.
    const t = await ctx.ledger.byServiceId(f.id);
    if (!t) continue;
    const o = await ctx.client.taskGet('serp.events.task_get.advanced', f.id);
    if (o.ok) ours.push({ endpointId: 'serp.events.task_get.advanced', task: o.task, version: o.version ?? env.version });
  }
  if (ours.length) {
    ctx.logger.info({ tasks: ours.length }, 're-parsed results collected again; their earlier rows are replaced');
    await loadResults(ctx, ours);
  }
}

// ---- the summary ------------------------------------------------------------------------------------------------

export function formatSummary(r: RunJobResult, pipeline: Pipeline): string {
  const s = r.summary;
  const lines: string[] = [];
  lines.push(`run ${r.runId} ${r.status}${r.resumed ? ' (resumed)' : ''} in ${(r.durationMs / 1000).toFixed(1)} s`);
  if (s) {
    const states = Object.entries(s.byState).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`tasks: ${s.tasks} (${states || 'none'})`);
    lines.push(`cost: $${s.costUsd.toFixed(4)} of a $${pipeline.budgetUsd} budget`);
    for (const f of s.failures) lines.push(`failed: ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  }
  if (r.budgetStopped) lines.push('stopped posting at the budget; everything posted was collected');
  if (r.notCollected) lines.push(`${r.notCollected} posted tasks are not collected yet: run 'seo-etl resume' later (results stay 30 days)`);
  if (r.notPosted) lines.push(`${r.notPosted} tasks were refused with a retryable answer every time: run 'seo-etl resume' later to post them`);
  for (const f of r.notPostedReasons) lines.push(`not posted: ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  const loaded = Object.entries(r.load.rows).filter(([, n]) => n > 0);
  lines.push(`rows loaded this run: ${loaded.length ? loaded.map(([t, n]) => `${t} ${n}`).join(', ') : 'none'}`);
  if (r.load.unknownFields || r.load.unknownItemTypes) lines.push(`kept but not in the catalog: ${r.load.unknownFields} unknown fields, ${r.load.unknownItemTypes} unknown item types (see the extra columns)`);
  lines.push(`published: ${r.publishedPath}`);
  return `${lines.join('\n')}\n`;
}
