/** Views over the domain technology tables. */
import { col, type ViewDef } from '../../catalog/view.js';
import { snapshotDate, SNAPSHOT_DATE } from '../../catalog/snapshot-date.js';


export const VIEWS: readonly ViewDef[] = [
  {
    name: 'v_technology_adoption',
    question: 'Which technologies, by group and category, do the domains we found use, and how widely?',
    grain: 'one row per snapshot day, technology group, category and technology.',
    notes: 'From `domain_technologies__items__technologies` joined to `domain_technologies__items`. Shares are of the distinct domains found that day (with or without technologies); a domain found twice that day counts once.',
    columns: [
      SNAPSHOT_DATE,
      col('technology_group', 'Technology group (servers, analytics, ...).'),
      col('category', 'Technology category within the group.'),
      col('technology', 'Technology name.'),
      col('domains', 'Distinct domains using the technology.'),
      col('share_of_domains', 'domains / domains_seen, 0..1.'),
      col('category_domains', 'Distinct domains using any technology of the category.'),
      col('category_share', 'category_domains / domains_seen, 0..1.'),
      col('domains_seen', 'Distinct domains found that day.'),
    ],
    select: `
WITH found AS (
  SELECT ${snapshotDate('d')} AS snapshot_date, d._id, d.domain
  FROM domain_technologies__items d LEFT JOIN _runs r ON r.run_id = d._run_id
  WHERE d.domain IS NOT NULL
), seen AS (
  SELECT snapshot_date, count(DISTINCT domain) AS domains_seen FROM found GROUP BY snapshot_date
), uses AS (
  SELECT f.snapshot_date, f.domain, t."group" AS technology_group, t.category, t.technology
  FROM domain_technologies__items__technologies t JOIN found f ON f._id = t._parent_id
), per_category AS (
  SELECT snapshot_date, technology_group, category, count(DISTINCT domain) AS category_domains
  FROM uses GROUP BY snapshot_date, technology_group, category
)
SELECT u.snapshot_date, u.technology_group, u.category, u.technology,
       count(DISTINCT u.domain) AS domains,
       count(DISTINCT u.domain) / CAST(any_value(s.domains_seen) AS FLOAT8) AS share_of_domains,
       any_value(c.category_domains) AS category_domains,
       any_value(c.category_domains) / CAST(any_value(s.domains_seen) AS FLOAT8) AS category_share,
       any_value(s.domains_seen) AS domains_seen
FROM uses u
JOIN seen s ON s.snapshot_date = u.snapshot_date
JOIN per_category c ON c.snapshot_date = u.snapshot_date AND c.technology_group IS NOT DISTINCT FROM u.technology_group AND c.category IS NOT DISTINCT FROM u.category
GROUP BY u.snapshot_date, u.technology_group, u.category, u.technology`,
  },
];
