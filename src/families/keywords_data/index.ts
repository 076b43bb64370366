/** Keywords data: the legacy keyword family and the ads-based keyword API. */
import type { FamilyDef } from '../../catalog/family.js';
import { LEGACY_KEYWORD_ENDPOINTS } from './legacy-endpoints.js';
import { KEYWORDS_ADS_ENDPOINTS } from './ads-endpoints.js';
import { KEYWORD_DATA_TABLES } from './legacy-tables.js';
import { KEYWORDS_ADS_TABLES, KEYWORDS_ADS_TASK_COLUMNS } from './ads-tables.js';
import { KEYWORD_VIEWS } from './views.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/keywords_data.json' with { type: 'json' };

const own = [...LEGACY_KEYWORD_ENDPOINTS, ...KEYWORDS_ADS_ENDPOINTS];
const tables = [...KEYWORD_DATA_TABLES, ...KEYWORDS_ADS_TABLES];
/** What the path tokens stand for on the live service (config/default.yaml `paths`). */
const LIVE = { keywords_data: 'google_ads', keywords_data_legacy: 'google' };
const { endpoints, onDemandTables } = completeFamily(own, tables, FILE as unknown as GeneratedFile, { prefix: 'keywords', version: '0.1.20211130', livePaths: own.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'keywords_data',
  description: 'Keyword metrics: Google Ads, Bing, Google Trends, DataForSEO Trends, clickstream; suggestions and ad traffic forecasts.',
  endpoints,
  tables,
  onDemandTables,
  taskColumns: KEYWORDS_ADS_TASK_COLUMNS,
  views: KEYWORD_VIEWS,
};
export default family;
