/**
 * The destination seam: after a run has loaded and exported its rows, each destination publishes them. The
 * working warehouse is closed by then, so a destination reads the published DuckDB file or the run's Parquet
 * files, never the job's own connections; collection and loading know nothing of destinations.
 */
import type { Config } from '../config/index.js';
import { noPause, type PauseHook } from '../pause.js';
import { curatedViews } from './views.js';
import { publishWarehouse } from './index.js';
import type { WarehousePaths } from '../config/data-paths.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import type { PostgresOutcome } from './postgres/index.js';
import { redactUrl } from './postgres/config.js';
import { EXIT } from '../exit.js';
import { serviceOf } from '../config/service.js';
import { DestinationHeldError, holderOf, holderRefusal, type Holder } from './holder.js';
import type { LakeOutcome } from './lake/index.js';

// The PostgreSQL and lake destinations load their clients (pg, the AWS SDK) only when configured: a run without
// them starts about a second sooner on a loaded machine.
const postgresModule = () => import('./postgres/index.js');
const lakeModule = () => import('./lake/index.js');

export interface RunInfo {
  runId: string;
  runDate: string;
  status: 'completed' | 'stopped_budget' | 'aborted';
}

export interface Changes {
  /** The closed, checkpointed working warehouse (every table; this run's rows have `_run_id` = runId). */
  warehouse: string;
  /** This run's Parquet files, by table. */
  parquet: readonly { table: string; file: string; rows: number }[];
  /** Rows this run loaded, by table (a re-collected task's rows replace its earlier ones). */
  rows: Readonly<Record<string, number>>;
  /** Every table was rebuilt (reprocess): no run's changes can be applied alone. */
  rebuilt?: boolean;
}

/**
 * What a destination did. The DuckDB file is the source of truth: its failure throws; another's is an outcome,
 * with the summary's line for it (`line`).
 */
export type DestinationOutcome =
  | { name: 'duckdb'; mode: 'applied' | 'copied'; reason?: string }
  | { name: 'postgres'; outcome: PostgresOutcome; line?: string }
  | { name: 'lake'; outcome: LakeOutcome; line?: string };

export interface Destination {
  readonly name: DestinationOutcome['name'];
  publish(run: RunInfo, changes: Changes): Promise<DestinationOutcome>;
  /**
   * A destination shared beyond this data folder refuses (DestinationHeldError, exit 2) when it holds another
   * data folder's or service kind's data (src/publish/holder.ts): `verifyHolder` does it from what it records.
   */
  verify?(): Promise<void>;
}

/** Who publishes, and whether to replace what another data folder or service kind published (on purpose). */
export interface Claim { holder: Holder; takeOver: boolean }

export interface DestinationLogger { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void }

/** The DuckDB file readers open: the run's changes applied to it in place, or a copy of the working warehouse (src/publish/index.ts). */
export function duckdbDestination(paths: WarehousePaths, pause: PauseHook, logger?: DestinationLogger): Destination {
  return {
    name: 'duckdb',
    publish: async (run, changes) => {
      const r = await publishWarehouse({ workPath: changes.warehouse, publishedPath: paths.published, statements: curatedViews, ...WAREHOUSE_STORAGE, runId: run.runId, rebuilt: changes.rebuilt, beforeRename: () => pause('publish') });
      logger?.info({ mode: r.mode, reason: r.reason, bytes: r.bytes }, r.mode === 'applied' ? 'published the run\'s changes to the DuckDB file' : 'published a copy of the working warehouse');
      return { name: 'duckdb', mode: r.mode, ...(r.reason ? { reason: r.reason } : {}) };
    },
  };
}

/** The PostgreSQL schema BI tools read (src/publish/postgres): what changed since its last publish, in one transaction. */
export function postgresDestination(pg: Config['postgres'], claim: Claim, logger?: DestinationLogger, pause: PauseHook = noPause): Destination {
  return {
    name: 'postgres',
    verify: async () => {
      const { readPostgresHolder } = await postgresModule();
      await verifyHolder(() => readPostgresHolder(pg.url, pg.schema), claim, `PostgreSQL schema ${pg.schema} at ${redactUrl(pg.url)}`);
    },
    publish: async (run, changes) => {
      const { publishToPostgres, describeOutcome } = await postgresModule();
      const outcome = await publishToPostgres({ url: pg.url, schema: pg.schema, warehouse: changes.warehouse, runId: run.runId, logger, beforeCommit: () => pause('postgres'), ...claim });
      return { name: 'postgres', outcome, line: describeOutcome(outcome) };
    },
  };
}

/** The lake on S3-protocol object storage (src/publish/lake): the Parquet export and the raw archive, manifests last. */
export function lakeDestination(url: string, paths: WarehousePaths, env: NodeJS.ProcessEnv, claim: Claim, pause: PauseHook, logger?: DestinationLogger): Destination {
  return {
    name: 'lake',
    verify: async () => {
      const { readLakeHolder } = await lakeModule();
      await verifyHolder(() => readLakeHolder(url, env), claim, `the lake at ${url}`);
    },
    publish: async () => {
      const { publishToLake, describeLake } = await lakeModule();
      const outcome = await publishToLake({ url, paths, env, logger, pause: (step) => pause('lake', step), ...claim });
      return { name: 'lake', outcome, line: describeLake(outcome) };
    },
  };
}

/** Every destination a run publishes to, the DuckDB file first (what `seo-etl tables` and notebooks read). */
export function destinationsFor(config: Config, paths: WarehousePaths, pause: PauseHook, logger?: DestinationLogger, opts: { takeOver?: boolean; env?: NodeJS.ProcessEnv } = {}): Destination[] {
  const claim: Claim = { holder: holderOf(paths.dir, serviceOf(config.api.base_url).kind), takeOver: opts.takeOver === true };
  const env = opts.env ?? process.env; // the lake's AWS variables
  return [
    duckdbDestination(paths, pause, logger),
    ...(config.postgres.url ? [postgresDestination(config.postgres, claim, logger, pause)] : []),
    ...(config.lake.url ? [lakeDestination(config.lake.url, paths, env, claim, pause, logger)] : []),
  ];
}

/**
 * Throws DestinationHeldError (exit 2) when what a destination holds (read by `read`; undefined: nothing yet) is
 * another's and the claim does not take it over. One that cannot be read now is left to its publish, which checks
 * again inside its own lock and reports.
 */
export async function verifyHolder(read: () => Promise<Holder | undefined>, claim: Claim, where: string): Promise<void> {
  if (claim.takeOver) return;
  let held: Holder | undefined;
  try { held = await read(); } catch { return; }
  const why = holderRefusal(held, claim.holder, where);
  if (why) throw new DestinationHeldError(why);
}

/** Run before anything is posted: every destination that can refuse this data folder does so now. */
export async function verifyDestinations(destinations: readonly Destination[]): Promise<void> {
  for (const d of destinations) await d.verify?.();
}

/** Publishes to each destination in turn. */
export async function publishAll(destinations: readonly Destination[], run: RunInfo, changes: Changes): Promise<DestinationOutcome[]> {
  const out: DestinationOutcome[] = [];
  for (const d of destinations) out.push(await d.publish(run, changes));
  return out;
}

/** The summary's lines for destinations beyond the DuckDB file. */
export function describeDestinations(outcomes: readonly DestinationOutcome[]): string[] {
  return outcomes.flatMap((o) => (o.name !== 'duckdb' && o.line ? [o.line] : []));
}

/**
 * EXIT.postgres, else EXIT.lake, when a destination failed, else `otherwise`: a run whose own exit is not 0 keeps
 * its code (the summary names every failed destination either way).
 */
export function exitWithDestinations(otherwise: number, outcomes: readonly DestinationOutcome[]): number {
  if (outcomes.some((o) => (o.name === 'postgres' || o.name === 'lake') && o.outcome.status === 'refused')) return EXIT.badInput;
  if (otherwise !== EXIT.ok) return otherwise;
  if (outcomes.some((o) => o.name === 'postgres' && o.outcome.status === 'failed')) return EXIT.postgres;
  if (outcomes.some((o) => o.name === 'lake' && o.outcome.status === 'failed')) return EXIT.lake;
  return otherwise;
}

/** The destinations whose publish failed (the DuckDB file's failure throws instead). Pure. */
export function failedDestinations(outcomes: readonly DestinationOutcome[]): string[] {
  return outcomes.flatMap((o) => ((o.name === 'postgres' || o.name === 'lake') && o.outcome.status === 'failed' ? [o.name] : []));
}

export const lakeOutcomeOf = (outcomes: readonly DestinationOutcome[]): LakeOutcome | undefined =>
  outcomes.flatMap((o) => (o.name === 'lake' ? [o.outcome] : []))[0];

export const postgresOutcomeOf = (outcomes: readonly DestinationOutcome[]): PostgresOutcome | undefined =>
  outcomes.flatMap((o) => (o.name === 'postgres' ? [o.outcome] : []))[0];
