/**
 * One answer per family in the live service's shapes (the sandbox's, which test/acceptance/all-operations.test.ts
 * holds to the official client's models), fed through `seo-etl ingest`, then published to PostgreSQL: every column
 * that takes a field the models declare has the type the models give it, in DuckDB, in the Parquet files and in
 * PostgreSQL. The expected type is read from the sources themselves, not from the catalog: the client's declared
 * type, its note's time format (`yyyy-mm-dd hh-mm-ss +00:00`) or example value, and the specification's integers
 * (scripts/facts/integer-fields.json).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { DuckDBInstance } from '@duckdb/node-api';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';
import { endpoint } from '../../src/api/catalog.js';
import { AVAILABLE_TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { pgIdent } from '../../src/publish/postgres/sql.js';
import { publishToPostgres } from '../../src/publish/postgres/index.js';
import { FAMILIES } from '../../src/families/index.js';
import { useIngestProject } from '../helpers/ingest-project.js';
import { tablesCommand } from '../../src/publish/command.js';
import { Writable } from 'node:stream';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { model } from '../helpers/client-models.js';

const { root, call, ingest, rows } = useIngestProject('model-types');
const ROOT = new URL('../..', import.meta.url).pathname;
const INTEGERS: Record<string, string[]> = JSON.parse(readFileSync(path.join(ROOT, 'scripts', 'facts', 'integer-fields.json'), 'utf8')).models;
// A format, or an example value of a date or a time (`example: '1997-03-29 03:00:00 +00:00'`, `example: 2022-05-16`).
const TIME_NOTE = /hh[-:]mm[-:]ss|year-month-date:minutes|\(in the UTC format\)|yyyy-mm-dd|year-month-date|example:?\s*[`'"]*\d{4}-\d{2}-\d{2}/;

/** One call per family of the registry: the endpoint and the task a user would send. */
const CALLS: [string, Record<string, unknown>][] = [
  ['ai_optimization.llm_mentions.search_mentions.live', { target: [{ domain: 'example.com' }], location_code: 2840, language_code: 'en', limit: 5 }],
  ['app_data.google.app_listings.search.live', { title: 'running' }],
  ['appendix.errors', {}],
  ['backlinks.domain_pages.live', { target: 'example.com', limit: 5 }],
  ['business_data.google.hotel_searches.live', { keyword: 'denver hotels', location_code: 2840, language_code: 'en' }],
  ['content_analysis.search.live', { keyword: 'running shoes', limit: 5 }],
  ['content_generation.paraphrase.live', { text: 'Trail shoes grip wet rock better than road shoes.', creativity_index: 0.5 }],
  ['dataforseo_labs.google.ranked_keywords.live', { target: 'example.com', location_code: 2840, language_code: 'en', limit: 5 }],
  ['domain_analytics.whois.overview.live', { limit: 5 }],
  ['keywords_data.google_trends.explore.live', { keywords: ['running shoes'], location_name: 'United States', language_code: 'en' }],
  ['merchant.amazon.sellers.live.advanced', { asin: 'B000000001', location_code: 2840, language_code: 'en_US' }],
  ['on_page.pages', { id: '00000000-0000-0000-0000-000000000001', limit: 5 }],
  ['serp.youtube.video_comments.live.advanced', { video_id: 'vQXvyV0zIP4', location_code: 2840, language_code: 'en' }],
];

/** The DuckDB type the sources give a model field, or null where they give none (objects, lists, any). */
function expected(modelName: string, field: string): 'BIGINT' | 'DOUBLE' | 'TIMESTAMPTZ' | 'BOOLEAN' | 'VARCHAR' | null {
  let m;
  try { m = model(modelName); } catch { return null; }
  const type = m.fields.get(field);
  if (type === 'number') return INTEGERS[modelName]?.includes(field) ? 'BIGINT' : 'DOUBLE';
  if (type === 'boolean') return 'BOOLEAN';
  if (type === 'string') return TIME_NOTE.test(m.notes.get(field) ?? '') ? 'TIMESTAMPTZ' : 'VARCHAR';
  return null;
}

const DUCK: Record<string, string> = { 'TIMESTAMP WITH TIME ZONE': 'TIMESTAMPTZ' };
const PARQUET: Record<string, string> = { BIGINT: 'BIGINT', DOUBLE: 'DOUBLE', BOOLEAN: 'BOOLEAN', VARCHAR: 'VARCHAR', 'TIMESTAMP WITH TIME ZONE': 'TIMESTAMPTZ' };
const PG: Record<string, string> = { bigint: 'BIGINT', 'double precision': 'DOUBLE', boolean: 'BOOLEAN', text: 'VARCHAR', 'timestamp with time zone': 'TIMESTAMPTZ' };

/** Table -> column -> the type the sources give it, for every column the catalog says takes a model field. */
let declared = new Map<string, Map<string, string>>();
let pgs: TestPostgres;
const SCHEMA = 'types_test';

beforeAll(async () => {
  const files: string[] = [];
  for (const [id, task] of CALLS) {
    const e = endpoint(id);
    const env = await call(e.method, e.path, e.method === 'GET' ? undefined : [task]);
    expect(env.tasks?.[0]?.status_code, `${id}: ${JSON.stringify(env).slice(0, 300)}`).toBe(20000);
    const file = path.join(root, `${id}.json`);
    writeFileSync(file, JSON.stringify(env));
    files.push(file);
  }
  await ingest(files);
  const tables = new Set((await rows(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
  declared = new Map();
  for (const t of AVAILABLE_TABLES) {
    if (!tables.has(t.name)) continue;
    const cols = new Map<string, string>();
    for (const c of t.columns) {
      // Columns derived from the models say which field they take: `path` (Model.field: type).
      const at = /\((\w+)\.(\w+): [^)]+\)/.exec(c.description);
      const want = at ? expected(at[1], at[2]) : null;
      if (want && !c.convert) cols.set(c.name, want);
    }
    if (cols.size) declared.set(t.name, cols);
  }
  pgs = await startPostgres();
  const paths = warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir));
  const outcome = await publishToPostgres({ url: pgs.url, schema: SCHEMA, warehouse: paths.published });
  expect(outcome.status).toBe('published');
});

afterAll(() => pgs?.close());

describe('every field the models declare has their type in every destination', () => {
  it('covers every family of the registry, with times, integers and numbers among the columns', () => {
    const families = new Set(CALLS.map(([id]) => id.split('.')[0]));
    expect([...families].sort()).toEqual(FAMILIES.map((f) => f.name).sort());
    const all = [...declared.values()].flatMap((m) => [...m.values()]);
    for (const type of ['TIMESTAMPTZ', 'BIGINT', 'DOUBLE', 'BOOLEAN']) expect(all.filter((t) => t === type).length, type).toBeGreaterThan(5);
  });

  it('DuckDB: the working warehouse', async () => {
    const got = await rows(`SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns WHERE table_schema = 'main'`);
    const wrong: string[] = [];
    for (const r of got) {
      const want = declared.get(r.t)?.get(r.c);
      if (want && (DUCK[r.d] ?? r.d) !== want) wrong.push(`${r.t}.${r.c}: ${r.d}, the models say ${want}`);
    }
    expect(wrong).toEqual([]);
    // Anchors a reader can check by eye: a backlink's first sighting, its counts, a keyword's traffic value.
    const types = new Map(got.map((r) => [`${r.t}.${r.c}`, DUCK[r.d] ?? r.d]));
    expect(types.get('backlinks_domain_pages__items.page_summary__first_seen')).toBe('TIMESTAMPTZ');
    expect(types.get('backlinks_domain_pages__items.page_summary__backlinks')).toBe('BIGINT');
    expect(types.get('labs_ranked_keywords__items__organic.etv')).toBe('DOUBLE');
    expect(types.get('labs_ranked_keywords__items.keyword_data__keyword_info__last_updated_time')).toBe('TIMESTAMPTZ');
  });

  it('DuckDB: typed values, not text, in the time columns', async () => {
    const [r] = await rows(`SELECT count(page_summary__first_seen)::INT AS n, min(page_summary__first_seen) AS t FROM backlinks_domain_pages__items`);
    expect(r.n).toBeGreaterThan(0);
    expect(r.t).toBeInstanceOf(Date);
  });

  it('Parquet: the files the run exported', async () => {
    const dir = warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).parquet;
    const wrong: string[] = [];
    let checked = 0;
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    for (const [table, cols] of declared) {
      if (!readdirSync(dir).includes(table)) continue;
      const got = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path.join(dir, table)}/*/*.parquet')`)).getRowObjectsJS();
      for (const r of got) {
        const want = cols.get(String(r.column_name));
        if (!want) continue;
        checked++;
        if ((PARQUET[String(r.column_type)] ?? r.column_type) !== want) wrong.push(`${table}.${r.column_name}: ${r.column_type}, the models say ${want}`);
      }
    }
    conn.closeSync();
    db.closeSync();
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('PostgreSQL: every table under its short name, every column typed', async () => {
    const client = new pg.Client({ connectionString: pgs.url });
    await client.connect();
    try {
      const got = (await client.query(`SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns WHERE table_schema = $1`, [SCHEMA])).rows;
      const byTable = new Map<string, Map<string, string>>();
      for (const r of got) {
        if (!byTable.has(r.t)) byTable.set(r.t, new Map());
        byTable.get(r.t)!.set(r.c, r.d);
      }
      const wrong: string[] = [];
      let long = 0;
      for (const [table, cols] of declared) {
        const pgCols = byTable.get(pgIdent(table));
        if (!pgCols) { wrong.push(`${table}: not in PostgreSQL as ${pgIdent(table)}`); continue; }
        if (pgIdent(table) !== table) long++;
        for (const [col, want] of cols) {
          const d = pgCols.get(pgIdent(col));
          if (PG[d ?? ''] !== want) wrong.push(`${table}.${col}: ${d}, the models say ${want}`);
        }
        // Every column of the catalog table is there, none other than the catalog's.
        expect([...pgCols.keys()].sort(), table).toEqual(allColumns(AVAILABLE_TABLES.find((t) => t.name === table)!).map((c) => pgIdent(c.name)).sort());
      }
      expect(wrong).toEqual([]);
      expect(long, 'tables whose names PostgreSQL shortens').toBeGreaterThan(0);
      // `seo-etl tables` and `tables --available` show each shortened name beside its full one, as the data dictionary does.
      const listed = async (available: boolean) => {
        let text = '';
        const out = new Writable({ write(chunk, _enc, done) { text += String(chunk); done(); } });
        expect(await tablesCommand({ root, available, out, env: {} })).toBe(0);
        return text;
      };
      const [published, available] = [await listed(false), await listed(true)];
      for (const table of declared.keys()) {
        if (pgIdent(table) === table) continue;
        expect(published, table).toMatch(new RegExp(`^${table} .*\\(PostgreSQL: ${pgIdent(table)}\\)$`, 'm'));
        expect(available, table).toContain(`${table} (PostgreSQL: ${pgIdent(table)})`);
      }
      const dictionary = readdirSync(path.join(ROOT, 'docs', 'tables')).map((f) => readFileSync(path.join(ROOT, 'docs', 'tables', f), 'utf8')).join('\n');
      for (const table of declared.keys()) {
        if (pgIdent(table) !== table) expect(dictionary, table).toContain(`\`${table}\` (PostgreSQL: \`${pgIdent(table)}\`)`);
      }
    } finally {
      await client.end();
    }
  });
});
