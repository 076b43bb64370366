/**
 * The DuckDB file's publish applies a run's changes in place (src/publish/apply.ts): after each publish the
 * published file holds exactly the working file's rows, a re-collected task's rows replace its earlier ones, a
 * publish that fails before COMMIT leaves the published file as it was, and a reader holding the file open makes
 * the publish fall back to the copy and rename, keeping its snapshot, as a rebuilt (reprocessed) working file does.
 */
import { describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { publishWarehouse } from '../../src/publish/index.js';
import { curatedViews } from '../../src/publish/views.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../../src/load/database.js';
import { loadArchiveFiles } from '../../src/load/archive-load.js';
import { nightRunId, recordRun, writeSerpNight } from '../../src/bench/serp-nights.js';
import { startDuckdbReader } from '../helpers/duckdb-reader.js';
import { keywordTask } from '../normalize/fixtures.js';
import { TABLE_BY_NAME } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';

const KEYWORDS = 5;

/** Loads night `night` (or a re-collection of it under `runId`) into the working file, as a run does, and closes it. */
async function loadNight(dir: string, work: string, night: number, opts: { recollect?: boolean; runId?: string } = {}): Promise<string> {
  const runId = opts.runId ?? nightRunId(night);
  const files = await writeSerpNight(path.join(dir, 'raw'), night, KEYWORDS, { ...opts, runId });
  const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
  try {
    await wh.ensureSchema();
    await loadArchiveFiles(wh, files, { runId, loadedAt: new Date(Date.UTC(2025, 0, 1 + night, 3)) });
    await recordRun(wh.connection, runId, night);
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
  return runId;
}

/** Per table of the working file: rows only there and rows only in the published file (both 0 when equal). */
async function differences(work: string, published: string): Promise<Record<string, { rows: number; onlyWork: number; onlyPublished: number }>> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`ATTACH '${work}' AS w (READ_ONLY)`);
    await c.run(`ATTACH '${published}' AS p (READ_ONLY)`);
    const tables = (await c.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'w' ORDER BY 1`)).getRows().map((r) => String(r[0]));
    const counts = (await c.runAndReadAll(tables.map((t) => `SELECT '${t}', (SELECT count(*) FROM w."${t}"), (SELECT count(*) FROM p."${t}")`).join(' UNION ALL '))).getRows();
    const one = async (sql: string) => Number((await c.runAndReadAll(sql)).getRows()[0][0]);
    const out: Record<string, { rows: number; onlyWork: number; onlyPublished: number }> = {};
    for (const [t, w, p] of counts as [string, bigint, bigint][]) {
      if (w === 0n && p === 0n) continue; // both empty: equal
      const cols = (await c.runAndReadAll(`SELECT column_name FROM duckdb_columns() WHERE database_name = 'w' AND table_name = '${t}' ORDER BY column_index`)).getRows().map((r) => `"${r[0]}"`).join(', ');
      out[t] = {
        rows: Number(w),
        onlyWork: await one(`SELECT count(*) FROM (SELECT ${cols} FROM w."${t}" EXCEPT ALL SELECT ${cols} FROM p."${t}")`),
        onlyPublished: await one(`SELECT count(*) FROM (SELECT ${cols} FROM p."${t}" EXCEPT ALL SELECT ${cols} FROM w."${t}")`),
      };
    }
    return out;
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

function expectEqual(d: Awaited<ReturnType<typeof differences>>) {
  expect(Object.keys(d)).toContain('serp_results__items');
  for (const [t, v] of Object.entries(d)) expect(v, t).toEqual({ rows: v.rows, onlyWork: 0, onlyPublished: 0 });
}

const publish = (work: string, published: string, runId: string, extra: Partial<Parameters<typeof publishWarehouse>[0]> = {}) =>
  publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews(), ...WAREHOUSE_STORAGE, runId, ...extra });

async function items(file: string): Promise<number> {
  const i = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const c = await i.connect();
  try { return Number((await c.runAndReadAll('SELECT count(*) FROM serp_results__items')).getRows()[0][0]); } finally { c.closeSync(); i.closeSync(); }
}

describe('publishing a run by applying its changes', () => {
  test('each night is applied in place and the published file equals the working one; a re-collection replaces rows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-apply-'));
    const work = path.join(dir, 'work', 'warehouse.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    const r0 = await loadNight(dir, work, 0);
    expect(await publish(work, published, r0)).toMatchObject({ mode: 'copied', reason: 'nothing published yet' });
    const r1 = await loadNight(dir, work, 1);
    expect((await publish(work, published, r1)).mode).toBe('applied');
    expectEqual(await differences(work, published));

    // Night 0's tasks collected again by a later run with other results: their rows move to that run.
    const before = await items(published);
    const r2 = await loadNight(dir, work, 0, { recollect: true, runId: 'recollect-run' });
    expect((await publish(work, published, r2)).mode).toBe('applied');
    const d = await differences(work, published);
    expectEqual(d);
    expect(await items(published)).toBe(d.serp_results__items.rows);
    expect(d.serp_results__items.rows).not.toBe(0);
    expect(before).toBeGreaterThan(0);

    // A run published twice (resume after a crash past its publish) changes nothing.
    expect((await publish(work, published, r1)).mode).toBe('applied');
    expectEqual(await differences(work, published));
    // Views run again only when they changed (a new release): a changed set is applied with the rows.
    const probe = 'CREATE OR REPLACE VIEW v_probe AS SELECT count(*) AS n FROM serp_results__items';
    expect((await publish(work, published, r1, { statements: [...curatedViews(), probe] })).mode).toBe('applied');
    const i = await DuckDBInstance.create(published, { access_mode: 'READ_ONLY' });
    const c = await i.connect();
    try {
      expect(Number((await c.runAndReadAll('SELECT n FROM v_probe')).getRows()[0][0])).toBe(d.serp_results__items.rows);
    } finally { c.closeSync(); i.closeSync(); }
  });

  test('every table carries its description; its columns get theirs with its first rows, copied or applied', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-apply-'));
    const work = path.join(dir, 'work', 'warehouse.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    const comments = async () => {
      const i = await DuckDBInstance.create(published, { access_mode: 'READ_ONLY' });
      const c = await i.connect();
      try {
        const tables = (await c.runAndReadAll(`SELECT table_name, comment, estimated_size FROM duckdb_tables()`)).getRows() as [string, string | null, bigint][];
        const columns = (await c.runAndReadAll(`SELECT table_name, column_name, comment FROM duckdb_columns() WHERE table_name IN (SELECT table_name FROM duckdb_tables())`)).getRows() as [string, string, string | null][];
        return { tables, columns };
      } finally { c.closeSync(); i.closeSync(); }
    };
    const described = (cols: [string, string, string | null][], table: string) => cols.filter(([t]) => t === table).every(([, c, d]) => d === allColumns(TABLE_BY_NAME.get(table)!).find((x) => x.name === c)!.description);
    expect(await publish(work, published, await loadNight(dir, work, 0))).toMatchObject({ mode: 'copied' });
    let { tables, columns } = await comments();
    expect(tables.filter(([, comment]) => !comment).map(([t]) => t)).toEqual([]);
    const filled = tables.filter(([t, , n]) => n > 0n && TABLE_BY_NAME.has(t)).map(([t]) => t);
    expect(filled).toContain('serp_results__items');
    for (const t of filled) expect(described(columns, t), t).toBe(true);
    expect(columns.filter(([t, , d]) => t === 'keyword_data' && d !== null)).toEqual([]);

    // Keyword rows of a later run reach the empty keyword_data by an applied publish, with their columns' descriptions.
    const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
    try {
      await wh.ensureSchema();
      await wh.loadTasks([keywordTask('K1', 4, 1)], { runId: 'keywords-run' });
      await recordRun(wh.connection, 'keywords-run', 1);
      await wh.connection.run('CHECKPOINT');
    } finally {
      wh.close();
    }
    expect((await publish(work, published, 'keywords-run')).mode).toBe('applied');
    ({ columns } = await comments());
    expect(described(columns, 'keyword_data')).toBe(true);
    expect(columns.some(([t]) => t === 'keyword_data')).toBe(true);
  });

  test('a publish that fails before COMMIT leaves the published file as it was; the next one applies the run', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-apply-'));
    const work = path.join(dir, 'work', 'warehouse.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    await publish(work, published, await loadNight(dir, work, 0));
    const one = await items(published);
    const r1 = await loadNight(dir, work, 1);
    await expect(publish(work, published, r1, { beforeRename: async () => { throw new Error('killed before commit'); } })).rejects.toThrow('killed before commit');
    expect(await items(published)).toBe(one);
    // Nights that were never published are carried by the next publish (their ledger rows are not in the published
    // file): the failed one and three more, five runs in all.
    for (const n of [2, 3, 4]) await loadNight(dir, work, n);
    const r5 = await loadNight(dir, work, 5);
    expect(await publish(work, published, r5)).toMatchObject({ mode: 'applied' });
    const d = await differences(work, published);
    expectEqual(d);
    expect(await items(published)).toBe(d.serp_results__items.rows);
    expect(d.serp_results__items.rows).toBeGreaterThan(one);
  });

  test('a reader holding the published file open: the publish copies and renames, the reader keeps its snapshot', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-apply-'));
    const work = path.join(dir, 'work', 'warehouse.duckdb');
    const published = path.join(dir, 'warehouse.duckdb');
    await publish(work, published, await loadNight(dir, work, 0));
    const reader = startDuckdbReader(published, 'SELECT count(*)::INT FROM serp_results__items');
    expect(await reader.opened).toBe('open');
    const one = Number(await reader.ask());
    const r1 = await loadNight(dir, work, 1);
    const r = await publish(work, published, r1);
    expect(r).toMatchObject({ mode: 'copied', reason: 'another process holds the published file open' });
    expect(Number(await reader.ask())).toBe(one);
    expectEqual(await differences(work, published));
    expect(await items(published)).toBeGreaterThan(one);
    await reader.quit();
    // With the reader gone, the next night is applied again.
    expect((await publish(work, published, await loadNight(dir, work, 2))).mode).toBe('applied');
    expectEqual(await differences(work, published));
    // A rebuilt working file (reprocess) is copied whole.
    expect(await publish(work, published, 'reprocess-x', { rebuilt: true })).toMatchObject({ mode: 'copied', reason: 'the working file was rebuilt' });
  });
});
