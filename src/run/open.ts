/**
 * Opening a run: configuration and pipeline validated before anything is spent, the lock, the working warehouse
 * with its ledger, the run's row in the ledger, its log, the embedded sandbox when configured, the raw archive and
 * the API client. `close` releases all of it, whatever state the run ended in.
 */
import path from 'node:path';
import { createWriteStream, mkdirSync } from 'node:fs';
import pino from 'pino';
import { ENDPOINT_ALIASES } from '../api/catalog.js';
import { ApiClient } from '../api/client.js';
import { createLogger, logLevel, secretsOf, type Logger } from '../log/logger.js';
import { ArchiveWriter } from '../archive/writer.js';
import { credentialsFor, loadConfig, type Config } from '../config/index.js';
import { Ledger, acquireRunLock, acquireRunLockWaiting } from '../ledger/index.js';
import { Writer } from '../load/writer.js';
import { RUN_DATE_RULE, isCalendarDay, loadPipeline, pipelineTables, runIdFor, utcDate, type Pipeline } from '../pipeline/index.js';
import { warehousePaths, type WarehousePaths } from '../config/data-paths.js';
import { RateLimiter } from '../queue/index.js';
import { startSandbox, clockOnDay, type Sandbox } from '../sandbox/index.js';
import { UserError } from '../exit.js';
import { Progress } from './progress.js';
import { resumeTarget } from './resume.js';
import { logFormat, stderrLog } from '../log/log-output.js';
import { bindDataFolder, noteRunService, refuseAccidentalSandbox, serviceOf, type Service } from '../config/service.js';
import type { RunJobOptions } from './job.js';
import { useDuckdbThreads } from '../load/threads.js';
import { dataFolders, requireWritableFolders } from '../config/writable.js';
import { refuseFutureRunDate } from './run-date.js';

export interface OpenedRun {
  config: Config;
  /** The service the run talks to (src/config/service.ts). */
  service: Service;
  pipeline: Pipeline;
  runId: string;
  runDate: string;
  resumed: boolean;
  /** A `resume` of a run killed while publishing: nothing is planned or posted, the run is exported and published. */
  publishOnly: boolean;
  attemptStartedAt: Date;
  paths: WarehousePaths;
  writer: Writer;
  ledger: Ledger;
  logger: Logger;
  progress: Progress;
  archive: ArchiveWriter;
  client: ApiClient;
  close(): Promise<void>;
}

/** Opens a run (or resumes one). Throws for bad input (exit 2) and a held lock (3). */
export async function openRun(opts: RunJobOptions): Promise<OpenedRun> {
  const env = opts.env ?? process.env;
  // The run date given is checked once, here, before anything is opened (a resume's comes from the ledger).
  if (opts.runDate !== undefined && !isCalendarDay(opts.runDate)) throw new UserError(`--run-date: ${RUN_DATE_RULE}, got '${opts.runDate}'`);
  const config = loadConfig({ root: opts.root, env, overrides: opts.configOverrides });
  useDuckdbThreads(config.warehouse.threads);
  const credentials = credentialsFor(config, env); // missing live credentials: exit 2 before anything else
  const service = serviceOf(config.api.base_url);
  refuseAccidentalSandbox({ service, fileBaseUrl: loadConfig({ root: opts.root, env: {} }).api.base_url, env, sandboxOnPurpose: opts.sandbox === true });
  const level = logLevel(env); // SEO_ETL_LOG_LEVEL=debug adds each load and checkpoint to the run's log
  const format = logFormat(env, opts.logFormat);
  const now = opts.clock ?? (() => new Date());
  // A day after the account's today: exit 2 before anything is opened (src/run/run-date.ts).
  if (opts.runDate !== undefined) await refuseFutureRunDate({ runDate: opts.runDate, now: now(), config, env, service, allowFuture: opts.allowFutureDate === true });
  const paths = warehousePaths(path.resolve(opts.root, config.warehouse.dir));
  // The whole pipeline is validated before the lock is taken or anything spent.
  let pipeline = opts.pipelineFile ? loadPipeline(path.resolve(opts.root, opts.pipelineFile), config, { env }) : undefined;
  requireWritableFolders(dataFolders(paths), opts.folderProbe); // a read-only data folder: exit 2 naming it, before the lock
  mkdirSync(paths.dir, { recursive: true });
  // --wait: a second run (another cron line) waits for the first instead of exiting 3 at once.
  const lock = opts.waitMs
    ? await acquireRunLockWaiting(paths.dir, { pipeline: pipeline?.name }, {
      waitMs: opts.waitMs,
      onWait: (e, until) => process.stderr.write(`seo-etl: waiting until ${until.toISOString().slice(0, 19).replace('T', ' ')} UTC (--wait) for the run that holds the warehouse (${e.holder ? `pid ${e.holder.pid}${e.holder.run_id ? `, run ${e.holder.run_id}` : ''}` : 'lock being written'}) to finish\n`),
    })
    : acquireRunLock(paths.dir, { pipeline: pipeline?.name });
  const closers: (() => Promise<unknown> | void)[] = [() => lock.release()];
  const close = async () => {
    for (const c of closers.reverse()) await Promise.resolve().then(c).catch(() => undefined);
  };
  try {
    bindDataFolder(paths.dir, service); // sandbox and live data never share a warehouse
    const writer = await Writer.open(paths.work, config.warehouse.memory_limit, { checkpointWalBytes: opts.checkpointWalBytes, tables: pipeline ? pipelineTables(pipeline) : [] });
    closers.push(() => writer.abandon());
    const ledger = await Ledger.open(await writer.connect(), { queue: (work) => writer.queue(work), read: (work) => writer.beside(work), endpointAliases: ENDPOINT_ALIASES });

    let runDate = opts.runDate;
    let publishOnly = false;
    if (opts.resume && !runDate) {
      // `resume` continues what an earlier attempt left, never a new day's run (src/run/resume.ts).
      const target = await resumeTarget(ledger, paths.dir, pipeline);
      if (!pipeline) writer.use(pipelineTables((pipeline = loadPipeline(target.pipelineFile, config, { env }))));
      ({ runDate, publishOnly } = target);
    }
    if (!pipeline) throw new UserError('a pipeline file is needed to start a run');
    runDate ??= utcDate(now());
    const runId = runIdFor(pipeline.name, runDate);
    const attemptStartedAt = new Date();
    noteRunService(paths.dir, runId, service);
    const tracked = pipeline.targets;
    const targets = pipeline.steps.flatMap((st) => tracked.filter((t) => t.name === st.target).flatMap((t) => t.domains.map((domain) => ({ step: st.name, target: t.name, domain }))));
    const { resumed } = await ledger.openRun({ runId, pipeline: pipeline.name, runDate, pipelineFile: pipeline.path, budgetUsd: pipeline.budgetUsd, targets });

    const logDir = path.join(paths.dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const streams: pino.StreamEntry[] = [{ level, stream: createWriteStream(path.join(logDir, `${runId}.log`), { flags: 'a' }) }];
    const terminal = opts.terminal ?? (process.stderr as NodeJS.WriteStream);
    const showProgress = opts.progress !== false && !opts.quiet && Boolean(terminal.isTTY);
    const progress = new Progress(showProgress ? terminal : null, { sandbox: service.kind === 'sandbox' });
    closers.push(() => progress.stop());
    if (opts.stderrLog !== false) streams.push(stderrLog({ level, format, warningsOnly: showProgress || opts.quiet === true, through: progress }));
    if (opts.logDestination) streams.push({ level, stream: opts.logDestination });
    const logger = createLogger({ destination: pino.multistream(streams), secrets: secretsOf(credentials), level }).child({ run_id: runId });
    writer.log = logger;
    if (!opts.quiet) progress.reportEvery(30_000, (c) => logger.info({ done: `${c.loaded + c.failed}/${c.planned}`, failed: c.failed, posted: c.posted, cost_usd: Number(c.costUsd.toFixed(4)) }, 'progress'));
    logger.info({ pipeline: pipeline.name, file: pipeline.file, run_date: runDate, resumed }, resumed ? 'resuming run' : 'starting run');
    if (lock.recovered) logger.warn({ stale_lock: lock.recovered }, 'recovered the lock of a run that is no longer alive');

    let sandbox: Sandbox | null = null;
    if (config.api.base_url === 'sandbox') {
      // It keeps its tasks in the data folder, so a killed run's `resume` finds them, as on the live service; it
      // runs on the run's date, so runs on several --run-date values show several days (docs/analysis.md).
      sandbox = await startSandbox({ config, credentials, clock: clockOnDay(runDate), stateFile: path.join(paths.dir, 'sandbox', 'tasks.ndjson') });
      closers.push(() => sandbox!.close());
      logger.info({ url: sandbox.url }, 'embedded sandbox started');
    }
    const archive = new ArchiveWriter({ dir: paths.raw, runId });
    closers.push(() => archive.close());
    const client = new ApiClient({
      baseUrl: sandbox?.url ?? config.api.base_url,
      credentials,
      engines: config.paths,
      limiter: RateLimiter.fromConfig(config),
      timeoutMs: config.api.timeout_ms,
      retries: config.api.retries,
      retryBaseMs: config.api.retry_base_ms,
      tasksPerPost: config.api.tasks_per_post,
      logger,
      onResponse: (raw) => archive.append(raw),
    });
    return { config, service, pipeline, runId, runDate, resumed, publishOnly, attemptStartedAt, paths, writer, ledger, logger, progress, archive, client, close };
  } catch (err) {
    await close();
    throw err;
  }
}
