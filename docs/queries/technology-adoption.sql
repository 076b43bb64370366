-- Technology categories by the share of domains using them, latest snapshot, with their three most used technologies.
-- View: v_technology_adoption (one row per snapshot day, group, category and technology).
WITH latest AS (
  SELECT * FROM v_technology_adoption WHERE snapshot_date = (SELECT max(snapshot_date) FROM v_technology_adoption)
)
SELECT technology_group, category,
       any_value(category_domains) AS domains,
       round(100 * any_value(category_share), 1) AS pct_of_domains,
       string_agg(technology || ' (' || domains || ')', ', ' ORDER BY domains DESC, technology) FILTER (WHERE rank <= 3) AS top_technologies
FROM (SELECT *, row_number() OVER (PARTITION BY technology_group, category ORDER BY domains DESC, technology) AS rank FROM latest) AS ranked
GROUP BY technology_group, category
ORDER BY domains DESC, technology_group, category;
