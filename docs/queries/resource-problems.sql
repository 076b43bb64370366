-- Sites ranked by the share of their resources with a problem, latest snapshot, by resource type.
-- View: v_resource_problems (one row per snapshot day, site and resource type).
SELECT site, resource_type, resources, resources_with_problems,
       round(100.0 * resources_with_problems / resources, 1) AS problem_pct,
       broken, client_errors + server_errors AS http_errors, slow, uncompressed, not_minified, errors, warnings,
       round(total_size_bytes / 1048576.0, 2) AS total_mib
FROM v_resource_problems
WHERE snapshot_date = (SELECT max(snapshot_date) FROM v_resource_problems)
ORDER BY problem_pct DESC, resources DESC, site, resource_type;
