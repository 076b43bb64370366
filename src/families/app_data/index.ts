/** App stores: app searches, app listings, app info and reviews (Google Play, App Store). Declared from the generated declarations. */
import type { FamilyDef } from '../types.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import FILE from '../generated/app_data.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'app', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'app_data',
  description: 'App stores: app searches, app listings, app info and reviews (Google Play, App Store).',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  sandbox: () => import('../../sandbox/generated.js'),
};
export default family;
