/**
 * The working file merges under-full row groups only at the checkpoint a run ends with (Warehouse.mergingCheckpoint,
 * called by Writer.close): the night's own checkpoints leave a row group per table each, and unmerged they made a
 * year of small nights several times the published file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../../src/load/database.js';
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
});

describe('a warehouse file\'s storage format', () => {
  it('is DuckDB 1.4\'s in a new file; a file made before keeps its own', async () => {
    // In an older format DuckDB rewrites the metadata of every row group of a table its merge touched, at each
    // publish: a cost that grows with the history (docs/performance.md, "The publish's merge").
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
