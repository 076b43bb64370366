/** Views over the Labs tables (declared like the others in src/publish/views.ts), and the report's charts of them. */
import { col, type ViewDef } from '../../catalog/view.js';
import type { FamilyReportDef } from '../../catalog/family.js';
import { snapshotDate, SNAPSHOT_DATE } from '../../catalog/snapshot-date.js';


/**
 * Each domain's (`target`'s) latest ranked_keywords collection of a keyword, location and language, organic items
 * only: the CTE `latest` both views read.
 */
const LATEST_RANKED = `
WITH ranked AS (
  SELECT r.target AS domain, i.keyword_data__keyword AS keyword, r.location_code, r.language_code,
         i.ranked_serp_element__serp_item__rank_group AS position, o.url AS url,
         i.keyword_data__keyword_info__search_volume AS search_volume, i.keyword_data__keyword_info__cpc AS cpc,
         i._loaded_at AS loaded_at, i._run_id AS run_id,
         row_number() OVER (PARTITION BY r.target, i.keyword_data__keyword, r.location_code, r.language_code ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM labs_ranked_keywords__items i JOIN labs_ranked_keywords r ON r._id = i._parent_id
  JOIN labs_ranked_keywords__items__organic o ON o._id = i._id
  WHERE i.item_type = 'organic' AND i.keyword_data__keyword IS NOT NULL
), latest AS (
  SELECT * FROM ranked WHERE rn = 1
)`;

/** A Labs result's latest collection of each day, per `target`, location and language (`alias` the result table). */
const latestOfDay = (table: string) => `
WITH collections AS (
  SELECT t._id, t.target, t.location_code, t.language_code, t.total_count, t._run_id AS run_id, t._loaded_at AS loaded_at, ${snapshotDate('t')} AS snapshot_date
  FROM ${table} t LEFT JOIN _runs r ON r.run_id = t._run_id
  WHERE t.target IS NOT NULL
), latest AS (
  SELECT * FROM (
    SELECT c.*, row_number() OVER (PARTITION BY c.snapshot_date, c.target, c.location_code, c.language_code ORDER BY c.loaded_at DESC, c._id DESC) AS rn FROM collections c
  ) x WHERE rn = 1
)`;

/** A number of a metrics entry (JSON text) as DOUBLE, the same in DuckDB and PostgreSQL. */
const metric = (json: string, key: string) => `CAST(CAST(${json} AS JSON)->>'${key}' AS FLOAT8)`;

export const LABS_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_labs_ranked_keywords_history',
    question: 'How many keywords does a domain rank for in organic search, how high, and with how much traffic, day by day?',
    grain: 'one row per snapshot day, domain, location and language: the day\'s latest ranked_keywords collection.',
    notes: 'From `labs_ranked_keywords` (the `target` asked for) and its organic `metrics` entry (`labs_ranked_keywords__metrics`, key `organic`): the Labs database\'s figures for the whole domain, not only the items collected. `keywords_collected` and `avg_position` are of the organic items the step collected (its `limit`). When a domain was collected more than once on a day, the latest collection counts.',
    needs: ['labs_ranked_keywords', 'labs_ranked_keywords__metrics', 'labs_ranked_keywords__items'],
    columns: [
      SNAPSHOT_DATE,
      col('domain', 'The domain (or page) the ranked keywords were asked for (`target`).'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('ranked_keywords', 'Keywords the domain ranks for in organic search (`metrics.organic.count`; the result\'s `total_count` when there is none).'),
      col('top_3', 'Of which at positions 1 to 3.'),
      col('top_10', 'Of which at positions 1 to 10.'),
      col('etv', 'Estimated monthly organic traffic of those keywords (`metrics.organic.etv`).'),
      col('keywords_collected', 'Organic items the step collected for the domain.'),
      col('avg_position', 'Average organic position of the collected items (one decimal).'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `${latestOfDay('labs_ranked_keywords')}, organic AS (
  SELECT _parent_id, value FROM labs_ranked_keywords__metrics WHERE key = 'organic'
), collected AS (
  SELECT _parent_id, count(*) AS keywords_collected, avg(ranked_serp_element__serp_item__rank_group) AS avg_position
  FROM labs_ranked_keywords__items WHERE item_type = 'organic' GROUP BY _parent_id
)
SELECT l.snapshot_date, l.target AS domain, l.location_code, l.language_code,
       CAST(coalesce(${metric('o.value', 'count')}, l.total_count) AS BIGINT) AS ranked_keywords,
       CAST(${metric('o.value', 'pos_1')} + ${metric('o.value', 'pos_2_3')} AS BIGINT) AS top_3,
       CAST(${metric('o.value', 'pos_1')} + ${metric('o.value', 'pos_2_3')} + ${metric('o.value', 'pos_4_10')} AS BIGINT) AS top_10,
       ${metric('o.value', 'etv')} AS etv,
       CAST(coalesce(c.keywords_collected, 0) AS BIGINT) AS keywords_collected,
       round(CAST(c.avg_position AS FLOAT8), 1) AS avg_position,
       l.run_id
FROM latest l LEFT JOIN organic o ON o._parent_id = l._id LEFT JOIN collected c ON c._parent_id = l._id`,
  },
  {
    name: 'v_labs_competitors_history',
    question: 'Who competes with a domain in organic search, on how many keywords, and how does that change day by day?',
    grain: 'one row per snapshot day, domain, location, language and competitor: the day\'s latest competitors_domain collection.',
    notes: 'From `labs_competitors_domain__items` joined to `labs_competitors_domain` (the `target` asked for) and to the competitor\'s organic `metrics` entry (`labs_competitors_domain__items__metrics`, key `organic`: its figures on the keywords it shares with the domain). The domain itself is left out where the service lists it among its competitors. When a domain was collected more than once on a day, the latest collection counts.',
    needs: ['labs_competitors_domain', 'labs_competitors_domain__items', 'labs_competitors_domain__items__metrics'],
    columns: [
      SNAPSHOT_DATE,
      col('domain', 'The domain whose competitors were asked for (`target`).'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('competitor', 'A competing domain.'),
      col('competitor_rank', 'Its rank that day among the domain\'s competitors, by keywords shared (1 = the most).'),
      col('intersections', 'Keywords both rank for (`intersections`).'),
      col('avg_position', 'The competitor\'s average position on those keywords.'),
      col('etv', 'The competitor\'s estimated monthly organic traffic on those keywords (`metrics.organic.etv`).'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `${latestOfDay('labs_competitors_domain')}, organic AS (
  SELECT _parent_id, value FROM labs_competitors_domain__items__metrics WHERE key = 'organic'
)
SELECT l.snapshot_date, l.target AS domain, l.location_code, l.language_code, i.domain AS competitor,
       CAST(row_number() OVER (PARTITION BY l.snapshot_date, l.target, l.location_code, l.language_code ORDER BY i.intersections DESC NULLS LAST, i.domain) AS BIGINT) AS competitor_rank,
       CAST(i.intersections AS BIGINT) AS intersections, CAST(i.avg_position AS FLOAT8) AS avg_position, ${metric('o.value', 'etv')} AS etv, l.run_id
FROM latest l JOIN labs_competitors_domain__items i ON i._parent_id = l._id LEFT JOIN organic o ON o._parent_id = i._id
WHERE i.domain IS NOT NULL AND i.domain <> l.target`,
  },
  {
    name: 'v_labs_striking_distance',
    question: 'Which keywords does a domain rank for just off the top (organic positions 4 to 20), and how much are they searched?',
    grain: 'one row per domain, keyword, location and language: its latest ranked_keywords collection.',
    notes: 'From `labs_ranked_keywords__items` joined to `labs_ranked_keywords` (the `target` asked for) and to `labs_ranked_keywords__items__organic` (the organic item\'s own fields, same `_id`). Organic items only; the position is `rank_group` (among organic results). When a keyword was collected more than once, the latest collection counts.',
    needs: ['labs_ranked_keywords', 'labs_ranked_keywords__items', 'labs_ranked_keywords__items__organic'],
    columns: [
      col('domain', 'The domain (or page) the ranked keywords were asked for (`target`).'),
      col('keyword', 'Keyword.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('position', 'Organic position (rank among organic results), 4 to 20.'),
      col('url', 'The ranking URL.'),
      col('search_volume', 'Monthly searches of the keyword.'),
      col('cpc', 'Average cost per click, USD.'),
      col('loaded_at', 'When the collection was loaded.'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `${LATEST_RANKED}
SELECT domain, keyword, location_code, language_code, CAST(position AS INTEGER) AS position, url, CAST(search_volume AS BIGINT) AS search_volume, cpc, loaded_at, run_id
FROM latest WHERE position BETWEEN 4 AND 20`,
  },
  {
    name: 'v_labs_keyword_overlap',
    question: 'Which keywords do two or more of the domains I collected rank for, where does each rank, and how much are they searched?',
    grain: 'one row per shared keyword, location, language and domain ranking for it: its latest ranked_keywords collection.',
    notes: 'From `labs_ranked_keywords__items` joined to `labs_ranked_keywords` (each `target` collected is a domain) and to `labs_ranked_keywords__items__organic` (the organic item\'s own fields, same `_id`). Organic items only; the position is `rank_group` (among organic results). A keyword is shared when at least two domains rank for it in the same location and language; each domain\'s latest collection of the keyword counts. Collect `dataforseo_labs.google.ranked_keywords.live` once per competitor (`for_each: target:`).',
    needs: ['labs_ranked_keywords', 'labs_ranked_keywords__items', 'labs_ranked_keywords__items__organic'],
    columns: [
      col('keyword', 'Keyword two or more domains rank for.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('domains_ranking', 'How many of the collected domains rank for it (2 or more).'),
      col('domain', 'A domain that ranks for it (`target`).'),
      col('position', 'Its organic position (rank among organic results).'),
      col('url', 'Its ranking URL.'),
      col('search_volume', 'Monthly searches of the keyword.'),
      col('loaded_at', 'When that domain\'s collection was loaded.'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `${LATEST_RANKED}, shared AS (
  SELECT keyword, location_code, language_code, count(*) AS domains_ranking FROM latest WHERE domain IS NOT NULL GROUP BY keyword, location_code, language_code HAVING count(*) >= 2
)
SELECT l.keyword, l.location_code, l.language_code, CAST(s.domains_ranking AS BIGINT) AS domains_ranking, l.domain,
       CAST(l.position AS INTEGER) AS position, l.url, CAST(l.search_volume AS BIGINT) AS search_volume, l.loaded_at, l.run_id
FROM latest l JOIN shared s ON s.keyword = l.keyword AND s.location_code IS NOT DISTINCT FROM l.location_code AND s.language_code IS NOT DISTINCT FROM l.language_code
WHERE l.domain IS NOT NULL`,
  },
];

/** Lines of a Labs history view over the report's days, for the domains the run collected; one panel per location. */
const perDomain = (view: string, value: string) => `
SELECT CAST(snapshot_date AS VARCHAR) AS date, CAST(CAST(location_code AS BIGINT) AS VARCHAR) || ', ' || coalesce(language_code, '') AS panel, domain AS series, ${value} AS value
FROM ${view}
WHERE snapshot_date BETWEEN $1::DATE AND $2::DATE AND domain IN (SELECT domain FROM ${view} WHERE run_id = $3)
ORDER BY panel, series, date`;

export const LABS_REPORT: FamilyReportDef = {
  title: 'DataForSEO Labs',
  intro: 'The domains this run collected from Labs, per day: the keywords they rank for and their estimated traffic (v_labs_ranked_keywords_history), and their top competitors by keywords shared (v_labs_competitors_history).',
  charts: [
    { id: 'ranked-keywords', title: 'Keywords ranked in organic search', yName: 'keywords', views: ['v_labs_ranked_keywords_history'], sql: perDomain('v_labs_ranked_keywords_history', 'ranked_keywords') },
    { id: 'etv', title: 'Estimated organic traffic (etv)', yName: 'etv', views: ['v_labs_ranked_keywords_history'], sql: perDomain('v_labs_ranked_keywords_history', 'etv') },
    {
      id: 'competitors', title: 'Top competitors: keywords shared', yName: 'keywords', views: ['v_labs_competitors_history'],
      // The five competitors sharing the most keywords in the run's own collection, followed over the days.
      sql: `
WITH shown AS (
  SELECT domain, location_code, language_code, competitor FROM v_labs_competitors_history WHERE run_id = $3 AND competitor_rank <= 5
)
SELECT CAST(h.snapshot_date AS VARCHAR) AS date, h.domain || ' (' || CAST(CAST(h.location_code AS BIGINT) AS VARCHAR) || ', ' || coalesce(h.language_code, '') || ')' AS panel, h.competitor AS series, h.intersections AS value
FROM v_labs_competitors_history h
JOIN shown s ON s.domain = h.domain AND s.competitor = h.competitor AND s.location_code IS NOT DISTINCT FROM h.location_code AND s.language_code IS NOT DISTINCT FROM h.language_code
WHERE h.snapshot_date BETWEEN $1::DATE AND $2::DATE
ORDER BY panel, series, date`,
    },
  ],
};
