/** Views over the Labs tables (declared like the others in src/publish/views.ts). */
import type { ViewDef } from '../../publish/views.js';

const col = (name: string, description: string) => ({ name, description });

export const LABS_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_labs_striking_distance',
    question: 'Which keywords does a domain rank for just off the top (organic positions 4 to 20), and how much are they searched?',
    grain: 'one row per domain, keyword, location and language: its latest ranked_keywords collection.',
    notes: 'From `labs_ranked_keywords__items` joined to `labs_ranked_keywords` (the `target` asked for) and to `labs_ranked_keywords__items__organic` (the organic item\'s own fields, same `_id`). Organic items only; the position is `rank_group` (among organic results). When a keyword was collected more than once, the latest collection counts.',
    needs: ['labs_ranked_keywords', 'labs_ranked_keywords__items', 'labs_ranked_keywords__items__organic'],
    columns: [
      col('domain', 'The domain (or page) the ranked keywords were asked for (`target`).'),
      col('keyword', 'Keyword.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('position', 'Organic position (rank among organic results), 4 to 20.'),
      col('url', 'The ranking URL.'),
      col('search_volume', 'Monthly searches of the keyword.'),
      col('cpc', 'Average cost per click, USD.'),
      col('loaded_at', 'When the collection was loaded.'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `
WITH ranked AS (
  SELECT r.target AS domain, i.keyword_data__keyword AS keyword, r.location_code, r.language_code,
         i.ranked_serp_element__serp_item__rank_group AS position, o.url AS url,
         i.keyword_data__keyword_info__search_volume AS search_volume, i.keyword_data__keyword_info__cpc AS cpc,
         i._loaded_at AS loaded_at, i._run_id AS run_id,
         row_number() OVER (PARTITION BY r.target, i.keyword_data__keyword, r.location_code, r.language_code ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM labs_ranked_keywords__items i JOIN labs_ranked_keywords r ON r._id = i._parent_id
  JOIN labs_ranked_keywords__items__organic o ON o._id = i._id
  WHERE i.item_type = 'organic' AND i.keyword_data__keyword IS NOT NULL
)
SELECT domain, keyword, location_code, language_code, CAST(position AS INTEGER) AS position, url, CAST(search_volume AS BIGINT) AS search_volume, cpc, loaded_at, run_id
FROM ranked WHERE rn = 1 AND position BETWEEN 4 AND 20`,
  },
];
