/** Views over the keyword tables of both keyword APIs (declared like the others in views.ts). */
import { col, type ViewDef } from '../../catalog/view.js';
import { KEYWORDS_ADS_ENDPOINTS } from './ads-endpoints.js';

/** The ads API's endpoint ids, and those older versions stored its rows under (`formerly`). */
const ADS_IDS = KEYWORDS_ADS_ENDPOINTS.flatMap((e) => [e.id, ...(e.formerly ? [e.formerly] : [])]).map((id) => `'${id}'`).join(', ');

export const KEYWORD_VIEWS: readonly ViewDef[] = [
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
    name: 'v_keyword_competition',
    question: 'How competitive is a keyword in paid search, whichever keyword API measured it?',
    grain: 'one row per keyword row of `keyword_data` (each collection of each keyword).',
    notes: 'The legacy API gives competition as a number from 0 to 1; the ads-based API as a level (LOW, MEDIUM, HIGH) and an index from 0 to 100. `competition` puts both on the 0-1 scale (the index divided by 100) without changing either source column, which stay beside it; `source_api` says which API answered.',
    columns: [
      col('keyword', 'Keyword.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('source_api', '`google_ads` (the ads-based keyword API) or `legacy` (the legacy keyword family).'),
      col('function', 'The function that returned the row (search_volume, keywords_for_site, keywords_for_keywords).'),
      col('competition', 'Paid-search competition on one scale, 0 to 1: the legacy figure, or the ads API\'s competition_index / 100.'),
      col('competition_level', 'Ads API: LOW, MEDIUM or HIGH; null on legacy rows.'),
      col('competition_index', 'Ads API: 0 to 100; null on legacy rows.'),
      col('legacy_competition', 'Legacy API: 0 to 1 as the service gave it; null on ads API rows.'),
      col('search_volume', 'Approximate monthly average searches.'),
      col('cpc', 'Average cost per click, USD.'),
      col('api_version', 'The `version` the API answered with (null for rows loaded before it was kept).'),
      col('loaded_at', 'When the row was loaded.'),
      col('run_id', 'Run that collected the row.'),
    ],
    select: `
SELECT keyword, location_code, language_code,
       CASE WHEN endpoint_id IN (${ADS_IDS}) THEN 'google_ads' ELSE 'legacy' END AS source_api,
       function,
       coalesce(competition, competition_index / 100.0) AS competition,
       competition_level, competition_index, competition AS legacy_competition,
       search_volume, cpc, api_version, _loaded_at AS loaded_at, _run_id AS run_id
FROM keyword_data`,
  },
];
