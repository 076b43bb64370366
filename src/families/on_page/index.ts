/** On-page: crawl results. */
import type { FamilyDef } from '../types.js';
import { ON_PAGE_ENDPOINTS } from './endpoints.js';
import { ON_PAGE_TABLES } from './tables.js';

const family: FamilyDef = {
  name: 'on_page',
  description: 'What a crawl of a site found: resources of its pages.',
  endpoints: ON_PAGE_ENDPOINTS,
  tables: ON_PAGE_TABLES,
  sandbox: () => import('./sandbox.js'),
};
export default family;
