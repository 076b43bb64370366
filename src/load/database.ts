/**
 * Opens a warehouse file for writing. DuckDB takes a row group size only as an ATTACH option, for that attachment,
 * and merges under-full row groups at any checkpoint unless told not to: so every writer of a warehouse (the job,
 * reprocess, ingest, publish) opens it here with WAREHOUSE_STORAGE.
 */
import { existsSync } from 'node:fs';
import type { DuckDBInstance, DuckDBConnection } from '@duckdb/node-api';
import { rowGroupSizeProblem } from '../config/index.js';
import { createDuckdb } from './threads.js';
import { lit } from '../catalog/quote.js';

/** The name the warehouse file is attached under, and every connection's default catalog. */
export const WAREHOUSE_CATALOG = 'warehouse';

/** How a warehouse file is stored: every writer of one file must give the same. */
export interface StorageOptions {
  /** Rows per row group of new data; DuckDB's default when omitted. */
  rowGroupSize?: number;
  /** false keeps DuckDB from merging under-full row groups at a checkpoint (its vacuum); merged when omitted. */
  mergeRowGroups?: boolean;
  /** Bytes per block of a file created now (DuckDB's 262,144 when omitted); a file keeps the size it was made with. */
  blockSize?: number;
  /**
   * The oldest DuckDB release whose storage format a file created now uses (DuckDB's v1.0.0 when omitted): what a
   * reader needs at least. A file keeps the format it was made with.
   */
  storageVersion?: string;
}

export interface OpenDatabaseOptions extends StorageOptions {
  /** DuckDB settings for the instance (memory_limit, threads, checkpoint_threshold). */
  settings?: Record<string, string>;
}

/**
 * How every writer stores the warehouse. Small row groups keep a checkpoint's rewrite small; no merging by DuckDB's
 * own checkpoints, because an unbounded merge rewrites row groups outside DuckDB's memory limit (the writer's own
 * checkpoints merge, boundedly: Warehouse.mergingCheckpoint); blocks of 64 KiB, because without merges every
 * checkpoint leaves each table it touched a block of its own, and a year of small nights left mostly empty 256 KiB
 * blocks; DuckDB 1.4's format: 1.3's dictionary-and-FSST strings (a night's file 21.8 -> 17.8 MB with derived ids),
 * and a merging checkpoint that keeps the metadata of the row groups it leaves alone, where in an older format a
 * merge in a table rewrote all its row groups' metadata, a cost that grew with the history (docs/journal/performance-2026-11-22-to-2026-11-27.md).
 */
export const WAREHOUSE_STORAGE: Readonly<StorageOptions> = { rowGroupSize: 32_768, mergeRowGroups: false, blockSize: 65_536, storageVersion: 'v1.4.0' };

export interface OpenedDatabase {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
}

/** Opens (creating) `file`, or an in-memory database for `:memory:`, attached as WAREHOUSE_CATALOG. */
export async function openDatabase(file: string, opts: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  const settings: Record<string, string> = { ...opts.settings };
  // The instance's own database is in memory, whose spill folder would be `.tmp` in the working directory: keep
  // it beside the file, where DuckDB puts it for a database opened directly.
  if (file !== ':memory:' && !settings.temp_directory) settings.temp_directory = `${file}.tmp`;
  if (opts.mergeRowGroups === false) settings.max_vacuum_tasks = '0';
  const problem = opts.rowGroupSize === undefined ? undefined : rowGroupSizeProblem(opts.rowGroupSize);
  if (problem) throw new Error(`row group size: ${problem}`);
  const instance = await createDuckdb(':memory:', settings);
  try {
    const connection = await instance.connect();
    const attach = [
      ...(opts.rowGroupSize === undefined ? [] : [`ROW_GROUP_SIZE ${opts.rowGroupSize}`]),
      ...(opts.blockSize === undefined || file === ':memory:' || existsSync(file) ? [] : [`BLOCK_SIZE ${opts.blockSize}`]),
      ...(opts.storageVersion === undefined || file === ':memory:' || existsSync(file) ? [] : [`STORAGE_VERSION '${opts.storageVersion}'`]),
    ];
    const options = attach.length ? ` (${attach.join(', ')})` : '';
    await connection.run(`ATTACH ${lit(file)} AS ${WAREHOUSE_CATALOG}${options}`);
    await connection.run(`USE ${WAREHOUSE_CATALOG}`);
    return { instance, connection };
  } catch (err) {
    instance.closeSync();
    throw err;
  }
}

/** Another connection to an opened database; its default catalog is the warehouse, as the first one's. */
export async function connectTo(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run(`USE ${WAREHOUSE_CATALOG}`);
  return connection;
}
