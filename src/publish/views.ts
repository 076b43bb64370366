/**
 * Curated views: the questions readers ask, answered once in SQL over the catalog tables and the ledger, so a
 * notebook or a BI tool does not have to rediscover the joins (`_parent_id`), the de-duplication across runs and
 * the snapshot day of a row. They are created in the published warehouse only (the job's working file has none),
 * documented from these declarations in docs/analysis.md (renderViewsDoc) and as COMMENTs inside the warehouse.
 *
 * Every view works on an empty warehouse: the preamble creates any missing catalog or ledger table first.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { TABLES, TABLE_BY_NAME, activateTables } from '../normalize/catalog.js';
import { allColumns, type TableDef } from '../catalog/table.js';
import { LEDGER_DDL } from '../ledger/schema.js';
import { createTableSql, lit, q, tablesWithRows } from '../load/ddl.js';
import { FAMILIES } from '../families/index.js';
import type { ViewColumn, ViewDef } from '../catalog/view.js';
import { currentEndpointSql } from '../api/catalog.js';
import { RUN_VIEWS } from './views/runs.js';
import { snapshotDate, SNAPSHOT_DATE } from '../catalog/snapshot-date.js';


const col = (name: string, description: string): ViewColumn => ({ name, description });


/** Host of a URL, lower-case, without a leading `www.`. */
const siteOf = (expr: string) => `nullif(regexp_replace(lower(regexp_extract(${expr}, '^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#]+)', 1)), '^www\\.', ''), '')`;

/** USD sums in whole micro-dollars first, as the ledger does, so sums of many small prices do not drift. */
const usd = (expr: string) => `coalesce(sum(round(${expr} * 1000000)), 0) / 1000000.0`;

export const VIEWS: readonly ViewDef[] = [
  {
    name: 'v_keyword_trends',
    question: 'How does the search volume of a keyword move month by month?',
    grain: 'one row per keyword, location, language and month.',
    notes: 'From `keyword_data__monthly_searches` joined to `keyword_data`. Each collection reports the past twelve months, so runs overlap: a month\'s figure is the one collected last, and the series grows as runs accumulate. The `latest_*` columns are the keyword\'s figures from its latest collection.',
    columns: [
      col('keyword', 'Keyword.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('month', 'First day of the month (DATE).'),
      col('search_volume', 'Searches in that month.'),
      col('previous_month_search_volume', 'Searches in the calendar month before; null when that month is not known.'),
      col('change_pct', 'Change against the previous month, percent (one decimal); null without a previous month or when it was 0.'),
      col('latest_avg_monthly_searches', 'Average monthly searches of the keyword, latest collection.'),
      col('latest_cpc', 'Average cost per click, USD, latest collection.'),
      col('latest_competition', 'Paid-search competition 0..1, latest collection (the ads-based API\'s competition_index / 100).'),
      col('collected_at', 'When this month\'s figure was loaded.'),
      col('run_id', 'Run that collected this month\'s figure.'),
    ],
    select: `
WITH monthly_ranked AS (
  SELECT k.keyword, k.location_code, k.language_code, make_date(m.year, m.month, 1) AS month, m.search_volume,
         m._loaded_at AS collected_at, m._run_id AS run_id,
         row_number() OVER (PARTITION BY k.keyword, k.location_code, k.language_code, m.year, m.month ORDER BY m._loaded_at DESC, m._id DESC) AS rn
  FROM keyword_data__monthly_searches m JOIN keyword_data k ON k._id = m._parent_id
  WHERE k.keyword IS NOT NULL AND m.year IS NOT NULL AND m.month BETWEEN 1 AND 12
), monthly AS (
  SELECT keyword, location_code, language_code, month, search_volume, collected_at, run_id FROM monthly_ranked WHERE rn = 1
), latest_ranked AS (
  SELECT keyword, location_code, language_code, search_volume, cpc, coalesce(competition, competition_index / 100.0) AS competition,
         row_number() OVER (PARTITION BY keyword, location_code, language_code ORDER BY _loaded_at DESC, _id DESC) AS rn
  FROM keyword_data
  WHERE keyword IS NOT NULL
), latest AS (
  SELECT keyword, location_code, language_code, search_volume, cpc, competition FROM latest_ranked WHERE rn = 1
), series AS (
  SELECT m.*,
         CASE WHEN lag(m.month) OVER w = CAST(m.month - INTERVAL '1 month' AS DATE) THEN lag(m.search_volume) OVER w END AS previous_month_search_volume
  FROM monthly m
  WINDOW w AS (PARTITION BY m.keyword, m.location_code, m.language_code ORDER BY m.month)
)
SELECT s.keyword, s.location_code, s.language_code, s.month, s.search_volume, s.previous_month_search_volume,
       round(100.0 * (s.search_volume - s.previous_month_search_volume) / nullif(s.previous_month_search_volume, 0), 1) AS change_pct,
       l.search_volume AS latest_avg_monthly_searches, l.cpc AS latest_cpc, l.competition AS latest_competition,
       s.collected_at, s.run_id
FROM series s
LEFT JOIN latest l ON l.keyword = s.keyword AND l.location_code IS NOT DISTINCT FROM s.location_code AND l.language_code IS NOT DISTINCT FROM s.language_code`,
  },
  {
    name: 'v_technology_adoption',
    question: 'Which technologies, by group and category, do the domains we found use, and how widely?',
    grain: 'one row per snapshot day, technology group, category and technology.',
    notes: 'From `domain_technologies__items__technologies` joined to `domain_technologies__items`. Shares are of the distinct domains found that day (with or without technologies); a domain found twice that day counts once.',
    columns: [
      SNAPSHOT_DATE,
      col('technology_group', 'Technology group (servers, analytics, ...).'),
      col('category', 'Technology category within the group.'),
      col('technology', 'Technology name.'),
      col('domains', 'Distinct domains using the technology.'),
      col('share_of_domains', 'domains / domains_seen, 0..1.'),
      col('category_domains', 'Distinct domains using any technology of the category.'),
      col('category_share', 'category_domains / domains_seen, 0..1.'),
      col('domains_seen', 'Distinct domains found that day.'),
    ],
    select: `
WITH found AS (
  SELECT ${snapshotDate('d')} AS snapshot_date, d._id, d.domain
  FROM domain_technologies__items d LEFT JOIN _runs r ON r.run_id = d._run_id
  WHERE d.domain IS NOT NULL
), seen AS (
  SELECT snapshot_date, count(DISTINCT domain) AS domains_seen FROM found GROUP BY snapshot_date
), uses AS (
  SELECT f.snapshot_date, f.domain, t."group" AS technology_group, t.category, t.technology
  FROM domain_technologies__items__technologies t JOIN found f ON f._id = t._parent_id
), per_category AS (
  SELECT snapshot_date, technology_group, category, count(DISTINCT domain) AS category_domains
  FROM uses GROUP BY snapshot_date, technology_group, category
)
SELECT u.snapshot_date, u.technology_group, u.category, u.technology,
       count(DISTINCT u.domain) AS domains,
       count(DISTINCT u.domain) / CAST(any_value(s.domains_seen) AS FLOAT8) AS share_of_domains,
       any_value(c.category_domains) AS category_domains,
       any_value(c.category_domains) / CAST(any_value(s.domains_seen) AS FLOAT8) AS category_share,
       any_value(s.domains_seen) AS domains_seen
FROM uses u
JOIN seen s ON s.snapshot_date = u.snapshot_date
JOIN per_category c ON c.snapshot_date = u.snapshot_date AND c.technology_group IS NOT DISTINCT FROM u.technology_group AND c.category IS NOT DISTINCT FROM u.category
GROUP BY u.snapshot_date, u.technology_group, u.category, u.technology`,
  },
  {
    name: 'v_merchant_prices',
    question: 'What do products for a keyword cost, and how many sellers offer them?',
    grain: 'one row per snapshot day, keyword, location, language and currency.',
    notes: 'Offers are the priced items of `merchant_shopping__items` (shopping results) and the priced elements of sponsored carousels (`merchant_shopping__items__elements`), under their result\'s keyword. Prices in different currencies are never mixed.',
    columns: [
      SNAPSHOT_DATE,
      col('keyword', 'Keyword of the shopping result.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('currency', 'ISO currency code of the prices.'),
      col('offers', 'Priced offers.'),
      col('sponsored_offers', 'Of which in sponsored carousels.'),
      col('sellers', 'Distinct sellers (offers without a seller name are not counted).'),
      col('min_price', 'Lowest price.'),
      col('median_price', 'Median price (two decimals).'),
      col('avg_price', 'Average price (two decimals).'),
      col('max_price', 'Highest price.'),
      col('cheapest_seller', 'Seller of the lowest price.'),
    ],
    select: `
WITH offers AS (${merchantOffers()})
SELECT snapshot_date, keyword, location_code, language_code, currency,
       count(*) AS offers, count(*) FILTER (WHERE sponsored) AS sponsored_offers, count(DISTINCT seller) AS sellers,
       min(price) AS min_price, round(median(price), 2) AS median_price, round(avg(price), 2) AS avg_price, max(price) AS max_price,
       arg_min(seller, price) AS cheapest_seller
FROM offers
GROUP BY snapshot_date, keyword, location_code, language_code, currency`,
  },
  {
    name: 'v_merchant_sellers',
    question: 'Which sellers offer products for a keyword, at what prices and how high do they rank?',
    grain: 'one row per snapshot day, keyword, location, language, seller and currency.',
    notes: 'The same offers as `v_merchant_prices`, by seller; offers without a seller name are left out.',
    columns: [
      SNAPSHOT_DATE,
      col('keyword', 'Keyword of the shopping result.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('seller', 'Seller name.'),
      col('currency', 'ISO currency code of the prices.'),
      col('offers', 'Priced offers of the seller.'),
      col('sponsored_offers', 'Of which in sponsored carousels.'),
      col('min_price', 'Seller\'s lowest price.'),
      col('avg_price', 'Seller\'s average price (two decimals).'),
      col('max_price', 'Seller\'s highest price.'),
      col('price_rank', 'Rank of the seller\'s lowest price among the keyword\'s sellers (1 = cheapest).'),
      col('best_rank_absolute', 'Best (lowest) position of the seller\'s offers among all result items.'),
      col('avg_product_rating', 'Average product rating of the seller\'s offers, out of 5 (each rating scaled by its own maximum; two decimals).'),
    ],
    select: `
WITH offers AS (${merchantOffers()}), by_seller AS (
  SELECT snapshot_date, keyword, location_code, language_code, seller, currency,
         count(*) AS offers, count(*) FILTER (WHERE sponsored) AS sponsored_offers,
         min(price) AS min_price, round(avg(price), 2) AS avg_price, max(price) AS max_price,
         min(rank_absolute) AS best_rank_absolute, round(avg(product_rating), 2) AS avg_product_rating
  FROM offers
  WHERE seller IS NOT NULL
  GROUP BY snapshot_date, keyword, location_code, language_code, seller, currency
)
SELECT snapshot_date, keyword, location_code, language_code, seller, currency, offers, sponsored_offers,
       min_price, avg_price, max_price,
       dense_rank() OVER (PARTITION BY snapshot_date, keyword, location_code, language_code, currency ORDER BY min_price) AS price_rank,
       best_rank_absolute, avg_product_rating
FROM by_seller`,
  },
  {
    name: 'v_resource_problems',
    question: 'Which sites have broken, slow or badly served resources, and of what type?',
    grain: 'one row per snapshot day, site and resource type.',
    notes: 'From `onpage_resources__items` with their `__errors` and `__warnings`. The site is the resource URL\'s host without `www.`. A URL met more than once on a day (pages of a crawl) counts once, as last loaded. A check the service did not report for a resource type is null and counts as no problem.',
    columns: [
      SNAPSHOT_DATE,
      col('site', 'Host of the resource URL, lower-case, without `www.`.'),
      col('resource_type', 'script, image, stylesheet or broken.'),
      col('resources', 'Distinct resource URLs.'),
      col('resources_with_problems', 'Resources with at least one of the problems counted here.'),
      col('broken', 'Resources flagged broken (`check_is_broken`).'),
      col('client_errors', 'Resources answering 4xx (`check_is_4xx_code`).'),
      col('server_errors', 'Resources answering 5xx (`check_is_5xx_code`).'),
      col('redirects', 'Resources that redirect (`check_is_redirect`).'),
      col('slow', 'Resources with a high loading time (`check_high_loading_time`).'),
      col('uncompressed', 'Resources served without content encoding (`check_no_content_encoding`).'),
      col('not_minified', 'Resources reported not minified (`check_is_minified` false).'),
      col('not_https', 'Resources not served over HTTPS (`check_is_https` false).'),
      col('resources_with_errors', 'Resources with at least one parse error.'),
      col('errors', 'Parse errors (`onpage_resources__items__errors` rows).'),
      col('warnings', 'Warnings (`onpage_resources__items__warnings` rows).'),
      col('total_size_bytes', 'Sum of the resources\' sizes, bytes.'),
    ],
    select: `
WITH ranked AS (
  SELECT ${snapshotDate('i')} AS snapshot_date, ${siteOf('i.url')} AS site, coalesce(i.resource_type, 'unknown') AS resource_type,
         i._id, i.size, i.check_is_broken, i.check_is_4xx_code, i.check_is_5xx_code, i.check_is_redirect, i.check_high_loading_time,
         i.check_no_content_encoding, i.check_is_minified, i.check_is_https,
         row_number() OVER (PARTITION BY ${snapshotDate('i')}, coalesce(i.url, i._id) ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM onpage_resources__items i LEFT JOIN _runs r ON r.run_id = i._run_id
), res AS (
  SELECT * FROM ranked WHERE rn = 1
), errs AS (
  SELECT _parent_id, count(*) AS n FROM onpage_resources__items__errors GROUP BY _parent_id
), warns AS (
  SELECT _parent_id, count(*) AS n FROM onpage_resources__items__warnings GROUP BY _parent_id
), flagged AS (
  SELECT res.*, coalesce(e.n, 0) AS error_count, coalesce(w.n, 0) AS warning_count,
         coalesce(check_is_broken, false) OR coalesce(check_is_4xx_code, false) OR coalesce(check_is_5xx_code, false)
           OR coalesce(check_high_loading_time, false) OR coalesce(check_no_content_encoding, false)
           OR check_is_minified IS NOT DISTINCT FROM false OR check_is_https IS NOT DISTINCT FROM false OR coalesce(e.n, 0) > 0 AS has_problem
  FROM res LEFT JOIN errs e ON e._parent_id = res._id LEFT JOIN warns w ON w._parent_id = res._id
)
SELECT snapshot_date, site, resource_type,
       count(*) AS resources,
       count(*) FILTER (WHERE has_problem) AS resources_with_problems,
       count(*) FILTER (WHERE check_is_broken) AS broken,
       count(*) FILTER (WHERE check_is_4xx_code) AS client_errors,
       count(*) FILTER (WHERE check_is_5xx_code) AS server_errors,
       count(*) FILTER (WHERE check_is_redirect) AS redirects,
       count(*) FILTER (WHERE check_high_loading_time) AS slow,
       count(*) FILTER (WHERE check_no_content_encoding) AS uncompressed,
       count(*) FILTER (WHERE check_is_minified = false) AS not_minified,
       count(*) FILTER (WHERE check_is_https = false) AS not_https,
       count(*) FILTER (WHERE error_count > 0) AS resources_with_errors,
       sum(error_count) AS errors,
       sum(warning_count) AS warnings,
       sum(size) AS total_size_bytes
FROM flagged
GROUP BY snapshot_date, site, resource_type`,
  },
  {
    name: 'v_runs',
    question: 'What did each run do, spend and leave failed?',
    grain: 'one row per run (pipeline and day).',
    notes: 'From the ledger tables `_runs`, `_attempts` and `_tasks`. Spend is what the service reported per task (`_tasks.cost`), summed in micro-dollars as `seo-etl status` does.',
    columns: [
      col('run_id', 'Run id: `<pipeline>-<run date>`.'),
      col('pipeline', 'Pipeline name.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('status', 'running, completed, stopped_budget or aborted.'),
      col('attempts', 'Times the run was started (a resume adds one).'),
      col('started_at', 'When the first attempt started (UTC).'),
      col('finished_at', 'When the run finished (UTC); null while running.'),
      col('duration_seconds', 'How long its attempts ran, summed, seconds (the first attempt and each resume, not the wait between them; an attempt that was killed has no end and counts nothing).'),
      col('tasks', 'Tasks planned.'),
      col('tasks_loaded', 'Tasks whose results are loaded.'),
      col('tasks_failed', 'Tasks that failed (see `v_failed_tasks`).'),
      col('tasks_unfinished', 'Tasks neither loaded nor failed (a resume collects them).'),
      col('spent_usd', 'Cost reported by the service, USD.'),
      col('budget_usd', 'Budget of the pipeline, USD.'),
      col('budget_used_pct', 'spent_usd / budget_usd, percent (one decimal).'),
      col('note', 'Why the run stopped early, if it did.'),
    ],
    select: `
SELECT r.run_id, r.pipeline, try_cast(r.run_date AS DATE) AS run_date, r.status, r.attempts, r.started_at, r.finished_at,
       coalesce((SELECT round(sum(epoch(a.finished_at - a.started_at)), 1) FROM _attempts a WHERE a.run_id = r.run_id AND a.finished_at IS NOT NULL),
                round(epoch(r.finished_at - r.started_at), 1)) AS duration_seconds,
       count(t.task_key) AS tasks,
       count(t.task_key) FILTER (WHERE t.state = 'loaded') AS tasks_loaded,
       count(t.task_key) FILTER (WHERE t.state = 'failed') AS tasks_failed,
       count(t.task_key) FILTER (WHERE t.state NOT IN ('loaded', 'failed')) AS tasks_unfinished,
       ${usd('t.cost')} AS spent_usd,
       r.budget_usd,
       round(100.0 * (${usd('t.cost')}) / nullif(r.budget_usd, 0), 1) AS budget_used_pct,
       r.note
FROM _runs r LEFT JOIN _tasks t ON t.run_id = r.run_id
GROUP BY r.run_id, r.pipeline, r.run_date, r.status, r.attempts, r.started_at, r.finished_at, r.budget_usd, r.note`,
  },
  {
    name: 'v_run_steps',
    question: 'Which steps of a run cost what, and where did tasks fail?',
    grain: 'one row per run and pipeline step.',
    notes: 'From the ledger table `_tasks`.',
    columns: [
      col('run_id', 'Run id.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('step_index', 'Position of the step in the pipeline (0-based).'),
      col('step', 'Step name.'),
      col('endpoint_id', 'Catalog endpoint the step calls.'),
      col('tasks', 'Tasks planned.'),
      col('tasks_loaded', 'Tasks loaded.'),
      col('tasks_failed', 'Tasks failed.'),
      col('tasks_unfinished', 'Tasks neither loaded nor failed.'),
      col('pages', 'Result pages fetched (paged endpoints).'),
      col('spent_usd', 'Cost reported by the service, USD.'),
    ],
    select: `
SELECT t.run_id, try_cast(any_value(r.run_date) AS DATE) AS run_date, t.step_index, t.step, t.endpoint_id,
       count(*) AS tasks,
       count(*) FILTER (WHERE t.state = 'loaded') AS tasks_loaded,
       count(*) FILTER (WHERE t.state = 'failed') AS tasks_failed,
       count(*) FILTER (WHERE t.state NOT IN ('loaded', 'failed')) AS tasks_unfinished,
       sum(t.pages) AS pages,
       ${usd('t.cost')} AS spent_usd
FROM _tasks t LEFT JOIN _runs r ON r.run_id = t.run_id
GROUP BY t.run_id, t.step_index, t.step, t.endpoint_id`,
  },
  {
    name: 'v_failed_tasks',
    question: 'Which tasks failed, with what error, and what was asked?',
    grain: 'one row per failed task.',
    notes: 'From the ledger table `_tasks` (state `failed`). A failed task is not posted again by a resume; its error code and message are the service\'s (or the local validator\'s).',
    columns: [
      col('run_id', 'Run id.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('pipeline', 'Pipeline name.'),
      col('step', 'Step name.'),
      col('endpoint_id', 'Catalog endpoint.'),
      col('task_key', 'The task\'s key in the ledger (stable across attempts).'),
      col('service_id', 'Task id at the service; null when it was refused at posting.'),
      col('error_code', 'Status code of the failure.'),
      col('error_message', 'Status message of the failure.'),
      col('attempts', 'Posting attempts.'),
      col('failed_at', 'When the failure was recorded (UTC).'),
      col('cost_usd', 'Cost reported by the service, USD (usually 0).'),
      col('params', 'The request body that was sent (JSON text).'),
    ],
    select: `
SELECT t.run_id, try_cast(r.run_date AS DATE) AS run_date, r.pipeline, t.step, t.endpoint_id, t.task_key, t.service_id,
       t.error_code, t.error_message, t.attempts, t.failed_at, coalesce(t.cost, 0) AS cost_usd, t.params
FROM _tasks t LEFT JOIN _runs r ON r.run_id = t.run_id
WHERE t.state = 'failed'`,
  },
  {
    name: 'v_task_costs',
    question: 'What was each collected task billed, beside what it answered?',
    grain: 'one row per collected task (a row of `tasks`).',
    notes: 'From `tasks` joined to the ledger table `_tasks` by the service\'s task id. A task is billed when it is posted (or, for a live endpoint, when it is called): that price is in the ledger. A SERP task\'s `task_get` answer reports what it was billed in the end (pages crawled, options used, the rest refunded) and the ledger takes that; other families\' `task_get` answers report the free GET\'s 0. Sum `billed_cost_usd` for what a set of tasks cost.',
    columns: [
      col('_task_id', 'Task id at the service (joins every result table\'s `_task_id`).'),
      col('endpoint_id', 'Catalog endpoint that returned the answer (for example `serp.google.organic.task_get.advanced`); a row an older version stored under an old id shows the id it has now (docs/architecture.md, "Endpoint ids").'),
      col('keyword', 'Keyword of the task, if any.'),
      col('target', 'Target of the task, if any.'),
      col('location_code', 'Location code of the task, if any.'),
      col('language_code', 'Language code of the task, if any.'),
      col('status_code', 'Task status code; 40000 and above is an error.'),
      col('billed_cost_usd', 'What the service billed for the task, USD: the cost it reported when the task was posted (live endpoints: when called), from the ledger. Null for a task loaded from files (`ingest`) without a ledger row.'),
      col('answer_cost_usd', 'What the service reported in this answer, USD (`tasks.cost`): a SERP `task_get` answer the task\'s final cost (the billed one), other `task_get` answers the free GET\'s (0), a live endpoint the call\'s own.'),
      col('step', 'Pipeline step that posted the task.'),
      col('task_key', 'The task\'s key in the ledger (stable across attempts).'),
      col('run_id', 'Run that collected the task.'),
      col('collected_at', 'When the answer was loaded (UTC).'),
    ],
    select: `
SELECT t._task_id, ${currentEndpointSql('t.endpoint_id')} AS endpoint_id, t.keyword, t.target, t.location_code, t.language_code, t.status_code,
       l.cost AS billed_cost_usd, t.cost AS answer_cost_usd, l.step, l.task_key, t._run_id AS run_id, t._loaded_at AS collected_at
FROM tasks t LEFT JOIN _tasks l ON l.service_id = t._task_id`,
  },
  ...RUN_VIEWS,
  ...FAMILIES.flatMap((f) => f.views ?? []),
];

/** A product rating on one scale, out of 5: the service rates on 5, 10 or 100 (rating_max, or the rating type's own maximum). */
function ratingOutOf5(alias: string): string {
  const max = `coalesce(${alias}.product_rating_max, CASE ${alias}.product_rating_type WHEN 'Max5' THEN 5 WHEN 'Percents' THEN 100 END)`;
  return `5.0 * ${alias}.product_rating_value / nullif(${max}, 0)`;
}

/** Offers of shopping results: priced items and priced carousel elements, under their result's keyword. */
function merchantOffers(): string {
  return `
  SELECT ${snapshotDate('s')} AS snapshot_date, s.keyword, s.location_code, s.language_code,
         i.seller, i.currency, i.price, i.rank_absolute, ${ratingOutOf5('i')} AS product_rating, false AS sponsored
  FROM merchant_shopping__items i JOIN merchant_shopping s ON s._id = i._parent_id LEFT JOIN _runs r ON r.run_id = s._run_id
  WHERE i.price IS NOT NULL
  UNION ALL
  SELECT ${snapshotDate('s')}, s.keyword, s.location_code, s.language_code,
         e.seller, e.currency, e.price, i.rank_absolute, ${ratingOutOf5('e')}, true
  FROM merchant_shopping__items__elements e JOIN merchant_shopping__items i ON i._id = e._parent_id
  JOIN merchant_shopping s ON s._id = i._parent_id LEFT JOIN _runs r ON r.run_id = s._run_id
  WHERE e.price IS NOT NULL`;
}

const columnComment = (table: string, c: { name: string; description: string }) => `COMMENT ON COLUMN ${q(table)}.${q(c.name)} IS ${lit(c.description)}`;

/** CREATE VIEW and its COMMENTs. */
export function viewStatements(v: ViewDef): string[] {
  return [
    `CREATE OR REPLACE VIEW ${q(v.name)} AS ${v.select.trim()}`,
    `COMMENT ON VIEW ${q(v.name)} IS ${lit(`${v.question} One row per ${v.grain.replace(/^one row per /, '')} See docs/analysis.md.`)}`,
    ...v.columns.map((c) => columnComment(v.name, c)),
  ];
}

/** The data dictionary inside the warehouse: table and column descriptions from the catalog, as COMMENTs. */
export function catalogComments(): string[] {
  return [...TABLES.flatMap((t) => [tableComment(t), ...columnComments(t)]), ...ledgerComments()];
}

const tableComment = (t: TableDef) => `COMMENT ON TABLE ${q(t.name)} IS ${lit(t.description)}`;

/** A catalog table's column descriptions, as COMMENTs. */
function columnComments(t: TableDef): string[] {
  return allColumns(t).map((c) => columnComment(t.name, c));
}

function ledgerComments(): string[] {
  const out: string[] = [];
  out.push(`COMMENT ON TABLE "_runs" IS ${lit('Ledger: one row per run (pipeline and day): status, attempts, budget. Summarised by v_runs.')}`);
  out.push(`COMMENT ON TABLE "_attempts" IS ${lit('Ledger: one row per attempt of a run (the first and each resume): started, finished (null when killed), status. v_runs sums them.')}`);
  out.push(`COMMENT ON TABLE "_targets" IS ${lit('Ledger: the domains each run tracks (pipeline targets:), one row per step tied to a target and domain. The SERP tracking views read it.')}`);
  for (const [c, d] of [['run_id', 'Run.'], ['step', 'Pipeline step tied to the target.'], ['target', 'Target name (targets[].name).'], ['domain', 'A domain the target tracks (its subdomains count for it).'], ['updated_at', 'When the run recorded it (UTC).']]) {
    out.push(`COMMENT ON COLUMN "_targets".${q(c)} IS ${lit(d)}`);
  }
  out.push(`COMMENT ON TABLE "_shared_tasks" IS ${lit('Ledger: a task a later step of the run asked for too, posted once by the first step (its _tasks.step); the SERP tracking views count its results for this step\'s targets as well.')}`);
  for (const [c, d] of [['run_id', 'Run.'], ['task_key', 'The task\'s key in the ledger (_tasks.task_key).'], ['step', 'The later step that asked for the same task.'], ['updated_at', 'When the run recorded it (UTC).']]) {
    out.push(`COMMENT ON COLUMN "_shared_tasks".${q(c)} IS ${lit(d)}`);
  }
  out.push(`COMMENT ON TABLE "_tasks" IS ${lit('Ledger: one row per task of a run: state, price, the cost the service billed (reported when the task was posted; for SERP tasks the bill their result reports), errors, timestamps of each state. Summarised by v_run_steps and v_failed_tasks; v_task_costs puts the billed cost beside each collected task.')}`);
  return out;
}

/**
 * Column descriptions for the tables of the published file (`conn`'s default catalog) that hold rows and lack
 * them, as one SQL text (empty when none): a column's COMMENT is a statement of its own, and the two thousand of
 * a file's hundred-odd tables, most of them empty, were most of a first publish's time. Every table carries its
 * own description from the start (curatedViews).
 */
export async function missingColumnComments(conn: DuckDBConnection): Promise<string> {
  const filled = await tablesWithRows(conn);
  const r = await conn.runAndReadAll(`SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND comment IS NULL`);
  const missing = new Map<string, Set<string>>();
  for (const [t, c] of r.getRows().map((x) => x.map(String))) if (filled.has(t)) missing.set(t, (missing.get(t) ?? new Set()).add(c));
  // Only what the catalog declares: a column it no longer does stays in the file, undescribed.
  return [...missing.keys()].sort().flatMap((name) => {
    const t = TABLE_BY_NAME.get(name);
    return t ? allColumns(t).filter((c) => missing.get(name)!.has(c.name)).map((c) => columnComment(name, c)) : [];
  }).join(';\n');
}

// The tables the views read are in use from the start in every process that publishes: put in use later, halfway
// through a publish or an export that walks the tables, they were met there without existing in its warehouse.
activateTables(VIEWS.flatMap((v) => v.needs ?? []));

/** Every catalog and ledger table, created where missing, as one SQL text. */
export function missingTablesSql(): string {
  return [...TABLES.map((t) => createTableSql(t)), ...LEDGER_DDL].join(';\n');
}

/**
 * Statements run in the published copy, in one transaction: missing tables first (so every view compiles, even on
 * a warehouse with no rows or no ledger), then each view with its comments, then the tables' comments (their
 * columns' come with their rows: missingColumnComments, which the publish runs after these). Each entry is a
 * multi-statement SQL text: one call per view instead of one per comment halves the publishing time.
 */
export function curatedViews(): string[] {
  return [
    'BEGIN TRANSACTION',
    missingTablesSql(),
    ...VIEWS.map((v) => viewStatements(v).join(';\n')),
    [...TABLES.map(tableComment), ...ledgerComments()].join(';\n'),
    'COMMIT',
  ];
}
