/** `seo-etl tables` in-process: no warehouse yet, a published one (counts, order, views), a writer holding it. */
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import { publishWarehouse } from '../../src/publish/index.js';
import { curatedViews, missingTablesSql, VIEWS } from '../../src/publish/views.js';
import { tablesCommand, listPublished } from '../../src/publish/command.js';
import { externalTableDdl } from '../../src/publish/parquet-ddl.js';
import { ALWAYS_IN_USE, table } from '../../src/normalize/catalog.js';
import { EXIT, exitCodeOf, describeError } from '../../src/exit.js';
import { ROOT, collectStream } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-tables-'));
  dirs.push(d);
  return d;
}

async function run(dataDir: string, json: boolean): Promise<{ code: number; text: string }> {
  const out = collectStream();
  const code = await tablesCommand({ root: ROOT, json, env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: dataDir }, out });
  return { code, text: out.text() };
}

/** A published warehouse with 3 keyword rows and one run. */
async function publishSmall(dataDir: string): Promise<string> {
  const work = path.join(dataDir, 'work', 'warehouse.duckdb');
  await import('node:fs').then((fs) => fs.mkdirSync(path.dirname(work), { recursive: true }));
  const i = await DuckDBInstance.create(work);
  const c = await i.connect();
  await c.run(missingTablesSql(ALWAYS_IN_USE));
  await c.run(`INSERT INTO keyword_data (_id, keyword) SELECT 'k:' || range, 'kw' || range FROM range(3)`);
  await c.run(`INSERT INTO _runs (run_id, pipeline, run_date, status, attempts, started_at, updated_at) VALUES ('nightly-2025-01-02', 'nightly', '2025-01-02', 'completed', 1, now()::TIMESTAMP, now()::TIMESTAMP)`);
  await c.run('CHECKPOINT');
  c.closeSync();
  i.closeSync();
  const published = path.join(dataDir, 'warehouse.duckdb');
  await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews });
  return published;
}

describe('seo-etl tables', () => {
  test('with nothing published yet, it says so and how the file comes about (text and JSON)', async () => {
    const d = tmp();
    const text = await run(d, false);
    expect(text.code).toBe(EXIT.ok);
    expect(text.text).toMatch(/^no published warehouse yet: .*warehouse\.duckdb does not exist/);
    expect(text.text).toContain('seo-etl run');
    const json = await run(d, true);
    const parsed = JSON.parse(json.text);
    expect(parsed).toMatchObject({ published: false, tables: [], views: [], warehouse: path.join(d, 'warehouse.duckdb') });
  });

  test('lists every table with its exact row count in catalog order, the ledger last, and the views', async () => {
    const d = tmp();
    await publishSmall(d);
    const { code, text } = await run(d, true);
    expect(code).toBe(EXIT.ok);
    const l = JSON.parse(text);
    expect(l.published).toBe(true);
    expect(l.bytes).toBeGreaterThan(0);
    expect(l.lastRun).toMatchObject({ runId: 'nightly-2025-01-02', status: 'completed' });
    // Catalog order: the tables the file holds, every warehouse's.
    expect(l.tables.map((t: { name: string }) => t.name)).toEqual([...ALWAYS_IN_USE.map((t) => t.name), '_attempts', '_runs', '_shared_tasks', '_targets', '_tasks']);
    const byName = new Map(l.tables.map((t: { name: string; rows: number }) => [t.name, t.rows]));
    expect(byName.get('keyword_data')).toBe(3);
    expect(byName.get('_runs')).toBe(1);
    expect(byName.get('tasks')).toBe(0);
    expect(l.tables.find((t: { name: string }) => t.name === 'keyword_data').description).toBe(table('keyword_data').description);
    expect(l.views.map((v: { name: string }) => v.name)).toEqual(VIEWS.map((v) => v.name).sort());
    expect(l.dictionary).toBe('docs/tables.md');
  });

  test('the text listing shows counts, descriptions and links the data dictionary', async () => {
    const d = tmp();
    await publishSmall(d);
    const { text } = await run(d, false);
    expect(text).toMatch(/^published warehouse: .*warehouse\.duckdb \(.*, published \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC; last run nightly-2025-01-02 completed\)/);
    expect(text).toMatch(/\nkeyword_data +3 {2}Keyword metrics, one row per keyword, from both keyword APIs/);
    expect(text).toMatch(/\nv_keyword_trends +How does the search volume of a keyword move month by month\?\n/);
    expect(text).toContain('docs/tables.md');
  });

  test('a process holding the published file for writing gets a clear error, exit 3, and the file is not touched', async () => {
    const d = tmp();
    const file = await publishSmall(d);
    const script = `
      const { DuckDBInstance } = await import(${JSON.stringify(path.join(ROOT, 'node_modules/@duckdb/node-api/lib/index.js'))});
      const i = await DuckDBInstance.create(${JSON.stringify(file)});
      const c = await i.connect();
      process.stdout.write('open\\n');
      process.stdin.on('data', () => { c.closeSync(); i.closeSync(); process.exit(0); });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (b) => String(b).includes('open') && resolve());
        child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
      });
      const err = await listPublished(file).then(() => null, (e: unknown) => e);
      expect(err).not.toBeNull();
      expect(exitCodeOf(err)).toBe(EXIT.locked);
      expect(describeError(err)).toMatch(/cannot open .*warehouse\.duckdb read-only: another process holds it open for writing/);
      expect(describeError(err)).toContain('read_only=True');
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.stdin.write('quit\n');
      await exited;
    }
    const l = await listPublished(file);
    expect(l.tables.find((t) => t.name === 'keyword_data')?.rows).toBe(3);
  });

  test('--ddl prints every catalog table\'s external-table statement, over the local export unless --location says where', async () => {
    const d = tmp();
    const out = collectStream();
    const code = await tablesCommand({ root: ROOT, ddl: 'Trino', env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: d }, out });
    expect(code).toBe(EXIT.ok);
    expect(out.text().match(/^CREATE TABLE IF NOT EXISTS /gm)).toHaveLength(ALWAYS_IN_USE.length); // no export yet: every warehouse's tables
    expect(out.text()).toContain(externalTableDdl('trino', 'keyword_data', { location: path.join(d, 'parquet') }));
    const remote = collectStream();
    await tablesCommand({ root: ROOT, ddl: 'bigquery', location: 'gs://b/seo/parquet', schema: 'seo_raw', env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: d }, out: remote });
    expect(remote.text()).toContain(externalTableDdl('bigquery', 'merchant_shopping__items', { location: 'gs://b/seo/parquet', schema: 'seo_raw' }));
  });

  test('--ddl refuses an unknown engine, a schema that is not a name, and --location without an engine, naming the flag', async () => {
    const opts = { root: ROOT, env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: tmp() }, out: collectStream() };
    for (const [bad, msg] of [
      [{ ddl: 'hive' }, /--ddl: must be one of spark, trino, bigquery, athena, snowflake, clickhouse, got 'hive'/],
      [{ ddl: 'spark', schema: 'a;drop' }, /--schema: letters, digits/],
      [{ location: 's3://x' }, /--ddl: give the engine/],
    ] as const) {
      const err = await tablesCommand({ ...opts, ...bad }).then(() => null, (e: unknown) => e);
      expect(exitCodeOf(err)).toBe(EXIT.badInput);
      expect(describeError(err)).toMatch(msg);
    }
  });
});

describe('tables --available', () => {
  test('names the endpoint a pipeline step gives for each result kind, not only under --json', async () => {
    const out = collectStream();
    expect(await tablesCommand({ root: ROOT, available: true, out })).toBe(EXIT.ok);
    const text = out.text();
    expect(text).toContain('app_app_reviews_advanced (app_data; step endpoint: app_data.google.app_reviews.task_post)\n  tables: app_app_reviews_advanced, app_app_reviews_advanced__items');
    expect(text).toMatch(/^serp_advanced \(serp; step endpoints: serp\.google\.organic\.task_post, .*, and \d+ more \(--json\)\)$/m);
    expect(text).toContain('ready_list (ai_optimization; read by the run itself, not a step)');
    const json = collectStream();
    await tablesCommand({ root: ROOT, available: true, json: true, out: json });
    const reviews = (JSON.parse(json.text()) as { kind: string; steps: string[] }[]).find((k) => k.kind === 'app_app_reviews_advanced');
    expect(reviews?.steps).toEqual(['app_data.google.app_reviews.task_post']);
  });
});
