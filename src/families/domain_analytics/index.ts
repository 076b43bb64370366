/** Domain analytics: errors and domains by HTML terms. */
import type { FamilyDef } from '../types.js';
import { DOMAIN_ANALYTICS_ENDPOINTS } from './endpoints.js';
import { DOMAIN_ANALYTICS_TABLES } from './tables.js';

const family: FamilyDef = {
  name: 'domain_analytics',
  description: 'Domains and their technologies; the account\'s errors of the last 7 days.',
  endpoints: DOMAIN_ANALYTICS_ENDPOINTS,
  tables: DOMAIN_ANALYTICS_TABLES,
  sandbox: () => import('./sandbox.js'),
};
export default family;
