/** Views over the keyword tables of both keyword APIs (declared like the others in views.ts). */
import type { ViewDef } from '../../catalog/view.js';
import { KEYWORDS_ADS_ENDPOINTS } from './ads-endpoints.js';

const col = (name: string, description: string) => ({ name, description });
/** The ads API's endpoint ids, and those older versions stored its rows under (`formerly`). */
const ADS_IDS = KEYWORDS_ADS_ENDPOINTS.flatMap((e) => [e.id, ...(e.formerly ? [e.formerly] : [])]).map((id) => `'${id}'`).join(', ');

export const KEYWORD_VIEWS: readonly ViewDef[] = [
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
