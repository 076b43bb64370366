/**
 * Publishes the job's working warehouse for readers.
 *
 * DuckDB lets one process hold a database file: a reader that keeps the file open (even read-only) makes a
 * writer's open fail, and a writer blocks every reader. So the job never opens the published file. It copies its
 * own checkpointed working file to a side file, adds the curated views there, checkpoints and closes it, and
 * renames it over the published path. rename(2) is atomic: a reader that already holds the old file keeps reading
 * its snapshot (its inode), and a reader that opens the path afterwards sees the new one, never a half-written file.
 */
import { copyFile, rename, rm, mkdir, constants as fsConstants } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type StorageOptions } from '../load/database.js';

/** The storage options are the working file's (openDatabase): a checkpoint with others rewrites its tables. */
export interface PublishOptions extends StorageOptions {
  /** The job's working database; it must be closed (or checkpointed with no open writes) before publishing. */
  workPath: string;
  /** Where readers look, e.g. data/warehouse.duckdb. */
  publishedPath: string;
  /** SQL statements run in the published copy only (curated views, comments). */
  statements?: readonly string[];
  /** Called with the finished side file just before it is renamed over the published path (tests pause here). */
  beforeRename?: (side: string) => Promise<void>;
}

export interface PublishResult { publishedPath: string; bytes: number; statements: number }

export async function publishWarehouse(opts: PublishOptions): Promise<PublishResult> {
  if (!existsSync(opts.workPath)) throw new Error(`nothing to publish: ${opts.workPath} does not exist`);
  await mkdir(path.dirname(opts.publishedPath), { recursive: true });
  const side = `${opts.publishedPath}.publishing-${process.pid}`;
  await rm(side, { force: true });
  await rm(`${side}.wal`, { force: true });
  try {
    // FICLONE makes the copy a reflink where the file system allows it, a plain copy elsewhere.
    await copyFile(opts.workPath, side, fsConstants.COPYFILE_FICLONE);
    const { instance, connection: conn } = await openDatabase(side, { rowGroupSize: opts.rowGroupSize, mergeRowGroups: opts.mergeRowGroups });
    try {
      for (const sql of opts.statements ?? []) await conn.run(sql);
      await conn.run('CHECKPOINT');
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    await rm(`${side}.wal`, { force: true });
    await opts.beforeRename?.(side);
    await rename(side, opts.publishedPath);
  } catch (err) {
    await rm(side, { force: true });
    throw err;
  }
  const { size } = await import('node:fs').then((fs) => fs.statSync(opts.publishedPath));
  return { publishedPath: opts.publishedPath, bytes: size, statements: opts.statements?.length ?? 0 };
}

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
