-- Events found per keyword and location (latest collection of each), soonest first, with their ticket links.
-- Raw tables joined through _parent_id: events_serp (one row per result) -> events_serp__items (the events)
-- -> events_serp__items__information_and_tickets (their links).
WITH latest AS (
  SELECT * FROM (
    SELECT *, max(_loaded_at) OVER (PARTITION BY keyword, location_code) AS latest_load FROM events_serp
  ) e
  WHERE _loaded_at = latest_load
)
SELECT r.keyword, r.location_code, i.title, i.start_datetime, i.venue_name,
       count(t._id) AS links, string_agg(DISTINCT t.domain, ', ') AS link_domains
FROM latest r
JOIN events_serp__items i ON i._parent_id = r._id
LEFT JOIN events_serp__items__information_and_tickets t ON t._parent_id = i._id
GROUP BY r.keyword, r.location_code, i._id, i.title, i.start_datetime, i.venue_name
ORDER BY r.keyword, r.location_code, i.start_datetime NULLS LAST, i.title
LIMIT 50;
