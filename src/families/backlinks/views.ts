/** Views over the Backlinks tables (declared like the others in src/publish/views.ts), and the report's charts of them. */
import { col, type ViewDef } from '../../catalog/view.js';
import type { FamilyReportDef } from '../../catalog/family.js';
import { snapshotDate, SNAPSHOT_DATE } from '../../catalog/snapshot-date.js';


export const BACKLINKS_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_backlinks_summary_history',
    question: 'How do a target\'s backlinks, referring domains and rank move day by day?',
    grain: 'one row per snapshot day and target: the day\'s latest summary collection.',
    notes: 'From `backlinks_summary`. When a target was collected more than once on a day, the latest collection counts; the changes are against the target\'s previous collected day (null on its first).',
    needs: ['backlinks_summary'],
    columns: [
      SNAPSHOT_DATE,
      col('target', 'The domain, subdomain or page summarised.'),
      col('rank', 'The target\'s rank in the backlink index.'),
      col('backlinks', 'Backlinks pointing to the target.'),
      col('backlinks_change', 'Backlinks gained (positive) or lost since the previous collected day.'),
      col('referring_domains', 'Domains linking to the target.'),
      col('referring_domains_change', 'Referring domains gained (positive) or lost since the previous collected day.'),
      col('referring_main_domains', 'Main (registrable) domains linking to the target.'),
      col('broken_backlinks', 'Backlinks pointing to broken pages of the target.'),
      col('backlinks_spam_score', 'Average spam score of the backlinks.'),
      col('run_id', 'Run that collected it.'),
    ],
    select: `
WITH collections AS (
  SELECT s._id, s.target, s.rank, s.backlinks, s.referring_domains, s.referring_main_domains, s.broken_backlinks, s.backlinks_spam_score,
         s._run_id AS run_id, s._loaded_at AS loaded_at, ${snapshotDate('s')} AS snapshot_date
  FROM backlinks_summary s LEFT JOIN _runs r ON r.run_id = s._run_id
  WHERE s.target IS NOT NULL
), latest AS (
  SELECT * FROM (
    SELECT c.*, row_number() OVER (PARTITION BY c.snapshot_date, c.target ORDER BY c.loaded_at DESC, c._id DESC) AS rn FROM collections c
  ) x WHERE rn = 1
)
SELECT snapshot_date, target, CAST(rank AS BIGINT) AS rank,
       CAST(backlinks AS BIGINT) AS backlinks, CAST(backlinks - lag(backlinks) OVER w AS BIGINT) AS backlinks_change,
       CAST(referring_domains AS BIGINT) AS referring_domains, CAST(referring_domains - lag(referring_domains) OVER w AS BIGINT) AS referring_domains_change,
       CAST(referring_main_domains AS BIGINT) AS referring_main_domains, CAST(broken_backlinks AS BIGINT) AS broken_backlinks,
       CAST(backlinks_spam_score AS FLOAT8) AS backlinks_spam_score, run_id
FROM latest
WINDOW w AS (PARTITION BY target ORDER BY snapshot_date)`,
  },
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

/** Lines of the summary history over the report's days, one per target the run collected. */
const perTarget = (value: string) => `
SELECT CAST(snapshot_date AS VARCHAR) AS date, NULL AS panel, target AS series, ${value} AS value
FROM v_backlinks_summary_history
WHERE snapshot_date BETWEEN $1::DATE AND $2::DATE AND target IN (SELECT target FROM v_backlinks_summary_history WHERE run_id = $3)
ORDER BY series, date`;

export const BACKLINKS_REPORT: FamilyReportDef = {
  title: 'Backlinks',
  intro: 'The targets this run summarised, per day: their backlinks and referring domains (v_backlinks_summary_history).',
  charts: [
    { id: 'backlinks', title: 'Backlinks', yName: 'backlinks', views: ['v_backlinks_summary_history'], sql: perTarget('backlinks') },
    { id: 'referring-domains', title: 'Referring domains', yName: 'domains', views: ['v_backlinks_summary_history'], sql: perTarget('referring_domains') },
  ],
};
