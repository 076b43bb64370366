/**
 * The destination seam: after a run has loaded and exported its rows, each destination publishes them. The
 * working warehouse is closed by then, so a destination reads the published DuckDB file or the run's Parquet
 * files, never the job's own connections; collection and loading know nothing of destinations.
 */
import type { Config } from '../config/index.js';
import type { PauseHook } from '../pause.js';
import { curatedViews } from './views.js';
import { publishWarehouse, type WarehousePaths } from './index.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';

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
}

export interface Destination {
  readonly name: string;
  publish(run: RunInfo, changes: Changes): Promise<void>;
}

/** The DuckDB file readers open: a copy of the working warehouse with the curated views, renamed into place. */
export function duckdbDestination(paths: WarehousePaths, pause: PauseHook): Destination {
  return {
    name: 'duckdb',
    publish: async (_run, changes) => {
      await publishWarehouse({ workPath: changes.warehouse, publishedPath: paths.published, statements: curatedViews(), ...WAREHOUSE_STORAGE, beforeRename: () => pause('publish') });
    },
  };
}

/** Every destination a run publishes to, the DuckDB file first (what `seo-etl tables` and notebooks read). */
export function destinationsFor(_config: Config, paths: WarehousePaths, pause: PauseHook): Destination[] {
  return [duckdbDestination(paths, pause)];
}
