/**
 * The PostgreSQL destination against a real server started here: a nightly run publishes every table, view and
 * comment with DuckDB's row counts; a reader in another process never sees half a night; a run with the server
 * down completes into DuckDB with exit 6 and the next one catches up; schema evolution and catch-up of a missing
 * or behind table; the example queries run on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { AVAILABLE_TABLES, table } from '../../src/normalize/catalog.js';
import { pgIdent } from '../../src/publish/postgres/sql.js';
import { VIEWS } from '../../src/publish/views.js';
import { EXIT } from '../../src/exit.js';
import { publishToPostgres } from '../../src/publish/postgres/index.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { NIGHTLY, ROOT, collectStream, queryFile, startProject, type TestProject } from '../helpers/project.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import pg from 'pg';

const SCHEMA = 'seo_etl';
// The catalog tables the published file holds, read after each night: they grow as a run meets the generated
// families' (Labs, Backlinks) results.
let held: string[] = [];
const allTables = () => [...held, '_runs', '_tasks', '_attempts'];
async function readHeld(file: string): Promise<void> {
  const present = new Set((await queryFile(file, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
  held = AVAILABLE_TABLES.filter((t) => present.has(t.name)).map((t) => t.name);
}

let p: TestProject;
let pgs: TestPostgres;
let env: NodeJS.ProcessEnv;
let first: RunJobResult;
let firstOut: ReturnType<typeof collectStream>;
let firstLog: ReturnType<typeof collectStream>;

const night = async (runDate: string) => {
  const out = collectStream();
  const log = collectStream();
  const r = await runJob({ root: ROOT, pipelineFile: NIGHTLY, runDate, env, configOverrides: p.overrides, progress: false, out, logDestination: log, stderrLog: false });
  if (r.publishedPath) await readHeld(r.publishedPath);
  return { r, out, log };
};

async function duckCounts(file: string): Promise<Record<string, number>> {
  const rows = await queryFile(file, allTables().map((t) => `SELECT '${t}' AS t, count(*)::BIGINT AS n FROM "${t}"`).join(' UNION ALL '));
  return Object.fromEntries(rows.map((r) => [String(r.t), Number(r.n)]));
}

async function pgCounts(): Promise<Record<string, number>> {
  // Each table under the name PostgreSQL keeps it by (pgIdent: a long generated name is cut and hashed).
  const rows = await pgs.query<{ t: string; n: string }>(allTables().map((t) => `SELECT '${t}' AS t, count(*) AS n FROM ${SCHEMA}."${pgIdent(t)}"`).join(' UNION ALL '));
  return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
}

beforeAll(async () => {
  pgs = await startPostgres();
  p = await startProject();
  env = { ...p.env, SEO_ETL_POSTGRES_URL: pgs.url };
  const n = await night('2026-03-01');
  first = n.r;
  firstOut = n.out;
  firstLog = n.log;
});

afterAll(async () => {
  await p?.close();
  pgs?.close();
});

describe('a nightly run with SEO_ETL_POSTGRES_URL set', () => {
  test('completes with exit 0 and says where it published, without the password', () => {
    expect(first.exitCode).toBe(EXIT.ok);
    expect(first.postgres?.status).toBe('published');
    const text = firstOut.text();
    expect(text).toMatch(/PostgreSQL: published to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres \(schema seo_etl\)/);
    expect(text).not.toContain(pgs.password);
    // One short line at info, the count of tables; the list of every table is for SEO_ETL_LOG_LEVEL=debug.
    const line = firstLog.text().split('\n').find((l) => l.includes('"published to PostgreSQL"'))!;
    expect(line.length, line.slice(0, 300)).toBeLessThan(600);
    expect(JSON.parse(line).tables_changed).toBeGreaterThan(20);
    expect(firstLog.text()).not.toContain('PostgreSQL tables published');
    expect(firstLog.text()).not.toContain(pgs.password);
  });

  test('every catalog and ledger table is in PostgreSQL with the same row count as DuckDB', async () => {
    const duck = await duckCounts(first.publishedPath);
    const pg = await pgCounts();
    expect(pg).toEqual(duck);
    expect(duck.keyword_data).toBeGreaterThan(0);
    expect(duck._tasks).toBe(first.summary!.tasks);
    // The nightly's Labs and Backlinks steps: their tables are among those compared, deep ones under short names.
    expect(duck.labs_ranked_keywords__items).toBeGreaterThan(0);
    expect(duck.backlinks_referring_domains__items).toBeGreaterThan(0);
    expect(Object.keys(duck).filter((t) => pgIdent(t) !== t && duck[t] > 0).length).toBeGreaterThan(0);
  });

  test('columns are typed as the catalog declares, with a primary key on _id', async () => {
    const cols = await pgs.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'keyword_data'`, [SCHEMA]);
    const type = Object.fromEntries(cols.map((c) => [c.column_name, c.data_type]));
    expect(type).toMatchObject({ _id: 'text', _loaded_at: 'timestamp with time zone', _list_idx: 'integer', cpc: 'double precision', search_volume: 'bigint' });
    const decl = table('keyword_data');
    expect(Object.keys(type).length).toBe(decl.columns.length + 5 + (decl.extra ? 1 : 0));
    const keys = await pgs.query<{ table_name: string; cols: string }>(
      `SELECT tc.table_name, string_agg(k.column_name, ',' ORDER BY k.ordinal_position) AS cols FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
       WHERE tc.table_schema = $1 AND tc.constraint_type = 'PRIMARY KEY' GROUP BY tc.table_name`, [SCHEMA]);
    const pk = Object.fromEntries(keys.map((k) => [k.table_name, k.cols]));
    for (const t of held) expect(pk[pgIdent(t)], t).toBe('_id');
    expect(pk._runs).toBe('run_id');
    expect(pk._tasks).toBe('run_id,task_key');
  });

  test('values arrive intact: a sample of rows equals DuckDB\'s, text, numbers, timestamps and JSON', async () => {
    const [d] = await queryFile(first.publishedPath, `SELECT _id, keyword, cpc, search_volume, epoch_ms(_loaded_at) AS ms, CAST(extra AS VARCHAR) AS extra FROM keyword_data ORDER BY _id LIMIT 1`);
    const [g] = await pgs.query<Record<string, unknown>>(`SELECT _id, keyword, cpc, search_volume, (extract(epoch FROM _loaded_at) * 1000)::bigint AS ms, extra::text AS extra FROM ${SCHEMA}.keyword_data WHERE _id = $1`, [d._id]);
    expect(g.keyword).toBe(d.keyword);
    expect(g.cpc).toBe(d.cpc);
    expect(Number(g.search_volume)).toBe(Number(d.search_volume));
    expect(Number(g.ms)).toBe(Number(d.ms));
    expect(g.extra === null ? null : JSON.parse(String(g.extra))).toEqual(d.extra === null ? null : JSON.parse(String(d.extra)));
  });

  test('every curated view exists and answers with the same number of rows as DuckDB\'s', async () => {
    expect(first.postgres?.status === 'published' && first.postgres.viewsFailed).toEqual([]);
    for (const v of VIEWS) {
      const [{ n: duck }] = await queryFile(first.publishedPath, `SELECT count(*)::INT AS n FROM ${v.name}`);
      const [{ n: pg }] = await pgs.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.${v.name}`);
      expect(pg, v.name).toBe(duck);
      const cols = await pgs.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [SCHEMA, v.name]);
      expect(cols.map((c) => c.column_name), v.name).toEqual(v.columns.map((c) => c.name));
    }
    const [runs] = await pgs.query<Record<string, unknown>>(`SELECT run_id, tasks, tasks_loaded, spent_usd FROM ${SCHEMA}.v_runs`);
    expect(runs.run_id).toBe(first.runId);
    expect(Number(runs.tasks)).toBe(first.summary!.tasks);
    expect(Number(runs.spent_usd)).toBeCloseTo(first.summary!.costUsd, 6);
  });

  test('tables, their columns and the views carry the data dictionary as comments', async () => {
    const kd = table('keyword_data');
    const [t] = await pgs.query<{ c: string }>(`SELECT obj_description('${SCHEMA}.keyword_data'::regclass, 'pg_class') AS c`);
    expect(t.c).toBe(kd.description);
    const [c] = await pgs.query<{ c: string }>(`SELECT col_description('${SCHEMA}.keyword_data'::regclass, a.attnum) AS c FROM pg_attribute a WHERE a.attrelid = '${SCHEMA}.keyword_data'::regclass AND a.attname = 'cpc'`);
    expect(c.c).toBe(kd.columns.find((x) => x.name === 'cpc')!.description);
    const missing = await pgs.query<{ relname: string; attname: string }>(
      `SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm') AND c.relname NOT IN ('_runs', '_tasks', '_attempts', '_publish_state') AND col_description(c.oid, a.attnum) IS NULL`, [SCHEMA]);
    expect(missing).toEqual([]);
    for (const v of VIEWS) {
      const [r] = await pgs.query<{ c: string }>(`SELECT obj_description('${SCHEMA}.${v.name}'::regclass, 'pg_class') AS c`);
      expect(r.c, v.name).toMatch(/\?.*One row per/);
    }
  });

  test('each example query of docs/queries runs unchanged on PostgreSQL and returns DuckDB\'s columns and row count', async () => {
    const dir = path.join(ROOT, 'docs', 'queries');
    // As a BI tool connects: the schema on the search path (docs/postgres.md).
    const client = new pg.Client({ connectionString: pgs.url, options: `-c search_path=${SCHEMA}` });
    await client.connect();
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql'))) {
      const sql = readFileSync(path.join(dir, f), 'utf8');
      const duck = await queryFile(first.publishedPath, sql);
      const { rows } = await client.query(sql).catch((err: Error) => { throw new Error(`${f}: ${err.message}`); });
      expect(rows.length, f).toBe(duck.length);
      expect(rows.length, f).toBeGreaterThan(0);
      expect(Object.keys(rows[0]), f).toEqual(Object.keys(duck[0]));
    }
    await client.end();
  });
});

describe('a second night, read by another process meanwhile', () => {
  let before: Record<string, number>;
  let after: Record<string, number>;
  let seen: string[];
  let second: RunJobResult;

  beforeAll(async () => {
    before = await pgCounts();
    const reader = spawn(process.execPath, [path.join(ROOT, 'test', 'helpers', 'pg-reader.mjs'), pgs.url, SCHEMA, allTables().map(pgIdent).join(',')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let buf = '';
    reader.stdout.on('data', (c) => { buf += String(c); const parts = buf.split('\n'); buf = parts.pop()!; lines.push(...parts); });
    const ready = () => new Promise<void>((resolve) => { const t = setInterval(() => { if (lines.length > 2) { clearInterval(t); resolve(); } }, 20); });
    await ready();
    second = (await night('2026-03-02')).r;
    await new Promise((r) => setTimeout(r, 300));
    reader.kill('SIGTERM');
    await new Promise((r) => reader.once('exit', r));
    seen = lines.filter(Boolean);
    after = await pgCounts();
  });

  test('the second run publishes incrementally: only the night\'s tasks are sent', async () => {
    expect(second.exitCode).toBe(EXIT.ok);
    const o = second.postgres!;
    expect(o.status).toBe('published');
    if (o.status !== 'published') return;
    expect(o.tables.filter((t) => t.mode === 'new' || t.mode === 'full')).toEqual([]);
    expect(o.tables.find((t) => t.table === 'keyword_data')!.mode).toBe('incremental');
    const total = Object.values(after).reduce((a, b) => a + b, 0);
    expect(o.inserted).toBeLessThan(total);
    expect(after).toEqual(await duckCounts(second.publishedPath));
    expect(after.keyword_data).toBeGreaterThan(before.keyword_data);
  });

  test('the reader always saw either the first night or the second, never a mix', () => {
    const a = JSON.stringify(allTables().map((t) => before[t]));
    const b = JSON.stringify(allTables().map((t) => after[t]));
    expect(seen.length).toBeGreaterThan(5);
    const mixed = seen.filter((s) => s !== a && s !== b);
    expect(mixed).toEqual([]);
    expect(seen).toContain(a);
    expect(seen).toContain(b);
  });
});

describe('PostgreSQL down during a run', () => {
  test('the run completes into DuckDB, exits 6 and says so; the next run catches PostgreSQL up', async () => {
    pgs.stop();
    let down: Awaited<ReturnType<typeof night>>;
    try {
      down = await night('2026-03-03');
    } finally {
      pgs.start();
    }
    expect(down.r.exitCode).toBe(EXIT.postgres);
    expect(down.r.status).toBe('completed');
    expect(down.out.text()).toMatch(/PostgreSQL: NOT published to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres/);
    expect(down.out.text()).not.toContain(pgs.password);
    const duckDown = await duckCounts(down.r.publishedPath);
    expect(duckDown._runs).toBe(3);
    expect((await pgCounts())._runs).toBe(2);

    const back = await night('2026-03-04');
    expect(back.r.exitCode).toBe(EXIT.ok);
    expect(await pgCounts()).toEqual(await duckCounts(back.r.publishedPath));
    const [{ n }] = await pgs.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.v_runs`);
    expect(n).toBe(4);
  });
});

describe('schema evolution and catch-up', () => {
  const publish = () => publishToPostgres({ url: pgs.url, schema: SCHEMA, warehouse: warehousePaths(p.dataDir).work });

  test('a column the catalog gained is added without losing the rows already there', async () => {
    // As a table published by an older catalog, without the column: its rows and their values must stay.
    await pgs.query(`ALTER TABLE ${SCHEMA}.tasks DROP COLUMN api_version`);
    const [{ n: rowsBefore }] = await pgs.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.tasks`);
    const costs = await pgs.query(`SELECT _id, cost FROM ${SCHEMA}.tasks ORDER BY _id`);
    const o = await publish();
    expect(o.status).toBe('published');
    if (o.status !== 'published') return;
    expect(o.addedColumns).toEqual(['tasks.api_version']);
    const [{ n }] = await pgs.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.tasks`);
    expect(n).toBe(rowsBefore);
    expect(await pgs.query(`SELECT _id, cost FROM ${SCHEMA}.tasks ORDER BY _id`)).toEqual(costs);
    const cols = await pgs.query(`SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tasks' AND column_name = 'api_version'`, [SCHEMA]);
    expect(cols).toEqual([{ data_type: 'text' }]);
  });

  test('a column the catalog renamed (table -> table_json) is renamed in place, its rows keeping their values', async () => {
    // As a schema published before the rename: `table`, with a value no later publish would write.
    const t = pgIdent('serp_results__items');
    await pgs.query(`ALTER TABLE ${SCHEMA}.${t} RENAME COLUMN table_json TO "table"`);
    await pgs.query(`UPDATE ${SCHEMA}.${t} SET "table" = '{"marker": 1}' WHERE _id = (SELECT min(_id) FROM ${SCHEMA}.${t})`);
    const o = await publish();
    expect(o.status).toBe('published');
    if (o.status !== 'published') return;
    expect(o.renamedColumns).toEqual(['serp_results__items.table -> table_json']);
    expect(o.addedColumns).toEqual([]);
    expect(await pgs.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.${t} WHERE table_json::text = '{"marker": 1}'`)).toEqual([{ n: 1 }]);
    const cols = await pgs.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name IN ('table', 'table_json')`, [SCHEMA, t]);
    expect(cols).toEqual([{ column_name: 'table_json' }]);
  });

  test('a missing table and a table whose copy is behind are caught up whole', async () => {
    await pgs.query(`DROP TABLE ${SCHEMA}.merchant_shopping__items CASCADE`);
    await pgs.query(`DELETE FROM ${SCHEMA}.keyword_data__monthly_searches WHERE _id IN (SELECT _id FROM ${SCHEMA}.keyword_data__monthly_searches LIMIT 5)`);
    await pgs.query(`UPDATE ${SCHEMA}._publish_state SET row_count = row_count - 5 WHERE object = 'keyword_data__monthly_searches'`);
    await pgs.query(`DELETE FROM ${SCHEMA}._publish_state WHERE object = 'events_serp'`);
    const o = await publish();
    expect(o.status).toBe('published');
    if (o.status !== 'published') return;
    const mode = Object.fromEntries(o.tables.map((t) => [t.table, t.mode]));
    expect(mode.merchant_shopping__items).toBe('new');
    expect(mode.events_serp).toBe('full');
    expect(o.viewsFailed).toEqual([]);
    expect(await pgCounts()).toEqual(await duckCounts(warehousePaths(p.dataDir).published));
    const views = await pgs.query(`SELECT table_name FROM information_schema.views WHERE table_schema = $1`, [SCHEMA]);
    expect(views.length).toBe(VIEWS.length);
  });

  test('publishing again with nothing new changes nothing', async () => {
    const before = await pgCounts();
    const o = await publish();
    expect(o.status === 'published' && o.tables.every((t) => t.mode === 'unchanged')).toBe(true);
    expect(await pgCounts()).toEqual(before);
  });

  test('a refused login comes back as a failure that names the destination without its password', async () => {
    const wrong = pgs.url.replace(encodeURIComponent(pgs.password), 'not-the-password');
    const o = await publishToPostgres({ url: wrong, schema: SCHEMA, warehouse: warehousePaths(p.dataDir).work });
    expect(o.status).toBe('failed');
    if (o.status !== 'failed') return;
    expect(o.error).toMatch(/password authentication failed/);
    expect(o.target).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
    expect(JSON.stringify(o)).not.toContain('not-the-password');
  });
});
