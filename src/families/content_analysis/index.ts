/** Content analysis: citations of a keyword or a brand on the web, their sentiment and phrase trends. Declared from the generated declarations. */
import type { FamilyDef } from '../types.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import FILE from '../generated/content_analysis.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'content_analysis', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'content_analysis',
  description: 'Content analysis: citations of a keyword or a brand on the web, their sentiment and phrase trends.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  sandbox: () => import('../../sandbox/generated.js'),
};
export default family;
