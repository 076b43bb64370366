/** Merchant: shopping results. */
import type { FamilyDef } from '../types.js';
import { MERCHANT_ENDPOINTS } from './endpoints.js';
import { MERCHANT_TABLES } from './tables.js';

const family: FamilyDef = {
  name: 'merchant',
  description: 'Shopping results of a search engine for a keyword.',
  endpoints: MERCHANT_ENDPOINTS,
  tables: MERCHANT_TABLES,
  sandbox: () => import('./sandbox.js'),
};
export default family;
