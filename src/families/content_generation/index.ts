/** Content generation: paraphrase. */
import type { FamilyDef } from '../../catalog/family.js';
import { CONTENT_GENERATION_ENDPOINTS } from './endpoints.js';
import { CONTENT_GENERATION_TABLES } from './tables.js';

const family: FamilyDef = {
  name: 'content_generation',
  description: 'Texts generated from a text: paraphrase.',
  endpoints: CONTENT_GENERATION_ENDPOINTS,
  tables: CONTENT_GENERATION_TABLES,
};
export default family;
