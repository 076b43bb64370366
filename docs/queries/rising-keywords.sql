-- Keywords whose searches grew most: the last three months known against the three before them.
-- View: v_keyword_trends.
WITH bounds AS (SELECT max(month) AS last_month FROM v_keyword_trends),
windows AS (
  SELECT v.keyword, v.location_code, v.language_code,
         sum(v.search_volume) FILTER (WHERE v.month > b.last_month - INTERVAL '3 month') AS recent,
         sum(v.search_volume) FILTER (WHERE v.month <= b.last_month - INTERVAL '3 month' AND v.month > b.last_month - INTERVAL '6 month') AS before
  FROM v_keyword_trends v, bounds b
  GROUP BY v.keyword, v.location_code, v.language_code
)
SELECT keyword, location_code, language_code, recent, before,
       round(100.0 * (recent - before) / nullif(before, 0), 1) AS growth_pct
FROM windows
WHERE recent IS NOT NULL AND before IS NOT NULL
ORDER BY growth_pct DESC NULLS LAST, recent DESC
LIMIT 20;
