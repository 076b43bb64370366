-- Spend, budget use and failed tasks of the latest runs.
-- Views: v_runs (one row per run); the failures themselves are in v_failed_tasks.
SELECT run_id, status, run_date, duration_seconds, tasks, tasks_loaded, tasks_failed, tasks_unfinished,
       spent_usd, budget_usd, budget_used_pct
FROM v_runs
ORDER BY run_date DESC, run_id
LIMIT 30;
