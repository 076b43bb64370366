/** Views over the AI Optimization tables (declared like the others in src/publish/views.ts). */
import { col, type ViewDef } from '../../catalog/view.js';


export const AI_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_ai_llm_brand_mentions',
    question: 'How often does each LLM mention a brand in its answers, and which sources do those answers cite?',
    grain: 'one row per brand, platform, model, location and language: the latest answer to each question.',
    notes: 'From `ai_llm_mentions_search_mentions__items` (an LLM answer to a question), its `__brand_entities` (the brands the answer names) and its `__sources` (what it cites). An answer collected more than once counts once, by its latest collection (the same platform, model, question, location and language). Collect `ai_optimization.llm_mentions.search_mentions.live` with your brand as the target.',
    needs: ['ai_llm_mentions_search_mentions', 'ai_llm_mentions_search_mentions__items', 'ai_llm_mentions_search_mentions__items__brand_entities', 'ai_llm_mentions_search_mentions__items__sources'],
    columns: [
      col('brand', 'Brand an answer names (`brand_entities.title`).'),
      col('platform', 'Where the answers come from (`google` for AI Overviews, `chat_gpt`, ...).'),
      col('model_name', 'The model that answered.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('mentions', 'Answers naming the brand.'),
      col('cited_urls', 'Distinct source URLs those answers cite.'),
      col('cited_domains_count', 'Distinct source domains those answers cite.'),
      col('cited_domains', 'Those domains, comma-separated, in alphabetical order.'),
      col('loaded_at', 'When the latest of those answers was loaded.'),
    ],
    select: `
WITH answers AS (
  SELECT i._id, i.platform, i.model_name, i.location_code, i.language_code, i._loaded_at AS loaded_at,
         row_number() OVER (PARTITION BY i.platform, i.model_name, i.question, i.location_code, i.language_code ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM ai_llm_mentions_search_mentions__items i
  WHERE i.question IS NOT NULL
), latest AS (
  SELECT * FROM answers WHERE rn = 1
), named AS (
  SELECT DISTINCT b._parent_id AS answer_id, b.title AS brand FROM ai_llm_mentions_search_mentions__items__brand_entities b WHERE b.title IS NOT NULL
)
SELECT n.brand, a.platform, a.model_name, a.location_code, a.language_code,
       CAST(count(DISTINCT a._id) AS BIGINT) AS mentions,
       CAST(count(DISTINCT s.url) AS BIGINT) AS cited_urls,
       CAST(count(DISTINCT s.domain) AS BIGINT) AS cited_domains_count,
       string_agg(DISTINCT s.domain, ', ' ORDER BY s.domain) AS cited_domains,
       max(a.loaded_at) AS loaded_at
FROM named n JOIN latest a ON a._id = n.answer_id
LEFT JOIN ai_llm_mentions_search_mentions__items__sources s ON s._parent_id = a._id
GROUP BY n.brand, a.platform, a.model_name, a.location_code, a.language_code`,
  },
];
