/**
 * Archive lines prepared on a worker thread (issue 30, both cores): parsed, normalized and encoded in DuckDB's
 * vector layout off the main thread, then appended. The tables must come out exactly as the main thread's own
 * path (Warehouse.loadTasks over the parsed lines) makes them: every table, every column, every value.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadArchiveFiles } from '../../src/load/archive-load.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { readArchiveLine } from '../../src/archive/records.js';
import { AVAILABLE_TABLES } from '../../src/normalize/catalog.js';
import { q } from '../../src/catalog/quote.js';
import { ENGINES, generateArchive } from '../../src/bench/load.js';
import { writeSerpNight } from '../../src/bench/serp-nights.js';
import type { CollectedTask } from '../../src/normalize/extract.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'prepare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const loadedAt = new Date(Date.UTC(2026, 0, 15, 3));
let files: string[] = [];

beforeAll(async () => {
  files = [
    ...(await generateArchive(path.join(dir, 'kw'), 600, 40, 6)),
    ...(await writeSerpNight(path.join(dir, 'serp'), 0, 40)),
  ];
  // The same task again later (a re-collection, its rows replaced), a line that is not JSON, and non-ASCII text.
  const first = linesOf(files[0])[0];
  const again = first.replace(/"keyword":"([^"]*)"/, '"keyword":"$1 again é漢字"');
  expect(again).not.toBe(first);
  const extra = path.join(dir, 'extra.ndjson');
  writeFileSync(extra, `${again}\nnot json\n`);
  files.push(extra);
});

/** A file's lines, gunzipped when it is an archive file. */
function linesOf(file: string): string[] {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8').split('\n').filter(Boolean);
}

/** Every catalog table's rows, sorted, as text (dates and big numbers compare as DuckDB prints them). */
async function contents(wh: Warehouse): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const present = new Set((await wh.connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).getRows().map((r) => String(r[0])));
  for (const t of AVAILABLE_TABLES) {
    if (!present.has(t.name)) continue;
    const rows = (await wh.connection.runAndReadAll(`SELECT * FROM ${q(t.name)}`)).getRows().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
    if (rows.length) out[t.name] = rows.sort();
  }
  return out;
}

async function fresh(): Promise<Warehouse> {
  const wh = await Warehouse.open(':memory:');
  await wh.ensureSchema();
  return wh;
}

describe('archive lines prepared on a worker thread', () => {
  test('give every table exactly the rows the main thread\'s own path gives, replaces included', async () => {
    const reference = await fresh();
    const tasks: CollectedTask[] = [];
    for (const f of files) for (const line of linesOf(f)) tasks.push(...readArchiveLine(line, ENGINES).tasks);
    await reference.loadTasks(tasks, { runId: 'archive', loadedAt, engines: Object.values(ENGINES) });
    const want = await contents(reference);
    reference.close();
    expect(Object.keys(want).length).toBeGreaterThan(10);
    expect(want.serp_results__items?.length).toBeGreaterThan(1000);

    for (const worker of [true, false]) {
      const wh = await fresh();
      const r = await loadArchiveFiles(wh, files, { engines: ENGINES, loadedAt, worker });
      expect(r.problems).toMatchObject([{ file: files[files.length - 1], line: 2, task: null, reason: expect.stringMatching(/^not JSON/) }]);
      expect(r.rows.serp_results__items).toBe(want.serp_results__items.length);
      const got = await contents(wh);
      wh.close();
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const name of Object.keys(want)) expect(got[name], `${name} (worker: ${worker})`).toEqual(want[name]);
    }
  });

  test('a task the rule refuses is named and loads nothing; the rest of the transaction loads', async () => {
    // Before issue 46 this failed the whole load; now the task is named (file, line) and left out.
    const bad = path.join(dir, 'bad.ndjson');
    const line = linesOf(files[files.length - 1])[0];
    writeFileSync(bad, `${line}\n`);
    appendFileSync(bad, `${line.replace(/"id":"[^"]*"/, '"id":""')}\n`);
    const wh = await fresh();
    const r = await loadArchiveFiles(wh, [bad], { engines: ENGINES, loadedAt, worker: true });
    expect(r.problems).toMatchObject([{ file: bad, line: 2, task: null, reason: 'tasks[0]: a task without an id' }]);
    const n = (await wh.connection.runAndReadAll('SELECT count(*) FROM tasks')).getRows()[0][0];
    wh.close();
    expect(Number(n)).toBe(1);
  });
});

describe('what a load replaces, planned ahead of the writer', () => {
  test('planLoad puts no table in use (a load planned while another is open must not change the schema under it)', async () => {
    const { ENDPOINTS } = await import('../../src/api/catalog.js');
    const { tablesOfTask } = await import('../../src/normalize/extract.js');
    const { planLoad } = await import('../../src/load/plan.js');
    const wh = await Warehouse.open(':memory:');
    try {
      await wh.ensureSchema();
      const inUse = () => new Set(wh.inUse.tables.map((t) => t.name));
      const endpoint = ENDPOINTS.find((e) => tablesOfTask(e.id).some((n) => !inUse().has(n)));
      expect(endpoint, 'an endpoint of a family not in use yet').toBeDefined();
      const before = wh.inUse.tables.length;
      const task = { id: 'p1', status_code: 20000, status_message: 'Ok.', time: '0', cost: 0, result_count: 0, path: [], data: {}, result: [] };
      const plan = planLoad([{ endpointId: endpoint!.id, version: '0.1', task } as unknown as CollectedTask]);
      expect(plan.taskRowIds.size).toBe(1);
      expect(wh.inUse.tables.length).toBe(before);
    } finally {
      wh.close();
    }
  });
});

describe('when an archive load starts a worker thread', () => {
  test('for files over 4 MiB, unless warehouse.threads asked for one thread', async () => {
    const { workerPays, WORKER_MIN_BYTES } = await import('../../src/load/archive-load.js');
    const { useDuckdbThreads, duckdbThreads } = await import('../../src/load/threads.js');
    const big = path.join(dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(WORKER_MIN_BYTES + 1));
    const small = path.join(dir, 'small.bin');
    writeFileSync(small, Buffer.alloc(1024));
    const before = duckdbThreads();
    try {
      useDuckdbThreads(0);
      expect(workerPays([big])).toBe(os.availableParallelism() >= 2);
      expect(workerPays([small])).toBe(false);
      useDuckdbThreads(1);
      expect(workerPays([big])).toBe(false);
      useDuckdbThreads(2);
      expect(workerPays([big])).toBe(os.availableParallelism() >= 2);
    } finally {
      useDuckdbThreads(before);
    }
  });
});
