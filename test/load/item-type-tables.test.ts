/**
 * An item type's tables (`<list>__<type>` and the tables below it) come into use with the first row of that type,
 * not with the result kind: a Labs answer of organic items creates the organic table and not the paid one; a later
 * answer with a paid item creates and fills it; a re-collected task's rows are replaced in every such table that
 * exists; a load that fails takes its rows back and leaves the warehouse usable. What a fresh process creates is
 * seen through `seo-etl ingest` in a process of its own: test files share a process (vitest isolate: false), and
 * the tables in use are the process's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { task } from '../normalize/fixtures.js';
import { ROOT, queryFile } from '../helpers/project.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';

const ENDPOINT = 'dataforseo_labs.google.ranked_keywords.live';
const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-item-tables-'));
let wh: Warehouse;
afterAll(() => {
  wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A ranked keywords answer whose items' SERP elements are of the given types, in the live shape. */
function ranked(id: string, types: readonly string[]) {
  const items = types.map((type, i) => ({
    se_type: 'google',
    keyword_data: { se_type: 'google', keyword: `kw ${i}`, location_code: 2840, language_code: 'en', keyword_info: { search_volume: 100 + i } },
    ranked_serp_element: {
      se_type: 'google',
      serp_item: { se_type: 'google', type, rank_group: i + 1, rank_absolute: i + 1, position: 'left', domain: 'example.com', url: `https://example.com/${type}/${i}`, title: `t ${i}`, etv: 1.5 },
    },
  }));
  return task(id, ENDPOINT, [{ se_type: 'google', target: 'example.com', location_code: 2840, language_code: 'en', total_count: items.length, items_count: items.length, items }],
    { api: 'dataforseo_labs', function: 'ranked_keywords', se: 'google', target: 'example.com', location_code: 2840, language_code: 'en' });
}
const tables = async () => new Set((await wh.connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).getRows().map((r) => String(r[0])));
const count = async (sql: string) => Number((await wh.connection.runAndReadAll(sql)).getRows()[0][0]);
const byTask = async (table: string) => {
  const r = await wh.connection.runAndReadAll(`SELECT _task_id, count(*)::INT FROM "${table}" GROUP BY ALL ORDER BY 1`);
  return Object.fromEntries(r.getRows().map(([t, n]) => [String(t), Number(n)]));
};

describe('item-type tables', () => {
  it('hold their rows; a re-collected task is replaced across them; a failed load leaves none of its rows', async () => {
    wh = await Warehouse.open(path.join(dir, 'w.duckdb'));
    await wh.ensureSchema();
    const run = { runId: 'r1', loadedAt: new Date('2026-01-02T03:04:05Z') };

    await wh.loadTasks([ranked('T1', ['organic', 'organic'])], run);
    let have = await tables();
    expect(have.has('labs_ranked_keywords__items')).toBe(true);
    expect(have.has('labs_ranked_keywords__items__organic')).toBe(true);
    expect(await byTask('labs_ranked_keywords__items__organic')).toEqual({ T1: 2 });

    // A later answer with a paid item: its table is there after that load and holds the row, joined to the common row.
    const summary = await wh.loadTasks([ranked('T2', ['organic', 'paid'])], run);
    expect(summary.rows['labs_ranked_keywords__items__paid']).toBe(1);
    have = await tables();
    expect(have.has('labs_ranked_keywords__items__paid')).toBe(true);
    expect(await byTask('labs_ranked_keywords__items__paid')).toEqual({ T2: 1 });
    expect(await byTask('labs_ranked_keywords__items__organic')).toEqual({ T1: 2, T2: 1 });
    expect(await count(`SELECT count(*) FROM labs_ranked_keywords__items__paid p JOIN labs_ranked_keywords__items i USING (_id) WHERE i.item_type = 'paid'`)).toBe(1);

    // Re-collected: T1 now answers one paid item, T2 one organic; each task's old rows leave every type's table
    // (the featured-snippet table, which does not exist, is skipped).
    await wh.loadTasks([ranked('T1', ['paid']), ranked('T2', ['organic'])], run);
    expect(await byTask('labs_ranked_keywords__items__organic')).toEqual({ T2: 1 });
    expect(await byTask('labs_ranked_keywords__items__paid')).toEqual({ T1: 1 });
    expect(await byTask('labs_ranked_keywords__items')).toEqual({ T1: 1, T2: 1 });
    expect(await count(`SELECT count(*) FROM tasks WHERE _task_id IN ('T1', 'T2')`)).toBe(2);

    // A load that fails after meeting a new type takes its rows back; the warehouse stays whole and usable.
    await expect(wh.loadTasks([ranked('T3', ['featured_snippet'])], { ...run, inTransaction: async () => { throw new Error('boom'); } })).rejects.toThrow('boom');
    expect(await count(`SELECT count(*) FROM tasks WHERE _task_id = 'T3'`)).toBe(0);
    expect(await wh.tableCounts()).toMatchObject({ 'labs_ranked_keywords__items__featured_snippet': 0 });
    await wh.loadTasks([ranked('T3', ['featured_snippet'])], run);
    expect(await byTask('labs_ranked_keywords__items__featured_snippet')).toEqual({ T3: 1 });
  });

  it('a fresh process creates the organic table for organic items, and the paid one with the first paid item', async () => {
    const root = mkdtempSync(path.join(dir, 'cli-'));
    const envelope = (t: ReturnType<typeof ranked>) => ({ version: t.version, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [t.task] });
    const ingest = async (name: string, t: ReturnType<typeof ranked>) => {
      const file = path.join(root, `${name}.json`);
      writeFileSync(file, JSON.stringify(envelope(t)));
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'bin/seo-etl.js'), '-C', root, 'ingest', file], { cwd: root });
    };
    const { published } = warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir));
    const names = async () => new Set((await queryFile(published, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
    await ingest('organic', ranked('C1', ['organic', 'organic']));
    let have = await names();
    expect(have.has('labs_ranked_keywords__items')).toBe(true);
    expect(have.has('labs_ranked_keywords__items__organic')).toBe(true);
    expect(have.has('labs_ranked_keywords__items__paid')).toBe(false);
    expect(have.has('labs_ranked_keywords__items__paid__links')).toBe(false);
    expect(have.has('labs_ranked_keywords__items__featured_snippet')).toBe(false);
    expect([...have].filter((n) => n.startsWith('labs_ranked_keywords__items__organic'))).toEqual(['labs_ranked_keywords__items__organic']);
    await ingest('paid', ranked('C2', ['paid']));
    have = await names();
    expect(have.has('labs_ranked_keywords__items__paid')).toBe(true);
    expect(have.has('labs_ranked_keywords__items__featured_snippet')).toBe(false);
    expect(await queryFile(published, `SELECT _task_id, count(*)::INT AS n FROM labs_ranked_keywords__items__paid GROUP BY ALL`)).toEqual([{ _task_id: 'C2', n: 1 }]);
    expect(await queryFile(published, `SELECT _task_id, count(*)::INT AS n FROM labs_ranked_keywords__items__organic GROUP BY ALL`)).toEqual([{ _task_id: 'C1', n: 2 }]);
  });
});
