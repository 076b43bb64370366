/**
 * Publishes the job's working warehouse for readers, in one of two ways.
 *
 * Applied (src/publish/apply.ts), the usual night: the run's changes go into the published file in place, in one
 * transaction, so the publish costs what the night changed. While that transaction runs (seconds) the job holds the
 * file, and a reader opening it meanwhile gets DuckDB's lock error and tries again.
 *
 * Copied, when a change cannot be applied (the first publish, a reprocess, a new table or column, or a reader
 * holding the published file open, which keeps any writer out): the job copies its own checkpointed working file to
 * a side file, adds the curated views there, checkpoints and closes it, and renames it over the published path.
 * rename(2) is atomic: a reader that already holds the old file keeps reading its snapshot (its inode), and a reader
 * that opens the path afterwards sees the new one, never a half-written file. This costs a copy of the whole file.
 */
import { copyFile, rename, rm, mkdir, constants as fsConstants } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type StorageOptions } from '../load/database.js';
import { addColumnComments, applyRun, fingerprintSql } from './apply.js';
import { heldTables } from './held-tables.js';
import type { TableDef } from '../catalog/table.js';

/** The storage options are the working file's (openDatabase): a checkpoint with others rewrites its tables. */
export interface PublishOptions extends StorageOptions {
  /** The job's working database; it must be closed (or checkpointed with no open writes) before publishing. */
  workPath: string;
  /** Where readers look, e.g. data/warehouse.duckdb. */
  publishedPath: string;
  /**
   * SQL statements run in the published copy only (curated views, comments), for the catalog tables the working
   * file holds (heldTables); given, the descriptions of the columns of every table holding rows are added after
   * them (missingColumnComments).
   */
  statements?: (tables: readonly TableDef[]) => readonly string[];
  /**
   * Called just before the new state becomes visible: with the finished side file before it is renamed over the
   * published path, or with the published path before the applied transaction commits (tests pause here).
   */
  beforeRename?: (side: string) => Promise<void>;
  /** The run whose changes to apply in place; without it the working file is copied. */
  runId?: string;
  /** The working file was rebuilt (reprocess): copied, since its rows changed under every run. */
  rebuilt?: boolean;
}

export interface PublishResult {
  publishedPath: string;
  bytes: number;
  statements: number;
  /** Applied in place, or copied whole; `reason` says why a run's changes were not applied. */
  mode: 'applied' | 'copied';
  reason?: string;
}

export async function publishWarehouse(opts: PublishOptions): Promise<PublishResult> {
  if (!existsSync(opts.workPath)) throw new Error(`nothing to publish: ${opts.workPath} does not exist`);
  await mkdir(path.dirname(opts.publishedPath), { recursive: true });
  let reason: string | undefined;
  if (opts.runId !== undefined && !opts.rebuilt) {
    const r = await applyRun({ workPath: opts.workPath, publishedPath: opts.publishedPath, runId: opts.runId, statements: opts.statements, rowGroupSize: opts.rowGroupSize, beforeCommit: () => opts.beforeRename?.(opts.publishedPath) ?? Promise.resolve() });
    if (r.applied) return { publishedPath: opts.publishedPath, bytes: statSync(opts.publishedPath).size, statements: r.statements, mode: 'applied' };
    reason = r.reason;
  } else if (opts.rebuilt) {
    reason = 'the working file was rebuilt';
  }
  const side = `${opts.publishedPath}.publishing-${process.pid}`;
  await rm(side, { force: true });
  await rm(`${side}.wal`, { force: true });
  let statements: readonly string[] = [];
  try {
    // FICLONE makes the copy a reflink where the file system allows it, a plain copy elsewhere.
    await copyFile(opts.workPath, side, fsConstants.COPYFILE_FICLONE);
    const { instance, connection: conn } = await openDatabase(side, { rowGroupSize: opts.rowGroupSize, mergeRowGroups: opts.mergeRowGroups });
    try {
      statements = opts.statements?.(await heldTables(conn)) ?? [];
      for (const sql of statements) await conn.run(sql);
      if (statements.length) {
        await conn.run(fingerprintSql(statements));
        await addColumnComments(conn);
      }
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
  return { publishedPath: opts.publishedPath, bytes: statSync(opts.publishedPath).size, statements: statements.length, mode: 'copied', ...(reason ? { reason } : {}) };
}

