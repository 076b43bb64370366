/**
 * Rank-tracking views over the SERP tables: where each URL ranks per keyword, location, device and day; how each
 * domain moved since the day before; which result-page features a keyword's pages show.
 */
import type { ViewDef, ViewColumn } from '../../publish/views.js';

const col = (name: string, description: string): ViewColumn => ({ name, description });

/**
 * One text key per series (its six columns, nulls as empty): joins and windows on it are single equalities, which
 * PostgreSQL hashes and estimates well. Joining on the six columns with IS NOT DISTINCT FROM it could only
 * nest-loop, and on six equalities it under-estimated the rows to 1 and nest-looped anyway: v_serp_features and
 * v_serp_domain_movement took seconds at a few weeks of pages.
 */
const SERIES_KEY = `coalesce(x.keyword, '') || chr(31) || coalesce(ti.se, '') || chr(31) || coalesce(x.se_type, '') || chr(31) || coalesce(CAST(x.location_code AS VARCHAR), '') || chr(31) || coalesce(x.language_code, '') || chr(31) || coalesce(ti.device, '')`;

/** Items of advanced and regular results with the task's engine and device and the SERP's day. */
const SERP_ITEMS = `
  WITH task_info AS (
    SELECT _task_id, any_value(se) AS se, coalesce(any_value(device), 'desktop') AS device FROM tasks GROUP BY _task_id
  ), items AS (
    SELECT s.keyword, s.se_type, s.location_code, s.language_code, s.datetime, s._task_id, s._run_id, s._loaded_at, i.item_type, i.rank_group, i.rank_absolute,
           i.url, i.domain, i._parent_id AS result_id
    FROM serp_results__items i JOIN serp_results s ON s._id = i._parent_id
    UNION ALL
    SELECT s.keyword, s.se_type, s.location_code, s.language_code, s.datetime, s._task_id, s._run_id, s._loaded_at, i.item_type, i.rank_group, i.rank_absolute,
           i.url, i.domain, i._parent_id
    FROM serp_regular__items i JOIN serp_regular s ON s._id = i._parent_id
  ), serp_items AS (
    SELECT x.keyword, ti.se, x.se_type, x.location_code, x.language_code, ti.device,
           CAST(timezone('UTC', x.datetime) AS DATE) AS date, x.datetime, x.item_type, x.rank_group, x.rank_absolute,
           x.url, nullif(regexp_replace(lower(x.domain), '^www\\.', ''), '') AS domain, x.result_id,
           coalesce(try_cast(r.run_date AS DATE), CAST(timezone('UTC', x._loaded_at) AS DATE)) AS snapshot_date,
           ${SERIES_KEY} AS series_key
    FROM items x LEFT JOIN task_info ti ON ti._task_id = x._task_id LEFT JOIN _runs r ON r.run_id = x._run_id
  )`;

const SERIES = ['keyword', 'se', 'se_type', 'location_code', 'language_code', 'device'];
const SERIES_COLUMNS = [
  col('keyword', 'Keyword.'),
  col('se', 'Search engine, as the service names it (`data.se` of the task).'),
  col('se_type', 'Result type: organic, news, images, maps or local_pack.'),
  col('location_code', 'Location code.'),
  col('language_code', 'Language code.'),
  col('device', 'desktop or mobile (the task\'s device; desktop when it named none).'),
];

export const SERP_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_serp_rank_history',
    question: 'Where did each URL rank for a keyword, location and device, day by day?',
    grain: 'one row per keyword, engine, result type, location, language, device, day and URL.',
    notes: 'From the organic items of `serp_results__items` (advanced) and `serp_regular__items` (regular), with the engine and device of their task. The day is the UTC day the result page was taken (`datetime`). Several collections of the same page on one day (re-collection, regular and advanced) keep the best position.',
    columns: [
      ...SERIES_COLUMNS,
      col('date', 'UTC day the result page was taken (DATE).'),
      col('url', 'Ranking URL.'),
      col('domain', 'Domain of the URL, lower-case, without `www.`.'),
      col('best_position', 'Best organic position (`rank_group` among organic results) that day.'),
      col('best_rank_absolute', 'Best position among all items of the page (features included) that day.'),
      col('observations', 'Result pages of that day the URL was found on.'),
      col('snapshot_date', 'Latest run date (`--run-date`, the Parquet partition) among the runs that collected those pages; the same day as `date` unless a run collected pages the service took on another day.'),
    ],
    select: `${SERP_ITEMS}
SELECT ${SERIES.join(', ')}, date, url, min(domain) AS domain,
       min(rank_group) AS best_position, min(rank_absolute) AS best_rank_absolute, count(DISTINCT result_id) AS observations,
       max(snapshot_date) AS snapshot_date
FROM serp_items
WHERE item_type = 'organic' AND url IS NOT NULL
GROUP BY ${SERIES.join(', ')}, date, url`,
  },
  {
    name: 'v_serp_domain_movement',
    question: 'How did each domain\'s best organic position move since the previous day it was tracked?',
    grain: 'one row per keyword, engine, result type, location, language, device, day and domain (seen that day or the day before).',
    notes: 'Built on the organic items as `v_serp_rank_history` is. The previous day is the previous day with a result for the same keyword, engine, type, location, language and device. `change` is positive when the domain moved up. `movement`: first (first day of the series), new (not on the previous page), lost (on the previous page, not on this one), up, down or same.',
    columns: [
      ...SERIES_COLUMNS,
      col('date', 'UTC day of the result page (DATE).'),
      col('previous_date', 'Previous day of the series with a result; null on its first day.'),
      col('domain', 'Domain, lower-case, without `www.`.'),
      col('position', 'Best organic position of the domain that day; null when lost.'),
      col('previous_position', 'Best organic position on the previous day; null when new.'),
      col('change', 'previous_position - position: positive when the domain moved up.'),
      col('movement', 'first, new, lost, up, down or same.'),
    ],
    select: `${SERP_ITEMS},
  best AS (
    SELECT series_key, ${SERIES.join(', ')}, date, domain, min(rank_group) AS position
    FROM serp_items WHERE item_type = 'organic' AND domain IS NOT NULL
    GROUP BY series_key, ${SERIES.join(', ')}, date, domain
  ), days AS (
    SELECT series_key, ${SERIES.join(', ')}, date, lag(date) OVER (PARTITION BY series_key ORDER BY date) AS previous_date
    FROM (SELECT DISTINCT series_key, ${SERIES.join(', ')}, date FROM best) AS day_list
  ), grid AS (
    SELECT d.*, b.domain FROM days d JOIN (SELECT DISTINCT series_key, domain FROM best) b ON b.series_key = d.series_key
  ), placed AS (
    -- The grid holds every day of the series for each domain: the row before is the previous day (lag), so no second
    -- join is needed; the one join is on a single key, which no planner turns into a row-by-row comparison.
    SELECT g.*, cur.position, lag(cur.position) OVER (PARTITION BY g.series_key, g.domain ORDER BY g.date) AS previous_position
    FROM grid g
    LEFT JOIN best cur ON cur.series_key || chr(30) || CAST(cur.date AS VARCHAR) || chr(30) || cur.domain = g.series_key || chr(30) || CAST(g.date AS VARCHAR) || chr(30) || g.domain
  )
SELECT ${SERIES.join(', ')}, date, previous_date, domain, position, previous_position,
       previous_position - position AS change,
       CASE WHEN previous_date IS NULL THEN 'first'
            WHEN previous_position IS NULL THEN 'new'
            WHEN position IS NULL THEN 'lost'
            WHEN position < previous_position THEN 'up'
            WHEN position > previous_position THEN 'down'
            ELSE 'same' END AS movement
FROM placed
WHERE position IS NOT NULL OR (previous_date IS NOT NULL AND previous_position IS NOT NULL)`,
  },
  {
    name: 'v_serp_features',
    question: 'Which result-page features (featured snippet, people also ask, local pack, ...) do a keyword\'s pages show, and how often?',
    grain: 'one row per keyword, engine, result type, location, language, device and item type.',
    notes: 'From every item of `serp_results__items` and `serp_regular__items`. A page counts once per item type however many items of that type it holds. `share_pct` is the share of the keyword\'s collected pages that showed the item type.',
    columns: [
      ...SERIES_COLUMNS,
      col('item_type', 'Item type (feature) without an engine prefix.'),
      col('pages_with_feature', 'Collected result pages that showed the item type.'),
      col('pages', 'Collected result pages of the keyword.'),
      col('share_pct', 'pages_with_feature / pages, percent (one decimal).'),
      col('avg_first_rank_absolute', 'Average position of the first such item among all items of the page (one decimal).'),
      col('first_date', 'First UTC day the item type was seen.'),
      col('last_date', 'Last UTC day the item type was seen.'),
    ],
    select: `${SERP_ITEMS},
  per_page AS (
    SELECT series_key, ${SERIES.join(', ')}, result_id, item_type, min(rank_absolute) AS first_rank, min(date) AS date
    FROM serp_items GROUP BY series_key, ${SERIES.join(', ')}, result_id, item_type
  ), pages AS (
    SELECT series_key, count(DISTINCT result_id) AS pages FROM serp_items GROUP BY series_key
  )
SELECT ${SERIES.map((s) => `f.${s}`).join(', ')}, f.item_type, count(*) AS pages_with_feature, any_value(p.pages) AS pages,
       round(100.0 * count(*) / any_value(p.pages), 1) AS share_pct, round(avg(f.first_rank), 1) AS avg_first_rank_absolute,
       min(f.date) AS first_date, max(f.date) AS last_date
FROM per_page f JOIN pages p ON p.series_key = f.series_key
GROUP BY ${SERIES.map((s) => `f.${s}`).join(', ')}, f.item_type`,
  },
];
