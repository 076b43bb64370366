/**
 * The working file merges under-full row groups at the writer's checkpoints (Warehouse.mergingCheckpoint, called by
 * the writer's rests and Writer.close), boundedly; a checkpoint without merges (DuckDB's own) leaves a row group per
 * table each: unmerged they made a year of small nights several times the published file, and a night's process
 * kept each group's metadata in memory.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../../src/load/database.js';
import { Writer } from '../../src/load/writer.js';
import { keywordTask } from '../normalize/fixtures.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-merge-checkpoint-'));
let wh: Warehouse | undefined;
afterAll(() => {
  wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the checkpoint a run ends with', () => {
  it('merges the row groups earlier checkpoints left, keeps every row, and leaves merging off for the next ones', async () => {
    wh = await Warehouse.open(path.join(dir, 'w.duckdb'), WAREHOUSE_STORAGE);
    await wh.ensureSchema();
    const groups = async () => Number((await wh!.connection.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('keyword_data__monthly_searches')`)).getRows()[0][0]);
    const rows = async () => Number((await wh!.connection.runAndReadAll(`SELECT count(*) FROM keyword_data__monthly_searches`)).getRows()[0][0]);
    const vacuumTasks = async () => Number((await wh!.connection.runAndReadAll(`SELECT current_setting('max_vacuum_tasks')`)).getRows()[0][0]);
    for (let i = 0; i < 3; i++) {
      await wh.loadTasks([keywordTask(`K${i}`, 5, i + 1)], { runId: `r${i}` });
      expect(await wh.checkpoint(128e6, '256MB')).toBe(true);
    }
    expect(await groups()).toBe(3); // a night's checkpoints: a group each
    const before = await rows();
    await wh.loadTasks([keywordTask('K3', 5, 4)], { runId: 'r3' });
    expect(await wh.mergingCheckpoint(128e6, '256MB')).toBe(true);
    expect(await groups()).toBe(1);
    const added = Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM keyword_data__monthly_searches WHERE _run_id = 'r3'`)).getRows()[0][0]);
    expect(added).toBeGreaterThan(0);
    expect(await rows()).toBe(before + added);
    expect(await vacuumTasks()).toBe(0);
    // The next ordinary checkpoint does not merge again.
    await wh.loadTasks([keywordTask('K4', 5, 5)], { runId: 'r4' });
    expect(await wh.checkpoint(128e6, '256MB')).toBe(true);
    expect(await groups()).toBe(2);
  });

  it("the writer's rests merge too: a night of many loads keeps a table at a row group or two", async () => {
    // A checkpoint after every load (the WAL seam at 1 byte), as a night of large answers has.
    const w = await Writer.open(path.join(dir, 'night.duckdb'), '256MB', { checkpointWalBytes: 1 });
    try {
      for (let i = 0; i < 8; i++) await w.load([keywordTask(`N${i}`, 5, i + 1)], { runId: 'night', engines: [], inTransaction: async () => undefined });
      const [[groups]] = await w.query(`SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('keyword_data__monthly_searches')`);
      const [[rows]] = await w.query(`SELECT count(*) FROM keyword_data__monthly_searches`);
      // Unmerged, each of the 8 checkpoints would have left a group of its own.
      expect(Number(groups)).toBeLessThanOrEqual(2);
      expect(Number(rows)).toBeGreaterThan(0);
      const [[vacuum]] = await w.query(`SELECT current_setting('max_vacuum_tasks')`);
      expect(Number(vacuum)).toBe(0); // DuckDB's own checkpoints still do not merge
    } finally {
      await w.close();
    }
  });
});

describe('a warehouse file\'s storage format', () => {
  it('is DuckDB 1.4\'s in a new file; a file made before keeps its own', async () => {
    // In an older format DuckDB rewrites the metadata of every row group of a table its merge touched, at each
    // publish: a cost that grows with the history (docs/journal/performance-2026-11-22-to-2026-11-27.md, "The publish's merge").
    const format = async (w: Warehouse) => String((await w.connection.runAndReadAll(`SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()`)).getRows()[0][0]);
    const fresh = await Warehouse.open(path.join(dir, 'fresh.duckdb'), WAREHOUSE_STORAGE);
    try {
      expect(await format(fresh)).toBe('v1.4.0+');
    } finally {
      fresh.close();
    }
    const old = await Warehouse.open(path.join(dir, 'old.duckdb'), { ...WAREHOUSE_STORAGE, storageVersion: 'v1.3.0' });
    old.close();
    const reopened = await Warehouse.open(path.join(dir, 'old.duckdb'), WAREHOUSE_STORAGE);
    try {
      expect(await format(reopened)).toBe('v1.3.0+');
    } finally {
      reopened.close();
    }
  });
});
