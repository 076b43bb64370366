/** The account: user_data and webhook_resend (free). */
import type { FamilyDef } from '../types.js';
import { APPENDIX_ENDPOINTS } from './endpoints.js';
import { APPENDIX_TABLES } from './tables.js';

const family: FamilyDef = {
  name: 'appendix',
  description: 'The account: balance, limits and their use; re-sending webhooks.',
  endpoints: APPENDIX_ENDPOINTS,
  tables: APPENDIX_TABLES,
  sandbox: () => import('./sandbox.js'),
};
export default family;
