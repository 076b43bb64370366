import { describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { publishWarehouse } from '../../src/publish/index.js';
import { openDatabase } from '../../src/load/database.js';
import { startDuckdbReader } from '../helpers/duckdb-reader.js';

async function makeWork(file: string, n: number) {
  const i = await DuckDBInstance.create(file);
  const c = await i.connect();
  await c.run(`CREATE OR REPLACE TABLE t AS SELECT range AS x FROM range(${n})`);
  await c.run('CHECKPOINT');
  c.closeSync();
  i.closeSync();
}

async function count(file: string, sql = 'SELECT count(*)::INT FROM t'): Promise<number> {
  const i = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const c = await i.connect();
  try { return (await c.runAndReadAll(sql)).getRows()[0][0] as number; } finally { c.closeSync(); i.closeSync(); }
}

describe('publish', () => {
  test('a reader holding the published file keeps its snapshot and never blocks a publish', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pub-'));
    const work = path.join(dir, 'work.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    await makeWork(work, 10);
    await publishWarehouse({ workPath: work, publishedPath: published, statements: () => ['CREATE VIEW v AS SELECT x * 2 AS y FROM t'] });
    const reader = startDuckdbReader(published, 'SELECT count(*)::INT FROM t');
    expect(await reader.opened).toBe('open');
    expect(await reader.ask()).toBe('10');

    await makeWork(work, 25);
    await publishWarehouse({ workPath: work, publishedPath: published, statements: () => ['CREATE VIEW v AS SELECT x * 2 AS y FROM t'] });
    expect(await reader.ask()).toBe('10'); // the old snapshot, whole
    expect(await count(published)).toBe(25); // a new reader sees the new one
    expect(await count(published, 'SELECT max(y)::INT FROM v')).toBe(48);
    await reader.quit();
  });

  test('a warehouse stored in small row groups is published in them; a publish without the size would merge them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pub-'));
    const work = path.join(dir, 'work.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    const { instance, connection } = await openDatabase(work, { rowGroupSize: 2048 });
    await connection.run('CREATE TABLE t AS SELECT range AS x FROM range(10000)');
    await connection.run('CHECKPOINT');
    connection.closeSync();
    instance.closeSync();
    const groups = `SELECT count(DISTINCT row_group_id)::INT FROM pragma_storage_info('t')`;
    expect(await count(work, groups)).toBe(5);
    await publishWarehouse({ workPath: work, publishedPath: published, rowGroupSize: 2048, statements: () => ['CREATE VIEW v AS SELECT x FROM t'] });
    expect(await count(published, groups)).toBe(5);
    expect(await count(published)).toBe(10000);
    // What the size passed on prevents: DuckDB rewrites the whole table at the publish's checkpoint.
    await publishWarehouse({ workPath: work, publishedPath: published, statements: () => ['CREATE VIEW v AS SELECT x FROM t'] });
    expect(await count(published, groups)).toBe(1);
  });

  test('a warehouse whose row groups are not merged is published without merging them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pub-'));
    const work = path.join(dir, 'work.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    const storage = { rowGroupSize: 32768, mergeRowGroups: false };
    const { instance, connection } = await openDatabase(work, storage);
    // A row group per checkpoint, as a night's loads leave them.
    await connection.run('CREATE TABLE t (x BIGINT)');
    for (let i = 0; i < 4; i++) {
      await connection.run(`INSERT INTO t SELECT range FROM range(${i * 1000}, ${(i + 1) * 1000})`);
      await connection.run('CHECKPOINT');
    }
    connection.closeSync();
    instance.closeSync();
    const groups = `SELECT count(DISTINCT row_group_id)::INT FROM pragma_storage_info('t')`;
    await publishWarehouse({ workPath: work, publishedPath: published, ...storage, statements: () => ['CREATE VIEW v AS SELECT x FROM t'] });
    expect(await count(published, groups)).toBe(4);
    expect(await count(published)).toBe(4000);
    // With DuckDB's merging on, the publish's checkpoint (only a view added) merges them.
    await publishWarehouse({ workPath: work, publishedPath: published, rowGroupSize: 32768, statements: () => ['CREATE VIEW v AS SELECT x FROM t'] });
    expect(await count(published, groups)).toBeLessThan(4);
  });

  test('publishing nothing is an error, and a failed statement leaves the published file as it was', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pub-'));
    const work = path.join(dir, 'work.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    await expect(publishWarehouse({ workPath: work, publishedPath: published })).rejects.toThrow(/nothing to publish/);
    await makeWork(work, 3);
    await publishWarehouse({ workPath: work, publishedPath: published });
    await makeWork(work, 7);
    await expect(publishWarehouse({ workPath: work, publishedPath: published, statements: () => ['SELECT * FROM no_such_table'] })).rejects.toThrow();
    expect(await count(published)).toBe(3);
  });
});
