/** Keywords data: the legacy keyword family and the ads-based keyword API. */
import type { FamilyDef } from '../types.js';
import { LEGACY_KEYWORD_ENDPOINTS } from './legacy-endpoints.js';
import { KEYWORDS_ADS_ENDPOINTS } from './ads-endpoints.js';
import { KEYWORD_DATA_TABLES } from './legacy-tables.js';
import { KEYWORDS_ADS_TABLES, KEYWORDS_ADS_TASK_COLUMNS } from './ads-tables.js';
import { KEYWORD_VIEWS } from './views.js';

const family: FamilyDef = {
  name: 'keywords_data',
  description: 'Keyword metrics: search volume, competition and bids, keyword suggestions, ad traffic forecasts.',
  endpoints: [...LEGACY_KEYWORD_ENDPOINTS, ...KEYWORDS_ADS_ENDPOINTS],
  tables: [...KEYWORD_DATA_TABLES, ...KEYWORDS_ADS_TABLES],
  taskColumns: KEYWORDS_ADS_TASK_COLUMNS,
  views: KEYWORD_VIEWS,
  sandbox: () => import('./sandbox.js'),
};
export default family;
