/** The account: user_data and webhook_resend (free). */
import type { FamilyDef } from '../../catalog/family.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/appendix.json' with { type: 'json' };
import { APPENDIX_ENDPOINTS } from './endpoints.js';
import { APPENDIX_TABLES } from './tables.js';

const LIVE: Record<string, string> = {};
const { endpoints, onDemandTables } = completeFamily(APPENDIX_ENDPOINTS, APPENDIX_TABLES, FILE as unknown as GeneratedFile, { prefix: 'account', version: '0.1.20240801', livePaths: APPENDIX_ENDPOINTS.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'appendix',
  description: 'The account: balance, limits and their use; re-sending webhooks.',
  endpoints,
  tables: APPENDIX_TABLES,
  onDemandTables,
};
export default family;
