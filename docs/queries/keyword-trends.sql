-- Monthly search volume of the ten biggest keywords (by their latest month), over the last twelve months known.
-- View: v_keyword_trends (one row per keyword, location, language and month).
WITH latest AS (
  SELECT keyword, location_code, language_code, (array_agg(search_volume ORDER BY month DESC))[1] AS latest_volume
  FROM v_keyword_trends
  GROUP BY keyword, location_code, language_code
), top AS (
  SELECT * FROM latest ORDER BY latest_volume DESC NULLS LAST, keyword LIMIT 10
)
SELECT t.keyword, t.location_code, t.language_code, v.month, v.search_volume, v.change_pct
FROM v_keyword_trends v
JOIN top t ON t.keyword = v.keyword AND t.location_code IS NOT DISTINCT FROM v.location_code AND t.language_code IS NOT DISTINCT FROM v.language_code
WHERE v.month > (SELECT max(month) FROM v_keyword_trends) - INTERVAL '12 month'
ORDER BY t.latest_volume DESC, t.keyword, v.month;
