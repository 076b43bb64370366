import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { loadArchiveFiles } from '../../src/load/archive-load.js';
import { ArchiveWriter } from '../../src/archive/writer.js';
import { compileShape, matchesShape } from '../../src/load/scan.js';
import { fastResponseShape } from '../../src/load/sql-path.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import { keywordTask, merchantTask, technologyTask, task } from '../normalize/fixtures.js';
import { dumpTables } from './helpers.js';

const cleanup: (() => void)[] = [];
afterEach(() => { while (cleanup.length) cleanup.pop()!(); });

function envelope(t: CollectedTask): string {
  return JSON.stringify({ version: t.version, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [t.task] });
}

/** An archive holding the tasks in order, one response per line, in files of about `maxBytes`. */
async function archiveOf(tasks: CollectedTask[], maxBytes?: number): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-arch-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const w = new ArchiveWriter({ dir, runId: 'run-a', maxBytes, now: () => new Date('2026-01-15T12:00:00Z') });
  for (const t of tasks) await w.append({ endpointId: t.endpointId, method: 'GET', path: `/${t.task.path.join('/')}`, httpStatus: 200, body: envelope(t) });
  await w.close();
  return w.closedFiles;
}

async function loadBoth(files: string[]) {
  const out = [];
  for (const sqlPath of [true, false]) {
    const wh = await Warehouse.open(':memory:');
    cleanup.push(() => wh.close());
    await wh.ensureSchema();
    const r = await loadArchiveFiles(wh, files, { sqlPath, loadedAt: new Date('2026-01-15T13:00:00Z') });
    out.push({ wh, r, tables: await dumpTables(wh, { withLoadedAt: true }) });
  }
  return out;
}

function edgeTasks(): CollectedTask[] {
  return [
    keywordTask('K1', 12, 1),
    keywordTask('K2', 7, 2, 'keywords_for_keywords'),
    task('K3', 'keywords_for_site.task_get', [
      { keyword: 'nulls', location_code: null, language_code: null, search_partners: null, competition: null, cpc: null, search_volume: null, categories: null, monthly_searches: null },
      { keyword: 'empties', categories: [], monthly_searches: [] },
      null,
      { keyword: 'null elements', categories: [null, 5], monthly_searches: [null, { year: 2025, month: 2, search_volume: null }] },
    ], { api: 'keywords_data', function: 'keywords_for_site', se: 'engine_a' }, { time: 'soon' }),
    task('K4', 'keywords_for_site.task_get', null, { api: 'keywords_data' }, { status_code: 40401, status_message: 'Task Not Found.' }),
    task('K5', 'keywords_for_site.task_get', [{ keyword: 'unknown field', brand_new: { a: 1 } }], { api: 'keywords_data', function: 'keywords_for_site' }),
    task('K6', 'keywords_for_site.task_get', [{ keyword: 'wrong type', search_volume: 12.5 }], {}),
    merchantTask('M1'),
    technologyTask('D1', 4),
    keywordTask('K1', 3, 9), // re-collected later: replaces the first K1
    task('K7', 'keywords_for_site.task_get', [], { function: 'keywords_for_site' }),
  ];
}

describe('SQL fast path', () => {
  it('builds exactly the tables the JS extractor builds from the same archive', async () => {
    const files = await archiveOf(edgeTasks(), 4096);
    expect(files.length).toBeGreaterThan(1);
    const [sql, js] = await loadBoth(files);
    expect(sql.r.sqlTasks).toBeGreaterThan(0);
    expect(js.r.sqlTasks).toBe(0);
    for (const name of Object.keys(js.tables)) expect(sql.tables[name], name).toEqual(js.tables[name]);
    expect(sql.r.unknownFields).toBe(js.r.unknownFields);
    expect(js.tables.keyword_data.filter((r: any) => r[1] === 'K1').length).toBe(3);
  });

  it('loading the same archive twice gives identical tables', async () => {
    const files = await archiveOf(edgeTasks());
    const wh = await Warehouse.open(':memory:');
    cleanup.push(() => wh.close());
    await wh.ensureSchema();
    const loadedAt = new Date('2026-01-15T13:00:00Z');
    await loadArchiveFiles(wh, files, { loadedAt });
    const once = await dumpTables(wh, { withLoadedAt: true });
    await loadArchiveFiles(wh, files, { loadedAt });
    expect(await dumpTables(wh, { withLoadedAt: true })).toEqual(once);
  });
});

describe('shape check', () => {
  const shape = compileShape(fastResponseShape());
  const check = (o: unknown) => matchesShape(Buffer.from(JSON.stringify(o)), 0, shape);
  const base = (r: unknown) => ({ version: 'v', status_code: 20000, anything: { goes: [1] }, tasks: [{ id: 'x', status_code: 20000, time: '1 sec.', path: ['v3'], data: { tag: 't' }, result: [r] }] });
  it('accepts known keys with values of the expected kind, and nulls', () => {
    expect(check(base({ keyword: 'k', search_volume: 5, competition: 0.5, categories: [1, null], monthly_searches: [{ year: 2025, month: 1, search_volume: 3 }] }))).toBe(true);
    expect(check(base({ keyword: null, monthly_searches: null }))).toBe(true);
  });
  it('refuses unknown keys, nested or not, and values of another kind', () => {
    expect(check(base({ keyword: 'k', extra_key: 1 }))).toBe(false);
    expect(check(base({ monthly_searches: [{ year: 2025, week: 2 }] }))).toBe(false);
    expect(check(base({ search_volume: 1.5 }))).toBe(false);
    expect(check(base({ search_volume: '5' }))).toBe(false);
    expect(check(base({ keyword: 5 }))).toBe(false);
    expect(check(base({ categories: [12345678901234567] }))).toBe(false);
    expect(check({ ...base({}), tasks: [{ id: 'x', path: ['v3', null] }] })).toBe(false);
    expect(check({ ...base({}), tasks: [{ id: 'x', data: { new_param: 1 } }] })).toBe(false);
  });
});
