/** AI Optimization: LLM mentions of brands and domains, each vendor's LLM responses, the LLM scraper, AI keyword data. Declared from the generated declarations. */
import type { FamilyDef } from '../types.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import FILE from '../generated/ai_optimization.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'ai', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'ai_optimization',
  description: 'AI Optimization: LLM mentions of brands and domains, each vendor\'s LLM responses, the LLM scraper, AI keyword data.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  sandbox: () => import('../../sandbox/generated.js'),
};
export default family;
