/** The data folder's layout: every stage finds its files under the configured folder (warehouse.dir) by these names. */
import path from 'node:path';

/** Where everything lives under the configured data folder (warehouse.dir). */
export interface WarehousePaths {
  dir: string;
  /** The job's working warehouse. */
  work: string;
  /** What readers open. */
  published: string;
  /** The raw archive. */
  raw: string;
  parquet: string;
}

export function warehousePaths(dataDir: string): WarehousePaths {
  return { dir: dataDir, work: path.join(dataDir, 'work', 'warehouse.duckdb'), published: path.join(dataDir, 'warehouse.duckdb'), raw: path.join(dataDir, 'raw'), parquet: path.join(dataDir, 'parquet') };
}
