/** SERP: result pages of every engine and type, the endpoint list and the events search. */
import type { FamilyDef } from '../types.js';
import { SERP_ENDPOINTS } from './endpoints.js';
import { EVENTS_ENDPOINTS } from './events-endpoints.js';
import { SERP_TABLES } from './tables.js';
import { EVENTS_TABLES } from './events-tables.js';
import { SERP_VIEWS } from './views.js';

const family: FamilyDef = {
  name: 'serp',
  description: 'Search engine result pages: organic, news, images, maps, local pack and events.',
  endpoints: [...EVENTS_ENDPOINTS, ...SERP_ENDPOINTS],
  tables: [...EVENTS_TABLES, ...SERP_TABLES],
  views: SERP_VIEWS,
  sandbox: () => import('./emulator.js'),
};
export default family;
