/**
 * Curated views: they compile and answer on an empty warehouse, their columns are the declared ones, and on
 * hand-made rows they give the numbers a reader would compute by hand (de-duplication across runs, shares,
 * medians, problems counted once per resource, spend and failures per run).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { publishWarehouse } from '../../src/publish/index.js';
import { VIEWS, curatedViews, missingTablesSql } from '../../src/publish/views.js';
import { renderViewsSection, withViewsSection, VIEWS_BEGIN, VIEWS_END } from '../../src/publish/docs.js';
import { ALWAYS_IN_USE, table } from '../../src/normalize/catalog.js';
import { ROOT } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-views-'));
  dirs.push(d);
  return d;
}

async function withDb<T>(file: string, fn: (c: DuckDBConnection) => Promise<T>, readOnly = false): Promise<T> {
  const i = await DuckDBInstance.create(file, readOnly ? { access_mode: 'READ_ONLY' } : {});
  const c = await i.connect();
  try { return await fn(c); } finally { c.closeSync(); i.closeSync(); }
}

/** Rows as plain values: counts (BIGINT) as numbers. */
const rows = async (c: DuckDBConnection, sql: string) => ((await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[])
  .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));

describe('on an empty warehouse', () => {
  let published: string;
  beforeAll(async () => {
    const d = tmp();
    const work = path.join(d, 'work.duckdb');
    await withDb(work, async (c) => { await c.run('CHECKPOINT'); }); // a database with no table at all
    published = path.join(d, 'warehouse.duckdb');
    await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews });
  });

  test('every view answers with no rows and exactly its declared columns, in order', async () => {
    await withDb(published, async (c) => {
      for (const v of VIEWS) {
        const r = await c.runAndReadAll(`SELECT * FROM ${v.name}`);
        expect(r.columnNames(), v.name).toEqual(v.columns.map((x) => x.name));
        expect(r.currentRowCount, v.name).toBe(0);
      }
    }, true);
  });

  test('every catalog and ledger table exists, so views and readers never meet a missing table', async () => {
    await withDb(published, async (c) => {
      const names = new Set((await rows(c, `SELECT table_name FROM duckdb_tables()`)).map((r) => r.table_name));
      for (const t of [...ALWAYS_IN_USE.map((x) => x.name), '_runs', '_tasks', '_attempts']) expect(names.has(t), t).toBe(true);
    }, true);
  });

  test('views, their columns and every table carry their descriptions as comments (a table\'s columns, with its rows)', async () => {
    await withDb(published, async (c) => {
      const views = await rows(c, `SELECT view_name, comment FROM duckdb_views() WHERE NOT internal`);
      expect(views.map((v) => v.view_name).sort()).toEqual(VIEWS.map((v) => v.name).sort());
      for (const v of views) expect(String(v.comment), String(v.view_name)).toMatch(/\?.*One row per/);
      const viewColumns = await rows(c, `SELECT table_name, column_name FROM duckdb_columns() WHERE NOT internal AND comment IS NULL AND table_name IN (SELECT view_name FROM duckdb_views())`);
      expect(viewColumns).toEqual([]);
      const tables = await rows(c, `SELECT table_name FROM duckdb_tables() WHERE comment IS NULL`);
      expect(tables).toEqual([]);
      const [kd] = await rows(c, `SELECT comment FROM duckdb_tables() WHERE table_name = 'keyword_data'`);
      expect(kd.comment).toBe(table('keyword_data').description);
    }, true);
  });
});

describe('on hand-made rows', () => {
  let published: string;
  beforeAll(async () => {
    const d = tmp();
    const work = path.join(d, 'work.duckdb');
    await withDb(work, async (c) => {
      await c.run(missingTablesSql(ALWAYS_IN_USE));
      await c.run(SEED);
      await c.run('CHECKPOINT');
    });
    published = path.join(d, 'warehouse.duckdb');
    await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews });
  });
  const q = (sql: string) => withDb(published, (c) => rows(c, sql), true);

  test('keyword trends: a month collected twice takes the later figure; change against the calendar month before', async () => {
    const r = await q(`SELECT strftime(month, '%Y-%m') AS m, search_volume, previous_month_search_volume AS prev, change_pct, latest_cpc, run_id FROM v_keyword_trends WHERE keyword = 'tent' ORDER BY month`);
    expect(r).toEqual([
      { m: '2025-01', search_volume: 10, prev: null, change_pct: null, latest_cpc: 2.5, run_id: 'p-2025-04-01' },
      { m: '2025-02', search_volume: 25, prev: 10, change_pct: 150, latest_cpc: 2.5, run_id: 'p-2025-05-01' },
      { m: '2025-03', search_volume: 35, prev: 25, change_pct: 40, latest_cpc: 2.5, run_id: 'p-2025-05-01' },
      { m: '2025-05', search_volume: 0, prev: null, change_pct: null, latest_cpc: 2.5, run_id: 'p-2025-05-01' },
      { m: '2025-06', search_volume: 7, prev: 0, change_pct: null, latest_cpc: 2.5, run_id: 'p-2025-05-01' },
    ]);
  });

  test('technology adoption: shares of the distinct domains found that day, per technology and per category', async () => {
    const r = await q(`SELECT technology, domains, share_of_domains, category_domains, category_share, domains_seen FROM v_technology_adoption WHERE category = 'cdn' ORDER BY technology`);
    expect(r).toEqual([
      { technology: 'X', domains: 2, share_of_domains: 0.5, category_domains: 3, category_share: 0.75, domains_seen: 4 },
      { technology: 'Y', domains: 2, share_of_domains: 0.5, category_domains: 3, category_share: 0.75, domains_seen: 4 },
    ]);
    const [day] = await q(`SELECT DISTINCT strftime(snapshot_date, '%Y-%m-%d') AS d FROM v_technology_adoption`);
    expect(day.d).toBe('2025-05-01');
  });

  test('merchant prices: priced items and carousel elements of a keyword, currencies apart', async () => {
    const r = await q(`SELECT keyword, currency, offers, sponsored_offers, sellers, min_price, median_price, avg_price, max_price, cheapest_seller FROM v_merchant_prices ORDER BY currency`);
    expect(r).toEqual([
      { keyword: 'tent', currency: 'EUR', offers: 1, sponsored_offers: 0, sellers: 1, min_price: 99, median_price: 99, avg_price: 99, max_price: 99, cheapest_seller: 'B' },
      { keyword: 'tent', currency: 'GBP', offers: 4, sponsored_offers: 1, sellers: 3, min_price: 5, median_price: 15, avg_price: 16.25, max_price: 30, cheapest_seller: 'C' },
    ]);
    const s = await q(`SELECT seller, offers, min_price, price_rank, best_rank_absolute, avg_product_rating FROM v_merchant_sellers WHERE currency = 'GBP' ORDER BY price_rank`);
    // Ratings on 5, 10 and 100 are averaged on one scale: A's 4/5 and 90% give 4.25, B's 3/10 gives 1.5.
    expect(s).toEqual([
      { seller: 'C', offers: 1, min_price: 5, price_rank: 1, best_rank_absolute: 1, avg_product_rating: null },
      { seller: 'A', offers: 2, min_price: 10, price_rank: 2, best_rank_absolute: 2, avg_product_rating: 4.25 },
      { seller: 'B', offers: 1, min_price: 30, price_rank: 3, best_rank_absolute: 3, avg_product_rating: 1.5 },
    ]);
  });

  test('resource problems: per site without www, a URL met twice counted once, errors and warnings summed', async () => {
    const r = await q(`SELECT site, resource_type, resources, resources_with_problems, broken, slow, not_minified, resources_with_errors, errors, warnings, total_size_bytes FROM v_resource_problems ORDER BY site, resource_type`);
    expect(r).toEqual([
      { site: 'example.com', resource_type: 'image', resources: 1, resources_with_problems: 1, broken: 0, slow: 1, not_minified: 0, resources_with_errors: 0, errors: 0, warnings: 1, total_size_bytes: 200 },
      { site: 'example.com', resource_type: 'script', resources: 1, resources_with_problems: 1, broken: 1, slow: 0, not_minified: 1, resources_with_errors: 1, errors: 2, warnings: 0, total_size_bytes: 100 },
      { site: 'other.org', resource_type: 'script', resources: 1, resources_with_problems: 0, broken: 0, slow: 0, not_minified: 0, resources_with_errors: 0, errors: 0, warnings: 0, total_size_bytes: 50 },
    ]);
  });

  test('runs, steps and failed tasks from the ledger: spend in micro-dollars, failures with their error', async () => {
    const runs = await q(`SELECT run_id, strftime(run_date, '%Y-%m-%d') AS run_date, tasks, tasks_loaded, tasks_failed, tasks_unfinished, spent_usd, budget_used_pct, duration_seconds FROM v_runs ORDER BY run_id`);
    expect(runs).toEqual([
      { run_id: 'p-2025-04-01', run_date: '2025-04-01', tasks: 0, tasks_loaded: 0, tasks_failed: 0, tasks_unfinished: 0, spent_usd: 0, budget_used_pct: 0, duration_seconds: 60 },
      { run_id: 'p-2025-05-01', run_date: '2025-05-01', tasks: 4, tasks_loaded: 2, tasks_failed: 1, tasks_unfinished: 1, spent_usd: 0.3, budget_used_pct: 30, duration_seconds: 90 },
    ]);
    const steps = await q(`SELECT step, tasks, tasks_failed, spent_usd FROM v_run_steps ORDER BY step_index`);
    expect(steps).toEqual([
      { step: 'ideas', tasks: 3, tasks_failed: 1, spent_usd: 0.3 },
      { step: 'shop', tasks: 1, tasks_failed: 0, spent_usd: 0 },
    ]);
    const failed = await q(`SELECT run_id, step, task_key, error_code, error_message, cost_usd FROM v_failed_tasks`);
    expect(failed).toEqual([{ run_id: 'p-2025-05-01', step: 'ideas', task_key: 'k3', error_code: 40501, error_message: 'Invalid Field: keyword', cost_usd: 0 }]);
  });
});

describe('docs/analysis.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'analysis.md'), 'utf8');

  test('its views section is the rendering of the declarations (seo-etl docs rewrites it)', () => {
    expect(doc).toContain(VIEWS_BEGIN);
    expect(doc).toContain(VIEWS_END);
    expect(withViewsSection(doc)).toBe(doc);
  });

  test('every view and every one of its columns is documented', () => {
    const section = renderViewsSection();
    for (const v of VIEWS) {
      expect(doc).toContain(`### ${v.name}`);
      for (const c of v.columns) expect(section).toContain(`| \`${c.name}\` |`);
    }
  });

  test('it links the data dictionary and the Parquet layout', () => {
    expect(doc).toContain('(tables.md)');
    expect(doc).toContain('(parquet.md)');
  });

  test('every example query in docs/queries is listed with a link', () => {
    const files = readdirSync(path.join(ROOT, 'docs', 'queries')).filter((f) => f.endsWith('.sql'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(doc, f).toContain(`(queries/${f})`);
  });

  test('a document without the markers is refused with a message naming them', () => {
    expect(() => withViewsSection('# no markers')).toThrow(/views:begin/);
  });
});

/** Two runs of one pipeline; keyword months overlap; one domain search; a shopping result; resources; a ledger. */
const SEED = `
INSERT INTO _runs (run_id, pipeline, run_date, status, attempts, started_at, updated_at, finished_at, budget_usd) VALUES
  ('p-2025-04-01', 'p', '2025-04-01', 'completed', 1, TIMESTAMP '2025-04-01 02:00:00', TIMESTAMP '2025-04-01 02:01:00', TIMESTAMP '2025-04-01 02:01:00', 1),
  ('p-2025-05-01', 'p', '2025-05-01', 'aborted', 2, TIMESTAMP '2025-05-01 02:00:00', TIMESTAMP '2025-05-01 02:01:30', TIMESTAMP '2025-05-01 02:01:30', 1);
INSERT INTO _tasks (run_id, task_key, seq, step, step_index, endpoint_id, collect, params, price, state, cost, attempts, pages, error_code, error_message, failed_at, updated_at) VALUES
  ('p-2025-05-01', 'k1', 0, 'ideas', 0, 'keywords_for_keywords.task_post', 'tasks_ready', '{}', 0.1, 'loaded', 0.1, 1, 1, NULL, NULL, NULL, TIMESTAMP '2025-05-01 02:01:00'),
  ('p-2025-05-01', 'k2', 1, 'ideas', 0, 'keywords_for_keywords.task_post', 'tasks_ready', '{}', 0.1, 'posted', 0.2, 1, 0, NULL, NULL, NULL, TIMESTAMP '2025-05-01 02:01:00'),
  ('p-2025-05-01', 'k3', 2, 'ideas', 0, 'keywords_for_keywords.task_post', 'tasks_ready', '{"keyword":""}', 0.1, 'failed', NULL, 1, 0, 40501, 'Invalid Field: keyword', TIMESTAMP '2025-05-01 02:00:10', TIMESTAMP '2025-05-01 02:01:00'),
  ('p-2025-05-01', 'k4', 3, 'shop', 1, 'merchant.google.products.task_post', 'postback', '{}', 0, 'loaded', 0, 1, 1, NULL, NULL, NULL, TIMESTAMP '2025-05-01 02:01:00');

INSERT INTO keyword_data (_id, _task_id, _run_id, _loaded_at, _list_idx, keyword, location_code, language_code, search_volume, cpc, competition) VALUES
  ('a:0', 'a', 'p-2025-04-01', TIMESTAMPTZ '2025-04-01 02:00:00+00', 0, 'tent', 2840, 'en', 20, 1.0, 0.1),
  ('b:0', 'b', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 0, 'tent', 2840, 'en', 30, 2.5, 0.2);
INSERT INTO keyword_data__monthly_searches (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, year, month, search_volume) VALUES
  ('a:0:0', 'a', 'p-2025-04-01', TIMESTAMPTZ '2025-04-01 02:00:00+00', 'a:0', 0, 2025, 1, 10),
  ('a:0:1', 'a', 'p-2025-04-01', TIMESTAMPTZ '2025-04-01 02:00:00+00', 'a:0', 1, 2025, 2, 20),
  ('a:0:2', 'a', 'p-2025-04-01', TIMESTAMPTZ '2025-04-01 02:00:00+00', 'a:0', 2, 2025, 3, 30),
  ('b:0:0', 'b', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'b:0', 0, 2025, 2, 25),
  ('b:0:1', 'b', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'b:0', 1, 2025, 3, 35),
  ('b:0:2', 'b', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'b:0', 2, 2025, 5, 0),
  ('b:0:3', 'b', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'b:0', 3, 2025, 6, 7);

INSERT INTO domain_technologies__items (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, domain) VALUES
  ('d:0:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0', 0, 'd1.com'),
  ('d:0:1', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0', 1, 'd2.com'),
  ('d:0:2', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0', 2, 'd3.com'),
  ('d:0:3', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0', 3, 'd4.com'),
  ('d:1:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:1', 0, 'd1.com');
INSERT INTO domain_technologies__items__technologies (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, "group", category, technology) VALUES
  ('d:0:0:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0:0', 0, 'servers', 'cdn', 'X'),
  ('d:0:1:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0:1', 0, 'servers', 'cdn', 'X'),
  ('d:0:1:1', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0:1', 1, 'servers', 'cdn', 'Y'),
  ('d:0:2:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:0:2', 0, 'servers', 'cdn', 'Y'),
  ('d:1:0:0', 'd', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'd:1:0', 0, 'servers', 'cdn', 'X');

INSERT INTO merchant_shopping (_id, _task_id, _run_id, _loaded_at, _list_idx, keyword, location_code, language_code) VALUES
  ('m:0', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 0, 'tent', 2826, 'en');
INSERT INTO merchant_shopping__items (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, item_type, rank_absolute, seller, price, currency, product_rating_value, product_rating_type, product_rating_max) VALUES
  ('m:0:0', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 0, 'shopping_sponsored_carousel', 1, NULL, NULL, NULL, NULL, NULL, NULL),
  ('m:0:1', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 1, 'shopping_serp', 2, 'A', 10, 'GBP', 4, 'Max5', 5),
  ('m:0:2', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 2, 'shopping_serp', 3, 'B', 30, 'GBP', 3, 'CustomMax', 10),
  ('m:0:3', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 3, 'shopping_serp', 4, 'A', 20, 'GBP', 90, 'Percents', NULL),
  ('m:0:4', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 4, 'shopping_paid', 5, NULL, NULL, NULL, NULL, NULL, NULL),
  ('m:0:5', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0', 5, 'shopping_serp', 6, 'B', 99, 'EUR', NULL, NULL, NULL);
INSERT INTO merchant_shopping__items__elements (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, seller, price, currency) VALUES
  ('m:0:0:0', 'm', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'm:0:0', 0, 'C', 5, 'GBP');

INSERT INTO onpage_resources__items (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, resource_type, url, size, check_is_broken, check_high_loading_time, check_is_minified, check_is_https) VALUES
  ('r:0:0', 'r', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'r:0', 0, 'script', 'https://www.Example.com/a.js', 100, true, false, false, true),
  ('s:0:0', 's', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:01+00', 's:0', 0, 'script', 'https://www.Example.com/a.js', 100, true, false, false, true),
  ('r:0:1', 'r', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'r:0', 1, 'image', 'https://example.com/b.png', 200, false, true, NULL, true),
  ('r:0:2', 'r', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'r:0', 2, 'script', 'https://other.org:8443/c.js?v=1', 50, false, false, true, true);
INSERT INTO onpage_resources__items__errors (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, line, message) VALUES
  ('s:0:0:0', 's', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:01+00', 's:0:0', 0, 1, 'JS Parse Error'),
  ('s:0:0:1', 's', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:01+00', 's:0:0', 1, 2, 'JS Parse Error'),
  ('r:0:0:0', 'r', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'r:0:0', 0, 9, 'counted only with the row kept');
INSERT INTO onpage_resources__items__warnings (_id, _task_id, _run_id, _loaded_at, _parent_id, _list_idx, line, message) VALUES
  ('r:0:1:0', 'r', 'p-2025-05-01', TIMESTAMPTZ '2025-05-01 02:00:00+00', 'r:0:1', 0, 0, 'big image');
`;
