/**
 * Tables of the ads-based keyword API. Its keyword metrics share `keyword_data` with the legacy family (the
 * columns below are added to it); ad traffic forecasts and the free lists have tables of their own. Field names
 * and types follow the official client's models (docs/api-live.md, "Keyword data").
 */
import type { ColumnDef, DuckType, TableDef } from '../../catalog/table.js';
import { LOCATION_COLUMNS, c, ts } from '../../catalog/declare.js';

/** Where a row came from: the catalog endpoint (`keywords_data.google_ads.*` is the ads API) and the API version that answered. */
const ORIGIN: readonly ColumnDef[] = [
  c('endpoint_id', 'VARCHAR', 'Catalog endpoint that returned the row (`keywords_data.google_ads.*` for the ads-based API, `keywords_for_*` for the legacy one).', '$endpoint_id'),
  c('api_version', 'VARCHAR', 'The `version` the API answered with.', '$version'),
];

/** The ads API's metrics in `keyword_data`, after the columns both APIs share. */
export const KEYWORDS_ADS_METRIC_COLUMNS: readonly ColumnDef[] = [
  { ...c('competition_level', 'VARCHAR', 'Ads API only: paid-search competition level, LOW, MEDIUM or HIGH (the service\'s `competition`).', 'competition'), onlyForResultKinds: ['keyword_ads_data'] },
  c('competition_index', 'INTEGER', 'Ads API only: paid-search competition index, 0 to 100.'),
  c('low_top_of_page_bid', 'DOUBLE', 'Ads API only: lower range of the top-of-page bid, USD.'),
  c('high_top_of_page_bid', 'DOUBLE', 'Ads API only: upper range of the top-of-page bid, USD.'),
  c('spell', 'VARCHAR', 'Ads API only: the spelling the service suggests for the keyword; null without one.'),
  ...ORIGIN,
];

/** Request parameters the ads API echoes in a task's `data`, as columns of `tasks`. */
export const KEYWORDS_ADS_TASK_COLUMNS: readonly ColumnDef[] = [
  c('target_type', 'VARCHAR', 'Keywords for a whole site or one page (`data.target_type`).', 'data.target_type'),
  c('date_from', 'VARCHAR', 'Start of the requested date range, yyyy-mm-dd (`data.date_from`).', 'data.date_from'),
  c('date_to', 'VARCHAR', 'End of the requested date range, yyyy-mm-dd (`data.date_to`).', 'data.date_to'),
  c('date_interval', 'VARCHAR', 'Forecast interval (`data.date_interval`).', 'data.date_interval'),
  c('include_adult_keywords', 'BOOLEAN', 'Whether adult keywords were asked for (`data.include_adult_keywords`).', 'data.include_adult_keywords'),
  c('bid', 'DOUBLE', 'Maximum bid of a traffic forecast, USD (`data.bid`).', 'data.bid'),
  c('match', 'VARCHAR', 'Keyword match type of a traffic forecast (`data.match`).', 'data.match'),
];

export const KEYWORDS_ADS_TABLES: readonly TableDef[] = [
  {
    name: 'keyword_ad_traffic', parent: null, resultKind: 'ad_traffic', extra: true,
    description: 'Ad traffic forecasts of the ads-based keyword API (ad_traffic_by_keywords), one row per keyword, bid and match type.',
    columns: [
      c('function', 'VARCHAR', 'ad_traffic_by_keywords (the task\'s `data.function`).', '$function'),
      c('keyword', 'VARCHAR', 'Keyword.'),
      c('location_code', 'BIGINT', 'Location code.'),
      c('language_code', 'VARCHAR', 'Language code.'),
      c('date_interval', 'VARCHAR', 'Forecast interval: next_week, next_month or next_quarter; null when a date range was given.'),
      c('search_partners', 'BOOLEAN', 'Whether partner networks are included.'),
      c('bid', 'DOUBLE', 'Maximum bid of the forecast, USD.'),
      c('match', 'VARCHAR', 'Keyword match type: exact, broad or phrase.'),
      c('impressions', 'DOUBLE', 'Deprecated by the service (Google stopped keyword forecasts in June 2023): always null.'),
      c('ctr', 'DOUBLE', 'Deprecated by the service: always null.'),
      c('average_cpc', 'DOUBLE', 'Average cost per click over the interval, USD.'),
      c('cost', 'DOUBLE', 'Cost of the forecast clicks, USD.'),
      c('clicks', 'DOUBLE', 'Forecast clicks over the interval.'),
      ...ORIGIN,
    ],
  },
  {
    name: 'keyword_ads_status', parent: null, resultKind: 'keyword_ads_status', extra: true,
    description: 'Whether the ads service has last month\'s keyword data yet (status of the ads-based keyword API).',
    columns: [
      c('actual_data', 'BOOLEAN', 'Whether data for the previous month is in.'),
      ts('date_update', 'Day of the latest update (midnight UTC of the `yyyy-mm-dd` the service gives).'),
      c('last_year_in_monthly_searches', 'INTEGER', 'Latest year with monthly searches.'),
      c('last_month_in_monthly_searches', 'INTEGER', 'Latest month with monthly searches.'),
    ],
  },
  {
    name: 'keyword_ads_locations', parent: null, resultKind: 'keyword_ads_locations', extra: true,
    description: 'Locations of the ads-based keyword API.',
    columns: LOCATION_COLUMNS,
  },
  {
    name: 'keyword_ads_languages', parent: null, resultKind: 'keyword_ads_languages', extra: true,
    description: 'Languages of the ads-based keyword API.',
    columns: [c('language_name', 'VARCHAR', 'Language name.'), c('language_code', 'VARCHAR', 'Language code.')],
  },
];
