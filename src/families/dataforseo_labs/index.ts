/**
 * DataForSEO Labs (Google, Bing, Amazon, app stores): ranked keywords, competitors, keyword ideas, domain
 * overviews. Declared from the generated declarations; Labs allows 30 requests in flight at once (docs/api-live.md).
 */
import type { FamilyDef } from '../../catalog/family.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import { LABS_REPORT, LABS_VIEWS } from './views.js';
import FILE from '../generated/dataforseo_labs.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'labs', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'dataforseo_labs',
  description: 'Keyword and domain research from the Labs database: ranked keywords, competitors, keyword ideas, overviews.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  views: LABS_VIEWS,
  report: LABS_REPORT,
  inFlight: 30,
};
export default family;
