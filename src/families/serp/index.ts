/** SERP: result pages of every engine and type, the endpoint list and the events search. */
import type { FamilyDef } from '../../catalog/family.js';
import { SERP_ENDPOINTS } from './endpoints.js';
import { EVENTS_ENDPOINTS } from './events-endpoints.js';
import { SERP_TABLES } from './tables.js';
import { EVENTS_TABLES } from './events-tables.js';
import { SERP_VIEWS } from './views.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/serp.json' with { type: 'json' };

const own = [...EVENTS_ENDPOINTS, ...SERP_ENDPOINTS];
const tables = [...EVENTS_TABLES, ...SERP_TABLES];
/** The engines the hand-declared endpoints' path tokens stand for on the live service (config/default.yaml `paths`). */
const LIVE = { engine_a: 'google', engine_b: 'bing', engine_c: 'yahoo', engine_d: 'baidu' };
const { endpoints, onDemandTables } = completeFamily(own, tables, FILE as unknown as GeneratedFile, { prefix: 'serp', version: '0.1.20240801', livePaths: own.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'serp',
  description: 'Search engine result pages of every engine and type the API lists (Google AI Mode included), the endpoint list and the events search.',
  endpoints,
  tables,
  onDemandTables,
  views: SERP_VIEWS,
};
export default family;
