/**
 * Issue 32, point 8: the SERP views in PostgreSQL at a generated history of nightly rank tracking (the bench's
 * generator, src/bench/serp-year.ts, smaller: 3 keywords on desktop and mobile for 60 nights, one run a night with
 * two tracked targets), published to a real PostgreSQL server started here. Each view's query (what the publish
 * computes into its materialized rows) is run under EXPLAIN ANALYZE as the readers' settings have it: no join may
 * compare more rows than the items table holds (a join planned at a row where there were thousands compares pairs,
 * which grows with the square of the history), and each view gives PostgreSQL the same rows as DuckDB. What a
 * dashboard runs, the view, must read the materialized rows alone, by their key's index when it filters on it; the
 * next night's publish refreshes them. The figures at a year are `make bench`'s (docs/performance.md).
 * And the columns named after words PostgreSQL reserves (`references`, ...) are the ones docs/postgres.md names;
 * `table` is not one of them any more (issue 47: `table_json`).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DuckDBInstance } from '@duckdb/node-api';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { READER_SETTINGS, serpNextNight, serpYearPublish } from '../../src/bench/serp-year.js';
import { SERP_VIEWS } from '../../src/families/serp/views.js';
import { materializedName, viewSqlForPostgres } from '../../src/publish/postgres/sql.js';
import { publishToPostgres } from '../../src/publish/postgres/index.js';
import { AVAILABLE_TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { ROOT } from '../helpers/project.js';

let pgs: TestPostgres;
let dir: string;

beforeAll(async () => {
  pgs = await startPostgres();
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-serp-plans-'));
  const made = await serpYearPublish(dir, pgs.url, 3, 60);
  expect(made.refused).toEqual([]);
});
afterAll(() => { pgs?.close(); rmSync(dir, { recursive: true, force: true }); });

interface PlanNode { 'Node Type': string; 'Actual Loops'?: number; 'Rows Removed by Join Filter'?: number; 'Join Filter'?: string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

/** Every node of a plan, depth first. */
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The joins of a plan that compared rows by filter, with how many rows they removed over all their loops. */
function joinFilterWork(node: PlanNode, out: { node: string; removed: number }[] = []): { node: string; removed: number }[] {
  const removed = Number(node['Rows Removed by Join Filter'] ?? 0) * Number(node['Actual Loops'] ?? 1);
  if (removed) out.push({ node: `${node['Node Type']} on ${String(node['Join Filter']).slice(0, 160)}`, removed });
  for (const child of node.Plans ?? []) joinFilterWork(child, out);
  return out;
}

test('every SERP view\'s query joins without comparing rows pairwise at a generated history, and reads as in DuckDB', async () => {
  const c = new pg.Client({ connectionString: pgs.url });
  await c.connect();
  const duck = await DuckDBInstance.create(path.join(dir, 'serp-year.duckdb'), { access_mode: 'READ_ONLY' });
  const dc = await duck.connect();
  try {
    await c.query('SET search_path TO serp_year, public');
    for (const [k, v] of Object.entries(READER_SETTINGS)) await c.query(`SET ${k} = '${v}'`);
    await c.query(`SET statement_timeout = '120s'`);
    const items = Number((await c.query('SELECT count(*) AS n FROM serp_results__items')).rows[0].n);
    expect(items).toBeGreaterThan(8000); // 360 pages of about 26 items
    const tracked = Number((await c.query('SELECT count(*) AS n FROM v_serp_tracked_ranks')).rows[0].n);
    expect(tracked).toBe(2 * 3 * 2 * 60); // two targets, every keyword, device and night: the views' grid is exercised

    const problems: string[] = [];
    for (const v of SERP_VIEWS) {
      // The view's own query, as the publish computes it into the materialized rows.
      const plan = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${viewSqlForPostgres(v.select)}`)).rows[0]['QUERY PLAN'] as { Plan: PlanNode; 'Actual Rows'?: number }[];
      // A join may test each item against each tracked domain of its task (two here): linear, not pairwise.
      for (const j of joinFilterWork(plan[0].Plan)) if (j.removed > 4 * items) problems.push(`${v.name}: ${j.node}: ${j.removed} rows compared and removed (${items} items)`);
      const pgRows = Number((await c.query(`SELECT count(*) AS n FROM ${v.name}`)).rows[0].n);
      const duckRows = Number((await dc.runAndReadAll(`SELECT count(*) FROM ${v.name}`)).getRows()[0][0]);
      if (pgRows !== duckRows) problems.push(`${v.name}: ${pgRows} rows in PostgreSQL, ${duckRows} in DuckDB`);
    }
    expect(problems).toEqual([]);
  } finally {
    await c.end();
    dc.closeSync();
    duck.closeSync();
  }
});

test('a dashboard reads each SERP view from its materialized rows, by their key when it filters on it, refreshed by the next night', async () => {
  const c = new pg.Client({ connectionString: pgs.url });
  await c.connect();
  const plan = async (sql: string) => ((await c.query(`EXPLAIN (FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
  try {
    await c.query('SET search_path TO serp_year, public');
    for (const [k, v] of Object.entries(READER_SETTINGS)) await c.query(`SET ${k} = '${v}'`);
    const problems: string[] = [];
    const heavy = SERP_VIEWS.filter((v) => v.pgMaterializedKey);
    // Every SERP view that reads the items (all but the unknown item types' count) is materialized.
    expect(heavy.map((v) => v.name)).toEqual(SERP_VIEWS.filter((v) => v.select.includes('serp_items')).map((v) => v.name));
    for (const v of heavy) {
      // The whole view: one scan of its materialized rows, nothing computed per query (no join, grouping or window).
      const whole = nodes(await plan(`SELECT * FROM ${v.name}`));
      const read = whole.filter((n) => n['Relation Name']).map((n) => n['Relation Name']);
      if (read.join() !== materializedName(v.name) || whole.length !== 1) problems.push(`${v.name}: ${whole.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''}`).join(' > ')}`);
      // A filter on the key's leading column is answered by the key's index (sequential scans off: the sizes here are
      // small enough for the planner to prefer scanning; what is checked is that an index serves the filter).
      await c.query('SET enable_seqscan = off');
      const lead = v.pgMaterializedKey![0];
      const filtered = nodes(await plan(`SELECT * FROM ${v.name} WHERE ${lead} = 'x'`));
      await c.query('RESET enable_seqscan');
      if (!filtered.some((n) => n['Index Name'] === `${materializedName(v.name)}_key`)) problems.push(`${v.name}: a filter on ${lead} is not read by the key's index: ${filtered.map((n) => n['Node Type']).join(' > ')}`);
    }
    expect(problems).toEqual([]);

    // The next night: the rows of every materialized view are refreshed in the publish, to the tables' rows.
    const before = Number((await c.query('SELECT count(*) AS n FROM v_serp_tracked_ranks')).rows[0].n);
    const night = await serpNextNight(dir, pgs.url, 3, 60);
    expect(night.refused).toEqual([]);
    expect([...night.refreshed].sort()).toEqual(heavy.map((v) => materializedName(v.name)).sort());
    expect(Number((await c.query('SELECT count(*) AS n FROM v_serp_tracked_ranks')).rows[0].n)).toBe(before + 2 * 3 * 2);
    const latest = (await c.query(`SELECT max(date)::text AS d FROM v_serp_rank_history`)).rows[0].d;
    expect(latest).toBe((await c.query(`SELECT max(CAST(timezone('UTC', datetime) AS DATE))::text AS d FROM serp_results`)).rows[0].d);
    for (const v of heavy) {
      const rows = Number((await c.query(`SELECT count(*) AS n FROM ${v.name}`)).rows[0].n);
      const computed = Number((await c.query(`SELECT count(*) AS n FROM (${viewSqlForPostgres(v.select)}) AS x`)).rows[0].n);
      expect(rows, v.name).toBe(computed);
    }
  } finally {
    await c.end();
  }
});

test('a materialized view PostgreSQL cannot refresh is named, the rest is published, and the next publish recreates it', async () => {
  const features = materializedName('v_serp_features');
  // Its key's index gone (by hand): a concurrent refresh needs it, so PostgreSQL refuses this one refresh.
  await pgs.query(`DROP INDEX serp_year.${features}_key`);
  const night = await serpNextNight(dir, pgs.url, 3, 60, 2);
  expect(night.refused).toEqual([expect.stringMatching(new RegExp(`^refresh of ${features}: .*unique index`))]);
  expect(night.refreshed).toHaveLength(SERP_VIEWS.filter((v) => v.pgMaterializedKey).length - 1);
  const pages = async () => Number((await pgs.query<{ n: string }>('SELECT max(pages) AS n FROM serp_year.v_serp_features'))[0].n);
  const pagesOfNight = 60 + 2; // every keyword's page of the year and the two nights after it
  expect(await pages()).toBe(pagesOfNight - 1);
  // The next publish, with nothing new, recreates the views: the index is back and the rows are current.
  const o = await publishToPostgres({ url: pgs.url, schema: 'serp_year', warehouse: path.join(dir, 'serp-year.duckdb'), stageDir: path.join(dir, 'stage-again') });
  expect(o.status === 'published' && [o.viewsFailed, o.refreshFailed, o.refreshed.includes(features)]).toEqual([[], [], true]);
  expect(await pages()).toBe(pagesOfNight);
  expect(await pgs.query(`SELECT 1 FROM pg_indexes WHERE schemaname = 'serp_year' AND indexname = $1`, [`${features}_key`])).toHaveLength(1);
});

test('the columns that must be quoted in PostgreSQL are the ones docs/postgres.md names', async () => {
  // Every table and column the catalog can publish (generated families' tables too), against the server's keywords.
  const names = [...new Set(AVAILABLE_TABLES.flatMap((t) => [t.name, ...allColumns(t).map((c) => c.name)]))];
  const reserved = (await pgs.query<{ n: string }>(
    `SELECT n FROM unnest($1::text[]) AS n JOIN pg_get_keywords() k ON k.word = n WHERE k.catcode IN ('R', 'T') ORDER BY n`, [names])).map((r) => r.n);
  expect(reserved).toContain('references');
  expect(reserved).not.toContain('table');
  const docs = readFileSync(path.join(ROOT, 'docs', 'postgres.md'), 'utf8');
  const listed = /named after words PostgreSQL reserves: ((?:`\w+`,?\s*)+)/.exec(docs)?.[1].match(/\w+/g) ?? [];
  expect(listed).toEqual(reserved);
  // Quoted, they read as any other column.
  await pgs.query('SELECT table_json, "references" FROM serp_year.serp_results__items__elements LIMIT 1');
});
