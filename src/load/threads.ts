/**
 * How many threads each DuckDB instance of this process runs (`warehouse.threads`): DuckDB's default is one per
 * core, which a nightly job on a shared machine may not want. Set once by the command from its configuration;
 * every instance the job opens (warehouse, publish, report, destinations) is created here.
 */
import { DuckDBInstance } from '@duckdb/node-api';

let threads = 0;

/** 0 keeps DuckDB's default. */
export function useDuckdbThreads(n: number): void {
  threads = n;
}

/** What `warehouse.threads` asked for (0: DuckDB's default); 1 also keeps an archive load on one thread. */
export function duckdbThreads(): number {
  return threads;
}

/** DuckDBInstance.create with the process's thread count, unless `settings` names its own. */
export function createDuckdb(path: string, settings: Record<string, string> = {}): Promise<DuckDBInstance> {
  return DuckDBInstance.create(path, threads > 0 && settings.threads === undefined ? { ...settings, threads: String(threads) } : settings);
}
