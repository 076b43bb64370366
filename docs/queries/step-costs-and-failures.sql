-- Where the money goes and where tasks fail: steps of the latest run, costliest first, with their errors if any.
-- Views: v_run_steps (one row per run and step) and v_failed_tasks (one row per failed task).
WITH last_run AS (SELECT run_id FROM v_runs ORDER BY run_date DESC, started_at DESC LIMIT 1),
errors AS (
  SELECT run_id, step, string_agg(DISTINCT error_code || ' ' || error_message, '; ') AS errors
  FROM v_failed_tasks GROUP BY run_id, step
)
SELECT s.step, s.endpoint_id, s.tasks, s.tasks_failed, s.pages, s.spent_usd, e.errors
FROM v_run_steps s JOIN last_run USING (run_id)
LEFT JOIN errors e ON e.run_id = s.run_id AND e.step = s.step
ORDER BY s.spent_usd DESC, s.tasks_failed DESC, s.step_index;
