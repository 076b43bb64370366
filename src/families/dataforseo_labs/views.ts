/** Views over the Labs tables (declared like the others in src/publish/views.ts). */
import type { ViewDef } from '../../publish/views.js';

const col = (name: string, description: string) => ({ name, description });

/**
 * Each domain's (`target`'s) latest ranked_keywords collection of a keyword, location and language, organic items
 * only: the CTE `latest` both views read.
 */
const LATEST_RANKED = `
WITH ranked AS (
  SELECT r.target AS domain, i.keyword_data__keyword AS keyword, r.location_code, r.language_code,
         i.ranked_serp_element__serp_item__rank_group AS position, o.url AS url,
         i.keyword_data__keyword_info__search_volume AS search_volume, i.keyword_data__keyword_info__cpc AS cpc,
         i._loaded_at AS loaded_at, i._run_id AS run_id,
         row_number() OVER (PARTITION BY r.target, i.keyword_data__keyword, r.location_code, r.language_code ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM labs_ranked_keywords__items i JOIN labs_ranked_keywords r ON r._id = i._parent_id
  JOIN labs_ranked_keywords__items__organic o ON o._id = i._id
  WHERE i.item_type = 'organic' AND i.keyword_data__keyword IS NOT NULL
), latest AS (
  SELECT * FROM ranked WHERE rn = 1
)`;

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
    select: `${LATEST_RANKED}
SELECT domain, keyword, location_code, language_code, CAST(position AS INTEGER) AS position, url, CAST(search_volume AS BIGINT) AS search_volume, cpc, loaded_at, run_id
FROM latest WHERE position BETWEEN 4 AND 20`,
  },
  {
    name: 'v_labs_keyword_overlap',
    question: 'Which keywords do two or more of the domains I collected rank for, where does each rank, and how much are they searched?',
    grain: 'one row per shared keyword, location, language and domain ranking for it: its latest ranked_keywords collection.',
    notes: 'From `labs_ranked_keywords__items` joined to `labs_ranked_keywords` (each `target` collected is a domain) and to `labs_ranked_keywords__items__organic` (the organic item\'s own fields, same `_id`). Organic items only; the position is `rank_group` (among organic results). A keyword is shared when at least two domains rank for it in the same location and language; each domain\'s latest collection of the keyword counts. Collect `dataforseo_labs.google.ranked_keywords.live` once per competitor (`for_each: target:`).',
    needs: ['labs_ranked_keywords', 'labs_ranked_keywords__items', 'labs_ranked_keywords__items__organic'],
    columns: [
      col('keyword', 'Keyword two or more domains rank for.'),
      col('location_code', 'Location code.'),
      col('language_code', 'Language code.'),
      col('domains_ranking', 'How many of the collected domains rank for it (2 or more).'),
      col('domain', 'A domain that ranks for it (`target`).'),
      col('position', 'Its organic position (rank among organic results).'),
      col('url', 'Its ranking URL.'),
      col('search_volume', 'Monthly searches of the keyword.'),
      col('loaded_at', 'When that domain\'s collection was loaded.'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `${LATEST_RANKED}, shared AS (
  SELECT keyword, location_code, language_code, count(*) AS domains_ranking FROM latest WHERE domain IS NOT NULL GROUP BY keyword, location_code, language_code HAVING count(*) >= 2
)
SELECT l.keyword, l.location_code, l.language_code, CAST(s.domains_ranking AS BIGINT) AS domains_ranking, l.domain,
       CAST(l.position AS INTEGER) AS position, l.url, CAST(l.search_volume AS BIGINT) AS search_volume, l.loaded_at, l.run_id
FROM latest l JOIN shared s ON s.keyword = l.keyword AND s.location_code IS NOT DISTINCT FROM l.location_code AND s.language_code IS NOT DISTINCT FROM l.language_code
WHERE l.domain IS NOT NULL`,
  },
];
