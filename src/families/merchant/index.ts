/** Merchant: shopping results. */
import type { FamilyDef } from '../../catalog/family.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/merchant.json' with { type: 'json' };
import { MERCHANT_ENDPOINTS } from './endpoints.js';
import { MERCHANT_TABLES } from './tables.js';

const LIVE: Record<string, string> = { merchant: 'google' };
const { endpoints, onDemandTables } = completeFamily(MERCHANT_ENDPOINTS, MERCHANT_TABLES, FILE as unknown as GeneratedFile, { prefix: 'merchant', version: '0.1.20240801', livePaths: MERCHANT_ENDPOINTS.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'merchant',
  description: 'Shopping results: Google Shopping products, sellers and product info; Amazon products, ASINs and sellers.',
  endpoints,
  tables: MERCHANT_TABLES,
  onDemandTables,
};
export default family;
