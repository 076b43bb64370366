/**
 * Issue 19 point 6: `reprocess` never publishes less than it found unless told to, and every archive load path
 * (ingest, reprocess) leaves DuckDB and Parquet alike, table by table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ingestCommand, reprocessCommand } from '../../src/run/archive-command.js';
import { snapshotDateOf } from '../../src/load/parquet-sync.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { loadConfig } from '../../src/config/index.js';
import { describeError, exitCodeOf, EXIT } from '../../src/exit.js';
import { keywordTask, merchantTask } from '../normalize/fixtures.js';

const dirs: string[] = [];
afterEach(() => { while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });
const tmpDir = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-reprocess-')); dirs.push(d); return d; };

const envelope = (t: { version: string; task: any }) => ({ version: t.version, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [t.task] });

async function quiet<T>(fn: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as never;
  try { return await fn(); } finally { process.stdout.write = write; }
}

/** Rows per table in DuckDB (the working warehouse) and in the Parquet export. */
async function counts(root: string): Promise<{ duck: Record<string, number>; parquet: Record<string, number> }> {
  const paths = warehousePaths(path.resolve(root, loadConfig({ root }).warehouse.dir));
  const wh = await Warehouse.open(paths.work);
  const duck = Object.fromEntries(Object.entries(await wh.tableCounts()).filter(([, n]) => n > 0));
  wh.close();
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const parquet: Record<string, number> = {};
  for (const t of Object.keys(duck)) {
    const dir = path.join(paths.parquet, t);
    if (!existsSync(dir)) continue;
    parquet[t] = Number((await c.runAndReadAll(`SELECT count(*) FROM read_parquet('${dir}/**/*.parquet')`)).getRows()[0][0]);
  }
  c.closeSync();
  db.closeSync();
  return { duck, parquet };
}

function responseFiles(root: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const k = keywordTask(`K${i}`, 3 + i, 1);
    k.task.path = ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', `K${i}`];
    const m = merchantTask(`M${i}`, 'google');
    m.task.path = ['v3', 'merchant', 'google', 'products', 'task_get', 'advanced', `M${i}`];
    const file = path.join(root, `r${i}.ndjson`);
    writeFileSync(file, [k, m].map((t) => JSON.stringify(envelope(t))).join('\n'));
    return file;
  });
}

describe('ingest and reprocess reach Parquet as they reach DuckDB', () => {
  it('two ingests, then a reprocess: every table has the same rows in Parquet as in DuckDB', { timeout: 120_000 }, async () => {
    const root = tmpDir();
    const [a, b] = responseFiles(root, 2);
    expect(await quiet(() => ingestCommand({ root, files: [a] }))).toBe(EXIT.ok);
    expect(await quiet(() => ingestCommand({ root, files: [b] }))).toBe(EXIT.ok);
    const after = await counts(root);
    expect(after.duck.keyword_data).toBe(3 + 4);
    expect(Object.keys(after.duck).length).toBeGreaterThan(3);
    expect(after.parquet).toEqual(after.duck);
    expect(await quiet(() => reprocessCommand({ root }))).toBe(EXIT.ok);
    expect(await counts(root)).toEqual(after);
  });
});

describe('reprocess refuses to publish less than it found', () => {
  it('with data/raw missing it changes nothing and exits 2; --allow-fewer publishes the empty tables', { timeout: 120_000 }, async () => {
    const root = tmpDir();
    const [a] = responseFiles(root, 1);
    expect(await quiet(() => ingestCommand({ root, files: [a] }))).toBe(EXIT.ok);
    const before = await counts(root);
    const paths = warehousePaths(path.resolve(root, loadConfig({ root }).warehouse.dir));
    renameSync(paths.raw, `${paths.raw}.away`);
    const err = await quiet(() => reprocessCommand({ root })).then(() => undefined, (e: unknown) => e);
    expect(exitCodeOf(err)).toBe(EXIT.badInput);
    expect(describeError(err)).toMatch(/gives fewer rows than the warehouse has: .*keyword_data 3 -> 0.*Nothing was changed or published.*--allow-fewer/);
    expect(describeError(err)).not.toMatch(/\n\s+at /);
    expect(await counts(root)).toEqual(before);
    expect(existsSync(path.join(paths.dir, 'run.lock'))).toBe(false);

    expect(await quiet(() => reprocessCommand({ root, allowFewer: true }))).toBe(EXIT.ok);
    expect(await counts(root)).toEqual({ duck: {}, parquet: {} });
  });

  it('files each run under its own day', () => {
    const days = new Map([['nightly-2026-01-05', '2026-01-05']]);
    expect(snapshotDateOf('nightly-2026-01-05', days, '2026-11-23')).toBe('2026-01-05');
    expect(snapshotDateOf('ingest-20260107T101500-42', days, '2026-11-23')).toBe('2026-01-07');
    expect(snapshotDateOf('archive', days, '2026-11-23')).toBe('2026-11-23');
  });
});
