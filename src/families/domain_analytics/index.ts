/** Domain analytics: errors and domains by HTML terms. */
import type { FamilyDef } from '../../catalog/family.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/domain_analytics.json' with { type: 'json' };
import { DOMAIN_ANALYTICS_ENDPOINTS } from './endpoints.js';
import { DOMAIN_ANALYTICS_TABLES } from './tables.js';

const LIVE: Record<string, string> = {};
const { endpoints, onDemandTables } = completeFamily(DOMAIN_ANALYTICS_ENDPOINTS, DOMAIN_ANALYTICS_TABLES, FILE as unknown as GeneratedFile, { prefix: 'domain', version: '0.1.20240801', livePaths: DOMAIN_ANALYTICS_ENDPOINTS.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'domain_analytics',
  description: 'Domains: technologies, whois; the account\'s errors of the last 7 days.',
  endpoints,
  tables: DOMAIN_ANALYTICS_TABLES,
  onDemandTables,
  // Live Whois and Technologies requests: 30 at once (docs/api-live.md, Domain Analytics limits).
  inFlight: 30,
};
export default family;
