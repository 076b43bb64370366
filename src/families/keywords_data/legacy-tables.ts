/** Keyword metrics of both keyword APIs (legacy E1, E2 and the ads-based API): one table, each API's competition in its own terms. */
import type { TableDef } from '../../catalog/table.js';
import { c, scalarChild } from '../../catalog/declare.js';

import { KEYWORDS_ADS_METRIC_COLUMNS } from './ads-tables.js';

export const KEYWORD_DATA_TABLES: readonly TableDef[] = [
  {
    name: 'keyword_data', parent: null, resultKind: 'keyword_data', alsoResultKinds: ['keyword_ads_data'], extra: true,
    description: 'Keyword metrics, one row per keyword, from both keyword APIs: the legacy family (keywords_for_site, keywords_for_keywords) and the ads-based API (search_volume, keywords_for_site, keywords_for_keywords; `endpoint_id` `keywords_data.google_ads.*`). Competition stays in each API\'s terms (`competition` legacy 0-1, `competition_level`/`competition_index` ads); `v_keyword_competition` puts them side by side.',
    columns: [
      c('function', 'VARCHAR', 'keywords_for_site or keywords_for_keywords (the task\'s `data.function`).', '$function'),
      c('keyword', 'VARCHAR', 'Keyword.'),
      c('location_code', 'BIGINT', 'Location code.'),
      c('language_code', 'VARCHAR', 'Language code.'),
      c('search_partners', 'BOOLEAN', 'Whether data from partner networks is included.'),
      { ...c('competition', 'DOUBLE', 'Legacy API only: relative paid-search competition, 0 to 1 (null on ads API rows, see `competition_level`).'), onlyForResultKinds: ['keyword_data'] },
      c('cpc', 'DOUBLE', 'Average cost per click, USD.'),
      c('search_volume', 'BIGINT', 'Approximate monthly average searches.'),
      ...KEYWORDS_ADS_METRIC_COLUMNS,
    ],
  },
  {
    name: 'keyword_data__monthly_searches', parent: 'keyword_data', extra: true, source: { kind: 'objects', path: 'monthly_searches' },
    description: 'Searches per month of a keyword (the past twelve months, or the requested range on the ads-based API).',
    columns: [c('year', 'INTEGER', 'Year.'), c('month', 'INTEGER', 'Month number (1-12).'), c('search_volume', 'BIGINT', 'Search volume of that month.')],
  },
  scalarChild('keyword_data__categories', 'keyword_data', 'categories', c('category_code', 'BIGINT', 'Product and service category code.', '$'), 'Category codes of a keyword, one row per code.'),
];
