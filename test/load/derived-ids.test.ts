/**
 * Result rows' `_id` is not stored: DuckDB computes it from `_task_id`, `_parent_key` and `_list_idx` (a generated
 * column, catalog.ts `derivedId`), and below the result roots `_parent_id` too (`_task_id` and `_parent_key`). What
 * a reader gets must be exactly the ids the normalizer builds, in every kind of table (result roots, nested lists
 * three deep, scalar lists, key-value entries, technologies, item-type tables), and a file of the new layout must
 * hold no text of those ids.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../../src/load/database.js';
import { normalizeTask, type CollectedTask } from '../../src/normalize/extract.js';
import { generateSerpPage } from '../../src/sandbox/families/serp/data.js';
import { table as tableDef } from '../../src/normalize/catalog.js';
import { createTableSql } from '../../src/load/ddl.js';
import { publishWarehouse } from '../../src/publish/index.js';
import { curatedViews } from '../../src/publish/views.js';
import { recordRun } from '../../src/bench/serp-nights.js';
import { keywordTask, merchantTask, technologyTask, onpageTask, eventsTask, listTasks, task, NOW } from '../normalize/fixtures.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-derived-ids-'));
let wh: Warehouse | undefined;
afterAll(() => {
  wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

function serpTask(id: string): CollectedTask {
  const params = { keyword: 'running shoes', location_code: 2840, language_code: 'en', device: 'desktop', depth: 20 };
  return task(id, 'serp.google.organic.task_get.advanced', [generateSerpPage(params, 'google', 'organic', 'advanced', 3, NOW, 20).result],
    { api: 'serp', function: 'task_get', se: 'google', se_type: 'organic', ...params });
}

function rankedTask(id: string): CollectedTask {
  const items = ['organic', 'paid', 'featured_snippet'].map((type, i) => ({
    se_type: 'google',
    keyword_data: { se_type: 'google', keyword: `kw ${i}`, location_code: 2840, language_code: 'en', keyword_info: { search_volume: 100 + i } },
    ranked_serp_element: { se_type: 'google', serp_item: { se_type: 'google', type, rank_group: i + 1, rank_absolute: i + 1, domain: 'example.com', url: `https://example.com/${i}`, title: `t ${i}` } },
  }));
  return task(id, 'dataforseo_labs.google.ranked_keywords.live', [{ se_type: 'google', target: 'example.com', location_code: 2840, language_code: 'en', total_count: 3, items_count: 3, items }],
    { api: 'dataforseo_labs', function: 'ranked_keywords', se: 'google', target: 'example.com', location_code: 2840, language_code: 'en' });
}

describe('derived row ids', () => {
  it('read back exactly as the normalizer builds them, in every table, with none of their text stored', async () => {
    const tasks = [keywordTask('K1', 6, 1), merchantTask('M1'), technologyTask('T1'), onpageTask('O1'), eventsTask('E1'), ...listTasks(), serpTask('S1'), rankedTask('R1')];
    const expected = new Map<string, string[]>();
    for (const t of tasks) {
      for (const [table, rows] of normalizeTask(t, { runId: 'r1', loadedAt: new Date(NOW) })) {
        const ids = expected.get(table) ?? [];
        for (const r of rows) ids.push(`${String(r._id)} < ${String(r._parent_id ?? '')}`);
        expected.set(table, ids);
      }
    }
    wh = await Warehouse.open(path.join(dir, 'w.duckdb'), WAREHOUSE_STORAGE);
    await wh.ensureSchema();
    await wh.loadTasks(tasks, { runId: 'r1', loadedAt: new Date(NOW) });
    await wh.connection.run('CHECKPOINT');

    // Depth: a table three levels below a result root, an item-type table, scalar lists and entries are among them.
    expect([...expected.keys()].some((t) => t.split('__').length >= 4)).toBe(true);
    expect(expected.has('labs_ranked_keywords__items__organic')).toBe(true);
    expect(expected.size).toBeGreaterThan(40);
    for (const [table, ids] of expected) {
      const parent = tableDef(table).parent === null || table === 'tasks' ? `''` : '_parent_id';
      const got = (await wh.connection.runAndReadAll(`SELECT _id || ' < ' || ${parent} FROM "${table}"`)).getRows().map((r) => String(r[0]));
      expect({ table, ids: got.sort() }).toEqual({ table, ids: [...ids].sort() });
    }

    // Only the `tasks` table stores its `_id`; everywhere else it is an expression DuckDB evaluates on read.
    const storedAs = async (column: string) => (await wh!.connection.runAndReadAll(`SELECT table_name FROM duckdb_columns() WHERE database_name = current_database()
      AND column_name = '${column}' AND column_default IS NULL ORDER BY 1`)).getRows().map((r) => String(r[0]));
    expect(await storedAs('_id')).toEqual(['tasks']);
    // `_parent_id` is stored only where the parent is the `tasks` row (`<task_id>@<endpoint_id>`).
    const parentStored = await storedAs('_parent_id');
    expect(parentStored.length).toBeGreaterThan(0);
    expect(parentStored.filter((t) => tableDef(t).parent !== 'tasks')).toEqual([]);
    for (const column of ['_id', '_parent_id']) {
      const segments = (await wh.connection.runAndReadAll(`SELECT count(*) FROM pragma_storage_info('keyword_data__monthly_searches') WHERE column_name = '${column}'`)).getRows()[0][0];
      expect(Number(segments), column).toBe(0);
    }
    // What is stored instead: the parent's place in its task.
    const keys = (await wh.connection.runAndReadAll(`SELECT DISTINCT _parent_key FROM keyword_data__monthly_searches WHERE _task_id = 'K1' ORDER BY 1`)).getRows().map((r) => String(r[0]));
    const parents = new Set((normalizeTask(tasks[0], { runId: 'r1', loadedAt: new Date(NOW) }).get('keyword_data__monthly_searches') ?? []).map((r) => String(r._parent_id)));
    expect(keys.length).toBeGreaterThan(1);
    expect(keys.map((k) => `K1:${k}`)).toEqual([...parents].sort());
  });

  it('publish into a table that stores them (a file made before, a table made empty) with the same values', async () => {
    const work = path.join(dir, 'mixed-work.duckdb');
    const published = path.join(dir, 'mixed-published.duckdb');
    const load = async (runId: string, night: number, tasks: CollectedTask[]) => {
      const w = await Warehouse.open(work, WAREHOUSE_STORAGE);
      try {
        await w.ensureSchema();
        await w.loadTasks(tasks, { runId, loadedAt: new Date(NOW) });
        await recordRun(w.connection, runId, night);
        await w.mergingCheckpoint(128e6, '256MB');
      } finally {
        w.close();
      }
      return publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews(), ...WAREHOUSE_STORAGE, runId });
    };
    expect((await load('20250101T030000Z-nightly', 0, [keywordTask('A1', 4, 1)])).mode).toBe('copied');
    // The published monthly searches table as a file made before derived ids has it: `_id` stored.
    const db = await DuckDBInstance.create(published);
    const c = await db.connect();
    await c.run('ALTER TABLE keyword_data__monthly_searches RENAME TO ms_derived');
    await c.run(createTableSql(tableDef('keyword_data__monthly_searches')));
    await c.run('INSERT INTO keyword_data__monthly_searches SELECT * FROM ms_derived');
    await c.run('DROP TABLE ms_derived');
    c.closeSync();
    db.closeSync();
    expect((await load('20250102T030000Z-nightly', 1, [keywordTask('A2', 4, 2)])).mode).toBe('applied');

    const check = await DuckDBInstance.create(':memory:');
    const q = await check.connect();
    try {
      await q.run(`ATTACH '${work}' AS w (READ_ONLY)`);
      await q.run(`ATTACH '${published}' AS p (READ_ONLY)`);
      const ids = async (db: string) => (await q.runAndReadAll(`SELECT _id FROM ${db}.keyword_data__monthly_searches WHERE _task_id = 'A2' ORDER BY _id`)).getRows().map((r) => String(r[0]));
      const fromWork = await ids('w');
      expect(fromWork.length).toBeGreaterThan(0);
      expect(fromWork[0]).toMatch(/^A2:\d+:\d+$/);
      expect(await ids('p')).toEqual(fromWork);
      const stored = async (db: string) => (await q.runAndReadAll(`SELECT column_default IS NULL FROM duckdb_columns() WHERE database_name = '${db}' AND table_name = 'keyword_data__monthly_searches' AND column_name = '_id'`)).getRows()[0][0];
      expect(await stored('p')).toBe(true);
      expect(await stored('w')).toBe(false);
    } finally {
      q.closeSync();
      check.closeSync();
    }
  });

  it('a working file made before `_parent_key` keeps its stored `_parent_id` and loads on, the new column beside it', async () => {
    const file = path.join(dir, 'before-parent-key.duckdb');
    const db = await DuckDBInstance.create(file);
    const c = await db.connect();
    // The monthly searches table as the working file had it: `_parent_id` stored, `_id` derived from it.
    await c.run(`CREATE TABLE keyword_data__monthly_searches (_id VARCHAR AS (_parent_id || ':' || _list_idx), _task_id VARCHAR, _run_id VARCHAR,
      _loaded_at TIMESTAMPTZ, _parent_id VARCHAR, _list_idx INTEGER, year INTEGER, month INTEGER, search_volume BIGINT, extra JSON)`);
    await c.run(`INSERT INTO keyword_data__monthly_searches (_task_id, _run_id, _parent_id, _list_idx, year, month) VALUES ('OLD', 'r0', 'OLD:0', 0, 2024, 1)`);
    c.closeSync();
    db.closeSync();

    const w = await Warehouse.open(file, WAREHOUSE_STORAGE);
    try {
      const changes = await w.ensureSchema();
      expect(changes).toContainEqual({ table: 'keyword_data__monthly_searches', column: '_parent_key', action: 'added_column', to: 'VARCHAR' });
      await w.loadTasks([keywordTask('NEW', 3, 1)], { runId: 'r1', loadedAt: new Date(NOW) });
      const rows = (await w.connection.runAndReadAll(`SELECT _task_id, _id, _parent_id, _parent_key FROM keyword_data__monthly_searches
        WHERE _list_idx = 0 ORDER BY _task_id, _parent_id`)).getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
      const made = (normalizeTask(keywordTask('NEW', 3, 1), { runId: 'r1', loadedAt: new Date(NOW) }).get('keyword_data__monthly_searches') ?? [])
        .filter((r) => r._list_idx === 0).map((r) => [String(r._task_id), String(r._id), String(r._parent_id), String(r._parent_key)]);
      expect(made.length).toBeGreaterThan(0);
      expect(rows).toEqual([...made.sort(), ['OLD', 'OLD:0:0', 'OLD:0', null]]);
      expect(made[0]).toEqual(['NEW', `${made[0][2]}:0`, `NEW:${made[0][3]}`, made[0][3]]);
    } finally {
      w.close();
    }
  });
});
