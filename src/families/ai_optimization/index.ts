/** AI Optimization: LLM mentions of brands and domains, each vendor's LLM responses, the LLM scraper, AI keyword data. Declared from the generated declarations. */
import type { FamilyDef } from '../../catalog/family.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import { AI_VIEWS } from './views.js';
import FILE from '../generated/ai_optimization.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'ai', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'ai_optimization',
  description: 'AI Optimization: LLM mentions of brands and domains, each vendor\'s LLM responses, the LLM scraper, AI keyword data.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  views: AI_VIEWS,
  // Live LLM responses: 30 at once per account for each vendor; AI keyword data: 30 (docs/api-live.md, AI Optimization limits).
  inFlightBy: {
    'ai_optimization.chat_gpt.llm_responses.live': 30,
    'ai_optimization.claude.llm_responses.live': 30,
    'ai_optimization.gemini.llm_responses.live': 30,
    'ai_optimization.perplexity.llm_responses.live': 30,
    'ai_optimization.ai_keyword_data.': 30,
  },
};
export default family;
