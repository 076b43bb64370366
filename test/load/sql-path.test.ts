import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Warehouse } from '../../src/load/warehouse.js';
import { loadArchiveFiles } from '../../src/load/archive-load.js';
import { ArchiveWriter } from '../../src/archive/writer.js';
import { readLines } from '../../src/archive/reader.js';
import { compileShape, matchesShape } from '../../src/load/scan.js';
import { SqlRoute, fastResponseShape } from '../../src/load/sql-path.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import { keywordTask, merchantTask, technologyTask, onpageTask, eventsTask, eventsHtmlTask, listTasks, task } from '../normalize/fixtures.js';
import { dumpTables } from './helpers.js';

const cleanup: (() => void)[] = [];
afterEach(() => { while (cleanup.length) cleanup.pop()!(); });

function envelope(t: CollectedTask): string {
  return JSON.stringify({ version: t.version, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [t.task] });
}

/** A task with its response body edited as text (for what JSON.stringify cannot write: repeated keys, -0). */
type Entry = CollectedTask | { t: CollectedTask; edit: (body: string) => string };

/** An archive holding the tasks in order, one response per line, in files of about `maxBytes`. */
async function archiveOf(entries: Entry[], maxBytes?: number): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-arch-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const w = new ArchiveWriter({ dir, runId: 'run-a', maxBytes, now: () => new Date('2026-01-15T12:00:00Z') });
  for (const e of entries) {
    const t = 'edit' in e ? e.t : e;
    const body = 'edit' in e ? e.edit(envelope(t)) : envelope(t);
    if (body === envelope(t) && 'edit' in e) throw new Error(`edit of ${t.task.id} changed nothing`);
    await w.append({ endpointId: t.endpointId, method: t.endpointId.endsWith('.live') ? 'POST' : 'GET', path: `/${t.task.path.join('/')}`, httpStatus: 200, body });
  }
  await w.close();
  return w.closedFiles;
}

/** Task ids of the archive's lines the SQL route takes, and of those it leaves to the JS extractor. */
async function routing(files: string[]): Promise<{ sql: Set<string>; js: Set<string> }> {
  const route = new SqlRoute(null as never, { loadedAt: new Date(), fallback: async () => { throw new Error('not loading'); } });
  const out = { sql: new Set<string>(), js: new Set<string>() };
  try {
    for (const f of files) {
      for await (const line of readLines(f)) {
        const ids = route.offer(line);
        if (ids) for (const id of ids) out.sql.add(id);
        else for (const t of JSON.parse(line.toString()).response.tasks) out.js.add(t.id);
      }
    }
  } finally {
    await route.dispose();
  }
  return out;
}

/**
 * Loads the files through the SQL fast path, through the JS extractor only, the fast path with tiny stages (one
 * at a time by bytes), and tiny stages with three lanes and room for all of them side by side.
 */
async function loadBoth(files: string[]) {
  const out = [];
  for (const opts of [{ sqlPath: true }, { sqlPath: false }, { sqlPath: true, stageBytes: 3000 }, { sqlPath: true, stageBytes: 3000, inFlightBytes: 1 << 20, lanes: 3 }]) {
    const wh = await Warehouse.open(':memory:');
    cleanup.push(() => wh.close());
    await wh.ensureSchema();
    const r = await loadArchiveFiles(wh, files, { ...opts, loadedAt: new Date('2026-01-15T13:00:00Z') });
    out.push({ wh, r, tables: await dumpTables(wh, { withLoadedAt: true }) });
  }
  return out;
}

/** Merchant and technology tasks edited into shapes the SQL route must leave to the JS extractor. */
function irregularTasks(): Entry[] {
  const merchant = (id: string, edit: (r: any) => void) => {
    const t = merchantTask(id);
    edit((t.task.result as any[])[0]);
    return t;
  };
  const tech = (id: string, edit: (item: any) => void) => {
    const t = technologyTask(id, 3);
    edit((t.task.result as any[])[0].items[1]);
    return t;
  };
  return [
    merchant('M-type', (r) => { r.items[2].type = 'engine_a_shopping_widget'; }),
    merchant('M-digits', (r) => { r.items.find((i: any) => i.additional_specifications).additional_specifications = { 123: 'x', eid: 'y' }; }),
    { t: merchantTask('M-twice'), edit: (b) => b.replace(/"additional_specifications":\{"eid":/, '"additional_specifications":{"eid":"first","eid":') },
    merchant('M-child', (r) => { r.items.find((i: any) => i.type.endsWith('shopping_paid')).items = ['a related keyword on a paid item']; }),
    tech('D-array', (item) => { item.technologies = { servers: ['Nginx'] }; }),
    tech('D-day', (item) => { item.last_visited = '2025-02-30 10:00:00 +00:00'; }),
    tech('D-zone', (item) => { item.last_visited = '2025-02-10 10:00:00 +02:00'; }),
    { t: technologyTask('D-twice', 3), edit: (b) => b.replace('"domain":', '"domain":"first.example","domain":') },
    { t: keywordTask('K-neg0', 2, 5), edit: (b) => b.replace(/"competition":[0-9.]+/, '"competition":-0.0') },
    task('K-lead0', 'keywords_for_site.task_get', [{ keyword: 'zero', search_volume: '05' }], { function: 'keywords_for_site' }),
  ];
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
    merchantTask('M2', 'engine_b', false, 3),
    technologyTask('D1', 4),
    keywordTask('K1', 3, 9), // re-collected later: replaces the first K1
    task('K7', 'keywords_for_site.task_get', [], { function: 'keywords_for_site' }),
    task('K8', 'keywords_for_site.task_get', [{ keyword: 'numbers as text', search_volume: '5', competition: '0.25', cpc: '-1.5', monthly_searches: [{ year: '2025', month: 3, search_volume: '0' }] }], { function: 'keywords_for_site' }),
    onpageTask('O1'),
    eventsTask('E1'),
    eventsTask('E2', 'regular'),
    eventsHtmlTask('E3'),
    ...listTasks(),
    merchantTask('M1', 'engine_a', true, 11), // re-collected
  ];
}

describe('SQL fast path', () => {
  it('builds exactly the tables the JS extractor builds from the same archive', { timeout: 120_000 }, async () => {
    const files = await archiveOf([...edgeTasks(), ...irregularTasks()], 4096);
    expect(files.length).toBeGreaterThan(1);
    const [sql, js, staged, wide] = await loadBoth(files);
    expect(sql.r.sqlTasks).toBeGreaterThan(0);
    expect(js.r.sqlTasks).toBe(0);
    for (const name of Object.keys(js.tables)) expect(sql.tables[name], name).toEqual(js.tables[name]);
    // Many small stages, loaded while the next fills, interleaved with JS batches: the same tables.
    expect(staged.r.sqlTasks).toBeGreaterThanOrEqual(sql.r.sqlTasks); // a task collected twice loads twice when its copies are in two stages
    for (const name of Object.keys(js.tables)) expect(staged.tables[name], name).toEqual(js.tables[name]);
    // Stages side by side on three connections (a re-collected task's copies still applied in order): the same.
    expect(wide.r.sqlTasks).toBe(staged.r.sqlTasks);
    for (const name of Object.keys(js.tables)) expect(wide.tables[name], name).toEqual(js.tables[name]);
    expect([sql.r.unknownFields, sql.r.unknownItemTypes, sql.r.badValues]).toEqual([js.r.unknownFields, js.r.unknownItemTypes, js.r.badValues]);
    expect(sql.r.unknownItemTypeNames).toEqual(js.r.unknownItemTypeNames);
    expect(js.tables.keyword_data.filter((r: any) => r[1] === 'K1').length).toBe(3);
    expect(js.tables.merchant_shopping__items__elements.length).toBeGreaterThan(0);
    expect(js.tables.domain_technologies__items__technologies.length).toBeGreaterThan(0);
  });

  it('takes regular keyword and technology lines, and leaves merchant (issue 17) and every irregular one to the JS extractor', async () => {
    const routed = await routing(await archiveOf([...edgeTasks(), ...irregularTasks()]));
    for (const id of ['K1', 'K2', 'K3', 'K4', 'K7', 'K8', 'D1']) expect(routed.sql.has(id), id).toBe(true);
    for (const id of ['M1', 'M2']) expect(routed.js.has(id) && !routed.sql.has(id), id).toBe(true);
    for (const e of irregularTasks()) {
      const id = ('edit' in e ? e.t : e).task.id;
      expect(routed.js.has(id) && !routed.sql.has(id), id).toBe(true);
    }
    expect(routed.js.has('K5') && routed.js.has('K6')).toBe(true);
  });

  it('hands the staged lines to the JS extractor when DuckDB refuses them', async () => {
    // A lone surrogate escape is valid JSON for JSON.parse; DuckDB's reader refuses the file.
    const files = await archiveOf([keywordTask('K1', 3, 1), { t: keywordTask('K2', 2, 2), edit: (b) => b.replace('"keyword":"', '"keyword":"\\ud800') }]);
    const [sql, js] = await loadBoth(files);
    expect(sql.r.jsTasks).toBe(2);
    expect(sql.r.sqlTasks).toBe(0);
    for (const name of Object.keys(js.tables)) expect(sql.tables[name], name).toEqual(js.tables[name]);
    expect(js.tables.keyword_data.length).toBe(5);
  });

  it('loading the same archive twice gives identical tables', async () => {
    const files = await archiveOf(edgeTasks());
    const wh = await Warehouse.open(':memory:');
    cleanup.push(() => wh.close());
    await wh.ensureSchema();
    const loadedAt = new Date('2026-01-15T13:00:00Z');
    const threads = async () => String((await wh.connection.runAndReadAll(`SELECT current_setting('threads')`)).getRows()[0][0]);
    await wh.connection.run('SET threads = 3');
    await loadArchiveFiles(wh, files, { loadedAt, threads: 1 });
    expect(await threads()).toBe('3'); // the load's own setting is undone
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
    expect(check(base({ search_volume: '5', competition: '-0.25', cpc: '12' }))).toBe(true);
  });
  it('accepts keys in any order, whatever order the previous objects had', () => {
    const a = { keyword: 'k', search_volume: 5, monthly_searches: [{ year: 2025, month: 1, search_volume: 3 }, { search_volume: 4, month: 2, year: 2025 }] };
    const b = { monthly_searches: [{ month: 3, year: 2025 }], search_volume: 6, keyword: 'j' };
    expect(check({ ...base(a), tasks: [...base(a).tasks, ...base(b).tasks, ...base(a).tasks] })).toBe(true);
    expect(check(base({ ...b, monthly_searches: [{ month: 3, year: 2025, week: 1 }] }))).toBe(false);
  });
  it('refuses a key given twice (JSON.parse keeps the last value, DuckDB the first)', () => {
    const text = JSON.stringify(base({ keyword: 'a', cpc: 1 })).replace('"keyword":"a"', '"keyword":"a","keyword":"b"');
    expect(matchesShape(Buffer.from(text), 0, shape)).toBe(false);
    expect(matchesShape(Buffer.from(text.replace('"keyword":"a","keyword":"b"', '"keyword":"b"')), 0, shape)).toBe(true);
  });
  it('refuses unknown keys, nested or not, and values of another kind', () => {
    expect(check(base({ keyword: 'k', extra_key: 1 }))).toBe(false);
    expect(check(base({ monthly_searches: [{ year: 2025, week: 2 }] }))).toBe(false);
    expect(check(base({ search_volume: 1.5 }))).toBe(false);
    expect(check(base({ search_volume: '5.0' }))).toBe(false);
    expect(check(base({ search_volume: '05' }))).toBe(false);
    expect(check(base({ competition: '.5' }))).toBe(false);
    expect(check(base({ competition: '-0' }))).toBe(false);
    expect(check(base({ keyword: 5 }))).toBe(false);
    expect(check(base({ categories: [12345678901234567] }))).toBe(false);
    expect(check({ ...base({}), tasks: [{ id: 'x', path: ['v3', null] }] })).toBe(false);
    expect(check({ ...base({}), tasks: [{ id: 'x', data: { new_param: 1 } }] })).toBe(false);
  });
});
