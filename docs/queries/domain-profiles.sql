-- Domains found by the HTML-terms search (latest profile of each), best ranked first, with how many technologies
-- and contacts they show. Tables: domain_technologies__items and its child tables.
WITH latest AS (
  SELECT DISTINCT ON (domain) * FROM domain_technologies__items
  ORDER BY domain, _loaded_at DESC, _id DESC
)
SELECT d.domain, d.domain_rank, d.country_iso_code,
       (SELECT count(*) FROM domain_technologies__items__technologies t WHERE t._parent_id = d._id) AS technologies,
       (SELECT count(*) FROM domain_technologies__items__emails e WHERE e._parent_id = d._id) AS emails,
       (SELECT count(*) FROM domain_technologies__items__phone_numbers p WHERE p._parent_id = d._id) AS phone_numbers
FROM latest d
ORDER BY d.domain_rank DESC NULLS LAST, d.domain
LIMIT 25;
