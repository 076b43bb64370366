/** Business listings and reviews: Google My Business, Google reviews, Trustpilot, Tripadvisor, hotel info. Declared from the generated declarations. */
import type { FamilyDef } from '../types.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import FILE from '../generated/business_data.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'business', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'business_data',
  description: 'Business listings and reviews: Google My Business, Google reviews, Trustpilot, Tripadvisor, hotel info.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  sandbox: () => import('../../sandbox/generated.js'),
};
export default family;
