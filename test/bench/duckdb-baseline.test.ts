/**
 * The tree baseline (Labs, Backlinks): DuckDB alone builds a table for the result elements and one for every list
 * below them, down every level, with the job's lineage ids. Its row count is what rows_per_cpu_s_vs_duckdb_<family>
 * divides by, so a level it skipped would flatter the job.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { duckdbBaseline, type BaselineAnswer } from '../../src/bench/duckdb-baseline.js';

const ENDPOINT = 'dataforseo_labs.google.ranked_keywords.live';
let dir: string;
let b: BaselineAnswer;

const item = (k: number, months: number, tags: string[]) => ({
  keyword: `kw ${k}`, rank: k, info: { volume: 100 * k, monthly: Array.from({ length: months }, (_, m) => ({ year: 2026, month: m + 1, volume: m })) }, tags,
});
const line = (taskId: string, items: unknown[], status = 20000) => JSON.stringify({
  run_id: 'r1', endpoint_id: ENDPOINT,
  response: { status_code: 20000, tasks: [{ id: taskId, status_code: status, result: status < 40000 ? [{ target: 'a.com', total_count: items.length, items }] : null }] },
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-baseline-'));
  const file = path.join(dir, 'a.ndjson.gz');
  // Task t1: 2 items (3 + 1 monthly rows, 2 + 0 tags); t2: 1 item (2 monthly, 1 tag); t3 failed: no rows.
  const lines = [
    line('t1', [item(1, 3, ['a', 'b']), item(2, 1, [])]),
    line('t2', [item(3, 2, ['c'])]),
    line('t3', [], 40501),
    JSON.stringify({ run_id: 'r1', endpoint_id: 'backlinks.backlinks.live', response: { status_code: 20000, tasks: [{ id: 'x', status_code: 20000, result: [{ items: [] }] }] } }),
  ];
  writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
  b = await duckdbBaseline(dir, [file], 'tree', ENDPOINT);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DuckDB tree baseline', () => {
  test('a table per level: results, items, each item\'s nested list and list of scalars', () => {
    // t0 results (2 tasks answered), then items, then the items' lists (monthly inside a nested object, tags).
    expect(Object.values(b.tables).sort((x, y) => x - y)).toEqual([2, 3, 3, 6]);
    expect(b.rows).toBe(14);
  });

  test('only the named endpoint\'s answered tasks count, and the CPU is measured', () => {
    expect(b.tables.t0).toBe(2);
    expect(b.cpuMs).toBeGreaterThan(0);
  });
});
