/** Views over the Backlinks tables (declared like the others in src/publish/views.ts). */
import type { ViewDef } from '../../publish/views.js';

const col = (name: string, description: string) => ({ name, description });

export const BACKLINKS_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_backlinks_referring_domain_changes',
    question: 'Which referring domains did a target gain and lose since the previous run?',
    grain: 'one row per target and referring domain that appears in only one of its last two collections.',
    notes: 'From `backlinks_referring_domains__items` joined to `backlinks_referring_domains` (the `target`). A target\'s collections are ordered by when they loaded; `new` is a domain of the latest one missing from the one before, `lost` the other way round. Targets collected once have no rows.',
    needs: ['backlinks_referring_domains', 'backlinks_referring_domains__items'],
    columns: [
      col('target', 'The domain whose referring domains were collected.'),
      col('referring_domain', 'The referring domain.'),
      col('change', '`new` (in the latest collection only) or `lost` (in the previous one only).'),
      col('rank', 'Rank of the referring domain in the collection it appears in.'),
      col('backlinks', 'Backlinks from it to the target, in that collection.'),
      col('run_id', 'Run of the latest collection.'),
      col('previous_run_id', 'Run of the collection before it.'),
    ],
    select: `
WITH rows AS (
  SELECT r.target, i.domain, i.rank, i.backlinks, i._run_id AS run_id, i._loaded_at AS loaded_at
  FROM backlinks_referring_domains__items i JOIN backlinks_referring_domains r ON r._id = i._parent_id
  WHERE r.target IS NOT NULL AND i.domain IS NOT NULL
), runs AS (
  SELECT target, run_id, dense_rank() OVER (PARTITION BY target ORDER BY max(loaded_at) DESC, run_id DESC) AS k FROM rows GROUP BY target, run_id
), cur AS (
  SELECT x.* FROM rows x JOIN runs u ON u.target = x.target AND u.run_id = x.run_id AND u.k = 1
), prev AS (
  SELECT x.* FROM rows x JOIN runs u ON u.target = x.target AND u.run_id = x.run_id AND u.k = 2
), pair AS (
  SELECT c.target, c.run_id, p.run_id AS previous_run_id FROM (SELECT DISTINCT target, run_id FROM cur) c JOIN (SELECT DISTINCT target, run_id FROM prev) p ON p.target = c.target
)
SELECT coalesce(c.target, p.target) AS target, coalesce(c.domain, p.domain) AS referring_domain,
       CASE WHEN p.domain IS NULL THEN 'new' ELSE 'lost' END AS change,
       CAST(coalesce(c.rank, p.rank) AS BIGINT) AS rank, CAST(coalesce(c.backlinks, p.backlinks) AS BIGINT) AS backlinks,
       pr.run_id, pr.previous_run_id
FROM cur c FULL JOIN prev p ON p.target = c.target AND p.domain = c.domain
JOIN pair pr ON pr.target = coalesce(c.target, p.target)
WHERE c.domain IS NULL OR p.domain IS NULL`,
  },
];
