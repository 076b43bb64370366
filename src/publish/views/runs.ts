/** Views over a run's own footprint (rows per table, calls per minute) that the run report draws beside v_runs. */
import { ALWAYS_IN_USE } from '../../normalize/catalog.js';
import type { TableDef } from '../../catalog/table.js';
import { q } from '../../load/ddl.js';
import { col, type ViewDef } from '../../catalog/view.js';


export const RUN_VIEWS: readonly ViewDef[] = [
  {
    name: 'v_run_rows',
    question: 'How many rows did each run leave in each table?',
    grain: 'one row per run and table holding rows of it.',
    notes: 'Counted on `_run_id` of every catalog table in use (nested tables included), the generated families\' (Labs, Backlinks, ...) among them. A row re-collected by a later run belongs to that run, so an earlier run\'s counts can shrink.',
    columns: [
      col('run_id', 'Run id (or `ingest-...` for ingested files).'),
      col('table_name', 'Catalog table.'),
      col('parent_table', 'Top-level table the table nests under (itself for a top-level table).'),
      col('rows', 'Rows of the run in the table.'),
    ],
    // Over the tables the warehouse holds when the view is created: a generated family's tables (labs_*,
    // backlinks_*) come into use with the pipeline or the warehouse that has them, and their rows count too.
    select: runRows(ALWAYS_IN_USE),
    selectOver: runRows,
  },
  {
    name: 'v_run_calls',
    question: 'How many calls a minute did a run make, as far as its ledger shows them?',
    grain: 'one row per run and UTC minute with a recorded call.',
    notes: 'From the ledger table `_tasks`: a POST of a batch of tasks counts once (its `batch_id`, at `posting_at`); each collected task counts one call per result page (at `collected_at`; a live call is its own collection). `tasks_ready` polls and retries are not in the ledger, so the figure is a floor of what the rate limiter counted.',
    columns: [
      col('run_id', 'Run id.'),
      col('minute', 'UTC minute (TIMESTAMP, seconds zeroed).'),
      col('posts', 'Batches posted that minute.'),
      col('result_calls', 'Result pages fetched (task_get, live calls and their pages) that minute.'),
      col('calls', 'posts + result_calls.'),
    ],
    select: `
WITH posts AS (
  SELECT run_id, date_trunc('minute', min(posting_at)) AS minute, batch_id
  FROM _tasks WHERE batch_id IS NOT NULL AND posting_at IS NOT NULL GROUP BY run_id, batch_id
), calls AS (
  SELECT run_id, minute, 1 AS posts, 0 AS result_calls FROM posts
  UNION ALL
  SELECT run_id, date_trunc('minute', collected_at), 0, greatest(pages, 1) FROM _tasks WHERE collected_at IS NOT NULL
)
SELECT run_id, minute, sum(posts)::BIGINT AS posts, sum(result_calls)::BIGINT AS result_calls, sum(posts + result_calls)::BIGINT AS calls
FROM calls GROUP BY run_id, minute`,
  },
];

function runRows(tables: readonly TableDef[]): string {
  return tables.map((t) => `SELECT _run_id AS run_id, '${t.name}' AS table_name, '${t.name.split('__')[0]}' AS parent_table, count(*) AS rows FROM ${q(t.name)} WHERE _run_id IS NOT NULL GROUP BY _run_id`).join('\nUNION ALL\n');
}
