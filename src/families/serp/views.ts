/**
 * Rank-tracking views over the SERP tables: where each URL ranks per keyword, location, device and day; how each
 * domain moved since the day before; which result-page features a keyword's pages show, over the days and on each;
 * what AI Overviews cite; each domain's share of voice; and, for the domains a pipeline tracks (`targets:`), a row
 * for every day whether they ranked or not.
 */
import { col, type ViewDef } from '../../catalog/view.js';
import { lit } from '../../catalog/quote.js';
import { SERP_ITEM_TYPES } from './tables.js';
import { countsFor } from './tracked.js';


/**
 * One text key per series (its six columns of the row `a`, nulls as empty), for joins that must stay single
 * equalities: on the six columns PostgreSQL estimated one row where there were thousands and joined row by row.
 */
const seriesKey = (a: string) =>
  `coalesce(${a}.keyword, '') || chr(31) || coalesce(${a}.se, '') || chr(31) || coalesce(${a}.se_type, '') || chr(31) || coalesce(CAST(${a}.location_code AS VARCHAR), '') || chr(31) || coalesce(${a}.language_code, '') || chr(31) || coalesce(${a}.device, '')`;

/**
 * Items of advanced and regular results with the task's engine and device and the SERP's day. Each branch joins
 * its own task and run: joined after the UNION ALL, PostgreSQL knew nothing of `_task_id` and planned 36 times
 * the rows. A run's date is parsed once per run, not once per item. NOT MATERIALIZED: PostgreSQL otherwise writes
 * every item of a view reading it twice to a temporary store, and pushes no filter (a keyword, a day) into it.
 */
const SERP_ITEMS = `
  WITH task_info AS (
    SELECT _task_id, any_value(se) AS se, coalesce(any_value(device), 'desktop') AS device FROM tasks GROUP BY _task_id
  ), run_dates AS (
    SELECT run_id, try_cast(run_date AS DATE) AS run_date FROM _runs
  ), items AS (
    SELECT s.keyword, ti.se, s.se_type, s.location_code, s.language_code, ti.device, s.datetime, s._task_id, s._run_id, s._loaded_at, rd.run_date,
           i.item_type, i.rank_group, i.rank_absolute, i.url, i.domain, i._parent_id AS result_id, i._id AS item_id, i.asynchronous_ai_overview
    FROM serp_results__items i JOIN serp_results s ON s._id = i._parent_id
    LEFT JOIN task_info ti ON ti._task_id = s._task_id LEFT JOIN run_dates rd ON rd.run_id = s._run_id
    UNION ALL
    SELECT s.keyword, ti.se, s.se_type, s.location_code, s.language_code, ti.device, s.datetime, s._task_id, s._run_id, s._loaded_at, rd.run_date,
           i.item_type, i.rank_group, i.rank_absolute, i.url, i.domain, i._parent_id, i._id, i.asynchronous_ai_overview
    FROM serp_regular__items i JOIN serp_regular s ON s._id = i._parent_id
    LEFT JOIN task_info ti ON ti._task_id = s._task_id LEFT JOIN run_dates rd ON rd.run_id = s._run_id
  ), serp_items AS NOT MATERIALIZED (
    SELECT x.keyword, x.se, x.se_type, x.location_code, x.language_code, x.device,
           CAST(timezone('UTC', x.datetime) AS DATE) AS date, x.datetime, x.item_type, x.rank_group, x.rank_absolute,
           x.url, nullif(regexp_replace(lower(x.domain), '^www\\.', ''), '') AS domain, x.result_id,
           coalesce(x.run_date, CAST(timezone('UTC', x._loaded_at) AS DATE)) AS snapshot_date,
           x.item_id, x.asynchronous_ai_overview, x._task_id AS task_id, x._run_id AS run_id
    FROM items x
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

/**
 * The registrable domain of a host: its last two labels, or three under a two-level public suffix (`co.uk`,
 * `com.au`, ...), so `blog.client.com` and `client.com` count for `client.com`. An approximation of the public
 * suffix list that covers the usual country second levels (docs/analysis.md).
 */
export const registrable = (d: string) =>
  `coalesce(nullif(regexp_extract(${d}, '([^.]+\\.(co|com|org|net|ac|gov|edu|ne|or|go)\\.[a-z]{2})$', 1), ''), regexp_extract(${d}, '([^.]+\\.[^.]+)$', 1))`;
/**
 * The registrable domain of each distinct domain of `source`: two regular expressions per domain rather than per
 * row (per item, they were most of v_serp_share_of_voice's time in PostgreSQL at a year of SERPs).
 */
const registrables = (source: string) =>
  `registrables AS (SELECT domain, ${registrable('domain')} AS registrable_domain FROM (SELECT DISTINCT domain FROM ${source} WHERE domain IS NOT NULL) AS d)`;
/**
 * Several join columns as one text value: on several equalities PostgreSQL multiplied their selectivities, planned
 * a row or two where there were thousands, and merge-joined on the first columns with the rest compared row by row
 * (85 million rows compared for v_serp_tracked_ranks at a year of 10 keywords). One equality it hashes.
 */
const oneKey = (...parts: string[]) => parts.join(' || chr(30) || ');
/** One text key per engine, type, location, language, device and day (all keywords): as seriesKey. */
const dayKey = (a: string) =>
  `coalesce(${a}.se, '') || chr(31) || coalesce(${a}.se_type, '') || chr(31) || coalesce(CAST(${a}.location_code AS VARCHAR), '') || chr(31) || coalesce(${a}.language_code, '') || chr(31) || coalesce(${a}.device, '') || chr(31) || CAST(${a}.date AS VARCHAR)`;
const series = (a: string) => SERIES.map((x) => `${a}.${x}`).join(', ');
/**
 * A page's series and day, in a grouping by page (`result_id`): they are the page's own, so the grouping key stays
 * one column (PostgreSQL sorted or hashed ten text columns per item for the same groups).
 */
const pageSeries = (a = '') => [...SERIES, 'date'].map((x) => `any_value(${a}${x}) AS ${x}`).join(', ');

/**
 * The tracked domains of each task, from the pipelines' targets: a task counts for the targets of its own step and
 * of every later step of the run that asked for the same task (`_shared_tasks`), so a keyword two clients share is
 * posted once and tracked for both. Columns: run_id, task_id (the service's), target, tracked_domain.
 */
export const TARGETS_TRACKED = `
    SELECT t.run_id, t.service_id AS task_id, g.target, g.domain AS tracked_domain
    FROM _tasks t JOIN _targets g ON g.run_id = t.run_id AND g.step = t.step
    WHERE t.service_id IS NOT NULL
    UNION
    SELECT t.run_id, t.service_id, g.target, g.domain
    FROM _shared_tasks s JOIN _tasks t ON t.run_id = s.run_id AND t.task_key = s.task_key JOIN _targets g ON g.run_id = s.run_id AND g.step = s.step
    WHERE t.service_id IS NOT NULL`;

/** Pages (one row per result page), AI Overview citations, and the tracked domains of each task (`tracked`), over SERP_ITEMS. */
const tracking = (tracked: string) => `${SERP_ITEMS},
  pages AS (
    SELECT ${pageSeries()}, result_id, any_value(task_id) AS task_id, any_value(run_id) AS run_id,
           count(*) FILTER (WHERE item_type = 'organic') AS organic_results,
           bool_or(item_type = 'ai_overview') AS ai_overview_shown,
           coalesce(bool_or(item_type = 'ai_overview' AND asynchronous_ai_overview), false) AS ai_overview_async,
           any_value(item_id) FILTER (WHERE item_type = 'ai_overview') AS ai_item_id
    FROM serp_items GROUP BY result_id
  ), citations AS (
    SELECT r._parent_id AS item_id, r._list_idx + 1 AS citation_position, nullif(regexp_replace(lower(r.domain), '^www\\.', ''), '') AS domain, r.url, r.title
    FROM serp_results__items__ai_overview_references r
    UNION ALL
    SELECT r._parent_id, r._list_idx + 1, nullif(regexp_replace(lower(r.domain), '^www\\.', ''), ''), r.url, r.title
    FROM serp_regular__items__ai_overview_references r
  ), page_citations AS (
    SELECT item_id, count(*) AS sources_cited, array_agg(domain ORDER BY citation_position) AS cited_domains FROM citations GROUP BY item_id
  ), tracked AS (${tracked}
  )`;
const TRACKING = tracking(TARGETS_TRACKED);

/** An organic item of a tracked task that ranks for its tracked domain (`i` the item, `k` the tracked row). */
const TRACKED_RANK = `i.item_type = 'organic' AND i.domain IS NOT NULL AND ${countsFor('i.domain', 'k.tracked_domain')}`;

/**
 * v_serp_tracked_ranks over a relation of tracked tasks (`tracked`: run_id, task_id, target, tracked_domain): the
 * best organic position per tracked domain, series and collected day, the hosts that count for it (countsFor)
 * together. The view reads the targets' tasks (TARGETS_TRACKED); the report and alerts read the view, or this
 * same SQL over the domains a pipeline's `alerts.domains` names (src/report/tracked.ts).
 */
export const trackedRanksSelect = (tracked: string) => `${tracking(tracked)},
  hits AS (
    SELECT k.target, k.tracked_domain, i.result_id, i.rank_group, i.url
    FROM serp_items i JOIN tracked k ON k.run_id = i.run_id AND k.task_id = i.task_id WHERE ${TRACKED_RANK}
  ), on_page AS (
    -- Each tracked page and its tracked domain's hits, grouped by page, then by day: a grid of days joined to the
    -- days ranked was planned at a row or two by PostgreSQL and compared pairwise (85 million rows at a year of
    -- 10 keywords); a union grouped needs no join estimate, and the pages' facts are counted once, not per target.
    SELECT target, tracked_domain, result_id, ${pageSeries()}, max(organic_results) AS organic_results, bool_or(ai_overview_shown) AS ai_overview_shown,
           min(rank_group) AS position, arg_min(url, rank_group) AS url
    FROM (
      SELECT k.target, k.tracked_domain, p.result_id, ${series('p')}, p.date, p.organic_results, p.ai_overview_shown, NULL AS rank_group, NULL AS url
      FROM pages p JOIN tracked k ON k.run_id = p.run_id AND k.task_id = p.task_id
      UNION ALL
      SELECT target, tracked_domain, result_id, ${[...SERIES, 'date', 'organic_results', 'ai_overview_shown'].map((c) => `NULL AS ${c}`).join(', ')}, rank_group, url FROM hits
    ) AS u
    GROUP BY target, tracked_domain, result_id
  ), days AS (
    SELECT target, tracked_domain, ${SERIES.join(', ')}, date, max(organic_results) AS organic_results, bool_or(ai_overview_shown) AS ai_overview_shown,
           min(position) AS position, arg_min(url, position) AS url
    FROM on_page GROUP BY target, tracked_domain, ${SERIES.join(', ')}, date
  ), joined AS (
    SELECT d.*, lag(d.date) OVER w AS previous_date, lag(d.position) OVER w AS previous_position
    FROM days d
    WINDOW w AS (PARTITION BY d.target, d.tracked_domain, ${series('d')} ORDER BY d.date)
  )
SELECT target, tracked_domain, ${registrable('tracked_domain')} AS registrable_domain, ${SERIES.join(', ')}, date, position, url,
       CASE WHEN position IS NULL THEN 'not in the top ' || organic_results ELSE 'ranked' END AS status, organic_results, ai_overview_shown,
       previous_date, previous_position, previous_position - position AS change,
       CASE WHEN previous_date IS NULL THEN 'first' WHEN position IS NULL AND previous_position IS NULL THEN 'not_ranked'
            WHEN previous_position IS NULL THEN 'new' WHEN position IS NULL THEN 'lost'
            WHEN position < previous_position THEN 'up' WHEN position > previous_position THEN 'down' ELSE 'same' END AS movement
FROM joined`;

const TRACKED_COLUMNS = [
  col('target', 'The tracked target (pipeline `targets:` name: a client or project).'),
  col('tracked_domain', 'The tracked domain as the target lists it; its subdomains count for it.'),
  col('registrable_domain', 'Registrable domain of the tracked domain (`blog.client.com` -> `client.com`).'),
];

export const SERP_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_serp_rank_history',
    pgMaterializedKey: [...SERIES, 'date', 'url'],
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
      col('registrable_domain', 'Registrable domain of the URL (`blog.client.com` -> `client.com`).'),
    ],
    select: `${SERP_ITEMS},
  on_page AS (
    -- Per page first, then per day: two hashed groupings where count(DISTINCT) made PostgreSQL sort on eight keys.
    SELECT ${pageSeries()}, url, result_id, any_value(domain) AS domain,
           min(rank_group) AS best_position, min(rank_absolute) AS best_rank_absolute, max(snapshot_date) AS snapshot_date
    FROM serp_items
    WHERE item_type = 'organic' AND url IS NOT NULL
    GROUP BY result_id, url
  ), ranked AS (
    SELECT ${SERIES.join(', ')}, date, url, any_value(domain) AS domain,
           min(best_position) AS best_position, min(best_rank_absolute) AS best_rank_absolute, count(result_id) AS observations,
           max(snapshot_date) AS snapshot_date
    FROM on_page
    GROUP BY ${SERIES.join(', ')}, date, url
  ), ${registrables('ranked')}
SELECT r.*, g.registrable_domain FROM ranked r LEFT JOIN registrables g ON g.domain = r.domain`,
  },
  {
    name: 'v_serp_domain_movement',
    pgMaterializedKey: [...SERIES, 'date', 'domain'],
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
    SELECT ${seriesKey('i')} AS series_key, ${series('i')}, i.date, i.domain, min(i.rank_group) AS position
    FROM serp_items i WHERE i.item_type = 'organic' AND i.domain IS NOT NULL
    GROUP BY ${series('i')}, i.date, i.domain
  ), days AS (
    SELECT series_key, ${SERIES.join(', ')}, date, lag(date) OVER (PARTITION BY series_key ORDER BY date) AS previous_date
    FROM (SELECT DISTINCT series_key, ${SERIES.join(', ')}, date FROM best) AS day_list
  ), grid AS (
    SELECT d.*, b.domain FROM days d JOIN (SELECT DISTINCT series_key, domain FROM best) b ON b.series_key = d.series_key
  ), placed AS (
    -- The grid holds every day of the series for each domain: the row before is the previous day (lag), so one
    -- join on a single key does what two joins on eight columns did (PostgreSQL compared those row by row).
    SELECT g.*, cur.position, lag(cur.position) OVER (PARTITION BY g.series_key, g.domain ORDER BY g.date) AS previous_position
    FROM grid g
    LEFT JOIN best cur ON ${oneKey('cur.series_key', 'CAST(cur.date AS VARCHAR)', 'cur.domain')} = ${oneKey('g.series_key', 'CAST(g.date AS VARCHAR)', 'g.domain')}
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
    pgMaterializedKey: [...SERIES, 'item_type'],
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
    SELECT ${pageSeries()}, result_id, item_type, min(rank_absolute) AS first_rank
    FROM serp_items GROUP BY result_id, item_type
  ), pages AS (
    SELECT ${seriesKey('x')} AS series_key, count(x.result_id) AS pages
    FROM (SELECT DISTINCT ${SERIES.join(', ')}, result_id FROM per_page) AS x GROUP BY ${series('x')}
  )
SELECT ${SERIES.map((s) => `f.${s}`).join(', ')}, f.item_type, count(*) AS pages_with_feature, any_value(p.pages) AS pages,
       round(100.0 * count(*) / any_value(p.pages), 1) AS share_pct, round(avg(f.first_rank), 1) AS avg_first_rank_absolute,
       min(f.date) AS first_date, max(f.date) AS last_date
FROM per_page f JOIN pages p ON p.series_key = ${seriesKey('f')}
GROUP BY ${SERIES.map((s) => `f.${s}`).join(', ')}, f.item_type`,
  },
  {
    name: 'v_serp_features_daily',
    pgMaterializedKey: [...SERIES, 'date', 'item_type'],
    question: 'Which result-page features did a keyword\'s pages show on each day, and what share of its pages that day?',
    grain: 'one row per keyword, engine, result type, location, language, device, day and item type.',
    notes: 'As `v_serp_features`, per UTC day of the result page: a page counts once per item type. The AI Overview is the item type `ai_overview`. `share_pct` is the share of that day\'s pages of the series that showed the item type; `target` is the tracked target of the pipeline step that collected the pages (null when the step named none).',
    columns: [
      ...SERIES_COLUMNS,
      col('date', 'UTC day of the result pages (DATE).'),
      col('target', 'Tracked target of the step that collected the pages; null when none.'),
      col('item_type', 'Item type (feature) without an engine prefix.'),
      col('pages_with_feature', 'Result pages of that day that showed the item type.'),
      col('pages', 'Result pages of the series that day.'),
      col('share_pct', 'pages_with_feature / pages, percent (one decimal).'),
      col('avg_first_rank_absolute', 'Average position of the first such item among all items of the page (one decimal).'),
    ],
    select: `${TRACKING},
  page_target AS (
    SELECT p.result_id, string_agg(DISTINCT k.target, ', ' ORDER BY k.target) AS target FROM pages p JOIN tracked k ON k.run_id = p.run_id AND k.task_id = p.task_id GROUP BY p.result_id
  ), per_page AS (
    SELECT ${pageSeries()}, result_id, item_type, min(rank_absolute) AS first_rank
    FROM serp_items GROUP BY result_id, item_type
  ), day_pages AS (
    SELECT ${oneKey(seriesKey('x'), 'CAST(x.date AS VARCHAR)')} AS day_key, count(x.result_id) AS pages
    FROM (SELECT DISTINCT ${SERIES.join(', ')}, date, result_id FROM per_page) AS x GROUP BY ${series('x')}, x.date
  )
SELECT ${series('f')}, f.date, any_value(pt.target) AS target, f.item_type, count(*) AS pages_with_feature, any_value(d.pages) AS pages,
       round(100.0 * count(*) / any_value(d.pages), 1) AS share_pct, round(avg(f.first_rank), 1) AS avg_first_rank_absolute
FROM per_page f JOIN day_pages d ON d.day_key = ${oneKey(seriesKey('f'), 'CAST(f.date AS VARCHAR)')}
LEFT JOIN page_target pt ON pt.result_id = f.result_id
GROUP BY ${series('f')}, f.date, f.item_type`,
  },
  {
    name: 'v_serp_ai_citations',
    pgMaterializedKey: [...SERIES, 'date', 'domain', 'url'],
    question: 'Which sources did the AI Overview cite, at which position, for each keyword, location, device and day?',
    grain: 'one row per keyword, engine, result type, location, language, device, day and cited source (URL).',
    notes: 'From the `ai_overview` items of the SERP tables and their references (`serp_results__items__ai_overview_references`, `serp_regular__items__ai_overview_references`). `citation_position` is the source\'s place in the overview\'s list of references (1 = first). A page without an AI Overview has no row here; `v_serp_ai_visibility` has one for the tracked domains.',
    columns: [
      ...SERIES_COLUMNS,
      col('date', 'UTC day of the result page (DATE).'),
      col('asynchronous_ai_overview', 'The overview was loaded asynchronously (only returned with load_async_ai_overview).'),
      col('citation_position', 'Position of the source among the overview\'s references (1 = first); the best when cited more than once.'),
      col('domain', 'Domain of the cited source, lower-case, without `www.`.'),
      col('registrable_domain', 'Registrable domain of the cited source.'),
      col('url', 'URL of the cited source.'),
      col('title', 'Title of the cited page.'),
    ],
    select: `${TRACKING}, ${registrables('citations')}
SELECT ${series('p')}, p.date, bool_or(p.ai_overview_async) AS asynchronous_ai_overview, min(c.citation_position) AS citation_position,
       c.domain, any_value(g.registrable_domain) AS registrable_domain, c.url, any_value(c.title) AS title
FROM pages p JOIN citations c ON c.item_id = p.ai_item_id LEFT JOIN registrables g ON g.domain = c.domain
GROUP BY ${series('p')}, p.date, c.domain, c.url`,
  },
  {
    name: 'v_serp_ai_visibility',
    pgMaterializedKey: ['target', 'tracked_domain', ...SERIES, 'date'],
    question: 'Did the AI Overview show for each tracked keyword, location, device and day, and did it cite each tracked domain?',
    grain: 'one row per target, tracked domain, keyword, engine, result type, location, language, device and day the keyword was collected.',
    notes: 'For the steps a pipeline ties to a target (`targets:`, ledger table `_targets`; a task two such steps asked for counts for both, `_shared_tasks`): every day the keyword\'s page was collected, whether an AI Overview showed, how many sources it cited and which, and whether the tracked domain (or a subdomain of it) was among them. `citation_change` compares with the previous collected day: gained, lost, kept, not_cited, or first.',
    columns: [
      ...TRACKED_COLUMNS,
      ...SERIES_COLUMNS,
      col('date', 'UTC day of the result page (DATE).'),
      col('ai_overview_shown', 'An AI Overview showed on the page.'),
      col('asynchronous_ai_overview', 'The overview was loaded asynchronously.'),
      col('sources_cited', 'Sources the overview cited (0 without an overview).'),
      col('cited_domains', 'Domains the overview cited, in order.'),
      col('cited', 'The tracked domain (or a subdomain) was cited.'),
      col('citation_position', 'Best position of the tracked domain among the overview\'s references; null when not cited.'),
      col('previous_date', 'Previous collected day of the series; null on its first day.'),
      col('previous_cited', 'Whether it was cited on the previous collected day.'),
      col('citation_change', 'gained, lost, kept, not_cited or first.'),
    ],
    select: `${TRACKING},
  days AS (
    SELECT k.target, k.tracked_domain, ${series('p')}, p.date,
           bool_or(p.ai_overview_shown) AS ai_overview_shown, bool_or(p.ai_overview_async) AS asynchronous_ai_overview,
           coalesce(max(pc.sources_cited), 0) AS sources_cited, any_value(pc.cited_domains) AS cited_domains,
           min(c.citation_position) AS citation_position
    FROM pages p JOIN tracked k ON k.run_id = p.run_id AND k.task_id = p.task_id
    LEFT JOIN page_citations pc ON pc.item_id = p.ai_item_id
    LEFT JOIN citations c ON c.item_id = p.ai_item_id AND ${countsFor('c.domain', 'k.tracked_domain')}
    GROUP BY k.target, k.tracked_domain, ${series('p')}, p.date
  ), marked AS (
    SELECT *, citation_position IS NOT NULL AS cited,
           lag(date) OVER w AS previous_date, lag(citation_position IS NOT NULL) OVER w AS previous_cited
    FROM days WINDOW w AS (PARTITION BY target, tracked_domain, ${SERIES.join(', ')} ORDER BY date)
  )
SELECT target, tracked_domain, ${registrable('tracked_domain')} AS registrable_domain, ${SERIES.join(', ')}, date,
       ai_overview_shown, asynchronous_ai_overview, sources_cited, cited_domains, cited, citation_position, previous_date, previous_cited,
       CASE WHEN previous_date IS NULL THEN 'first' WHEN cited AND NOT previous_cited THEN 'gained' WHEN previous_cited AND NOT cited THEN 'lost'
            WHEN cited THEN 'kept' ELSE 'not_cited' END AS citation_change
FROM marked`,
  },
  {
    name: 'v_serp_tracked_ranks',
    pgMaterializedKey: ['target', 'tracked_domain', ...SERIES, 'date'],
    question: 'Where did each tracked domain rank for each keyword, location, device and day, including the days it did not rank?',
    grain: 'one row per target, tracked domain, keyword, engine, result type, location, language, device and day the keyword was collected.',
    notes: 'For the steps a pipeline ties to a target (a task two such steps asked for, posted once, counts for both steps\' targets: `_shared_tasks`): the client\'s rank, the best organic position of the tracked domain or any of its subdomains on each collected day (the report and the alerts read it from here), or null with `status` "not in the top N" (N the organic results the page held, fewer when crawl control stopped early), so a dashboard needs no grid of its own. `movement` compares with the previous collected day: first, new, lost, up, down, same or not_ranked.',
    columns: [
      ...TRACKED_COLUMNS,
      ...SERIES_COLUMNS,
      col('date', 'UTC day of the result page (DATE).'),
      col('position', 'Best organic position (`rank_group`) of the tracked domain that day; null when it did not rank.'),
      col('url', 'The URL at that position.'),
      col('status', '"ranked" or "not in the top N".'),
      col('organic_results', 'Organic results the page held (N).'),
      col('ai_overview_shown', 'An AI Overview showed on the page.'),
      col('previous_date', 'Previous collected day of the series.'),
      col('previous_position', 'Position on the previous collected day; null when it did not rank.'),
      col('change', 'previous_position - position: positive when the domain moved up.'),
      col('movement', 'first, new, lost, up, down, same or not_ranked.'),
    ],
    select: trackedRanksSelect(TARGETS_TRACKED),
  },
  {
    name: 'v_serp_share_of_voice',
    pgMaterializedKey: ['se', 'se_type', 'location_code', 'language_code', 'device', 'date', 'registrable_domain'],
    question: 'What share of the clicks over a keyword set does each domain get, day by day?',
    grain: 'one row per engine, result type, location, language, device, day and registrable domain.',
    notes: 'Each domain\'s best organic position per keyword is weighted by an expected click-through rate (positions 1-10: 28, 15, 11, 8, 7, 5, 4, 3, 3, 2 percent; 11-20: 1 percent; further: 0) and summed over the keywords collected that day; `share_pct` is that sum over the sum of every domain\'s. Subdomains count for their registrable domain. `targets` names the tracked targets whose domains it holds.',
    columns: [
      col('se', 'Search engine.'), col('se_type', 'Result type.'), col('location_code', 'Location code.'), col('language_code', 'Language code.'), col('device', 'desktop or mobile.'),
      col('date', 'UTC day of the result pages (DATE).'),
      col('registrable_domain', 'Registrable domain (its subdomains counted in).'),
      col('targets', 'Tracked targets listing this domain; null when none.'),
      col('keywords', 'Keywords collected that day in the series.'),
      col('keywords_ranked', 'Keywords the domain ranked for.'),
      col('avg_position', 'Average best position over the keywords it ranked for (one decimal).'),
      col('visibility', 'Sum of the expected click-through rates of its best positions.'),
      col('share_pct', 'visibility over the sum of every domain\'s, percent (two decimals).'),
    ],
    select: `${SERP_ITEMS},
  ranked AS (
    SELECT ${SERIES.join(', ')}, date, domain, min(rank_group) AS position
    FROM serp_items WHERE item_type = 'organic' AND domain IS NOT NULL
    GROUP BY ${SERIES.join(', ')}, date, domain
  ), ${registrables('ranked')},
  best AS (
    SELECT ${series('r')}, r.date, g.registrable_domain, min(r.position) AS position
    FROM ranked r JOIN registrables g ON g.domain = r.domain
    GROUP BY ${series('r')}, r.date, g.registrable_domain
  ), weighted AS (
    SELECT *, CASE position WHEN 1 THEN 0.28 WHEN 2 THEN 0.15 WHEN 3 THEN 0.11 WHEN 4 THEN 0.08 WHEN 5 THEN 0.07 WHEN 6 THEN 0.05 WHEN 7 THEN 0.04
                  WHEN 8 THEN 0.03 WHEN 9 THEN 0.03 WHEN 10 THEN 0.02 ELSE CASE WHEN position <= 20 THEN 0.01 ELSE 0 END END AS ctr FROM best
  ), kw AS (
    SELECT ${dayKey('x')} AS day_key, count(x.keyword) AS keywords
    FROM (SELECT DISTINCT se, se_type, location_code, language_code, device, date, keyword FROM serp_items) AS x
    GROUP BY x.se, x.se_type, x.location_code, x.language_code, x.device, x.date
  ), target_domains AS (
    SELECT ${registrable('domain')} AS registrable_domain, string_agg(DISTINCT target, ', ' ORDER BY target) AS targets FROM _targets GROUP BY 1
  ), sums AS (
    -- best holds one row per keyword and registrable domain: count(keyword) counts distinct keywords, unsorted.
    SELECT se, se_type, location_code, language_code, device, date, registrable_domain,
           count(keyword) AS keywords_ranked, round(avg(position), 1) AS avg_position, sum(ctr) AS visibility
    FROM weighted GROUP BY se, se_type, location_code, language_code, device, date, registrable_domain
  )
SELECT s.se, s.se_type, s.location_code, s.language_code, s.device, s.date, s.registrable_domain, t.targets, k.keywords, s.keywords_ranked, s.avg_position,
       round(s.visibility, 4) AS visibility,
       round(100.0 * s.visibility / nullif(sum(s.visibility) OVER (PARTITION BY k.day_key), 0), 2) AS share_pct
FROM sums s
JOIN kw k ON k.day_key = ${dayKey('s')}
LEFT JOIN target_domains t ON t.registrable_domain = s.registrable_domain`,
  },
  {
    name: 'v_serp_unknown_item_types',
    question: 'Which item types did the service send that the catalog (the client\'s models) does not know yet?',
    grain: 'one row per unknown item type and result variant.',
    notes: 'Items whose type is none of the client models\' types: they are kept with their common columns and the rest of the item in `extra`, and named with their count in the summary of a run or an ingest. A row here means a new feature to type (regenerate the declarations from a newer client).',
    columns: [
      col('item_type', 'The unknown item type, without an engine prefix.'),
      col('variant', 'advanced or regular.'),
      col('items', 'Items of that type kept.'),
      col('pages', 'Result pages that held one.'),
      col('first_date', 'First UTC day seen.'),
      col('last_date', 'Last UTC day seen.'),
      col('example_extra', 'The `extra` of one such item, for a look at its fields.'),
    ],
    select: `
SELECT item_type, variant, count(*) AS items, count(DISTINCT parent) AS pages, min(day) AS first_date, max(day) AS last_date, any_value(extra) AS example_extra
FROM (
  SELECT i.item_type, 'advanced' AS variant, i._parent_id AS parent, CAST(timezone('UTC', s.datetime) AS DATE) AS day, i.extra
  FROM serp_results__items i JOIN serp_results s ON s._id = i._parent_id
  UNION ALL
  SELECT i.item_type, 'regular', i._parent_id, CAST(timezone('UTC', s.datetime) AS DATE), i.extra
  FROM serp_regular__items i JOIN serp_regular s ON s._id = i._parent_id
) AS x
WHERE item_type IS NOT NULL AND item_type NOT IN (${SERP_ITEM_TYPES.map(lit).join(', ')})
GROUP BY item_type, variant`,
  },
];
