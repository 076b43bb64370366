/**
 * Curated views: the questions readers ask, answered once in SQL over the catalog tables and the ledger, so a
 * notebook or a BI tool does not have to rediscover the joins (`_parent_id`), the de-duplication across runs and
 * the snapshot day of a row. They are created in the published warehouse only (the job's working file has none),
 * documented from these declarations in docs/analysis.md (renderViewsDoc) and as COMMENTs inside the warehouse.
 *
 * Every view works on an empty warehouse: the preamble creates any missing catalog or ledger table first.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { TABLE_BY_NAME } from '../normalize/catalog.js';
import { allColumns, type TableDef } from '../catalog/table.js';
import { LEDGER_DDL } from '../ledger/schema.js';
import { createTableSql, lit, q, tablesWithRows } from '../load/ddl.js';
import { FAMILIES } from '../families/index.js';
import { col, type ViewDef } from '../catalog/view.js';
import { currentEndpointSql } from '../api/catalog.js';
import { RUN_VIEWS } from './views/runs.js';




/** USD sums in whole micro-dollars first, as the ledger does, so sums of many small prices do not drift. */
const usd = (expr: string) => `coalesce(sum(round(${expr} * 1000000)), 0) / 1000000.0`;

export const VIEWS: readonly ViewDef[] = [
  {
    name: 'v_runs',
    question: 'What did each run do, spend and leave failed?',
    grain: 'one row per run (pipeline and day).',
    notes: 'From the ledger tables `_runs`, `_attempts` and `_tasks`. Spend is what the service reported per task (`_tasks.cost`), summed in micro-dollars as `seo-etl status` does.',
    columns: [
      col('run_id', 'Run id: `<pipeline>-<run date>`.'),
      col('pipeline', 'Pipeline name.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('status', 'running, completed, stopped_budget or aborted.'),
      col('attempts', 'Times the run was started (a resume adds one).'),
      col('started_at', 'When the first attempt started (UTC).'),
      col('finished_at', 'When the run finished (UTC); null while running.'),
      col('duration_seconds', 'How long its attempts ran, summed, seconds (the first attempt and each resume, not the wait between them; an attempt that was killed has no end and counts nothing).'),
      col('tasks', 'Tasks planned.'),
      col('tasks_loaded', 'Tasks whose results are loaded.'),
      col('tasks_failed', 'Tasks that failed (see `v_failed_tasks`).'),
      col('tasks_unfinished', 'Tasks neither loaded nor failed (a resume collects them).'),
      col('spent_usd', 'Cost reported by the service, USD.'),
      col('budget_usd', 'Budget of the pipeline, USD.'),
      col('budget_used_pct', 'spent_usd / budget_usd, percent (one decimal).'),
      col('note', 'Why the run stopped early, if it did.'),
    ],
    select: `
SELECT r.run_id, r.pipeline, try_cast(r.run_date AS DATE) AS run_date, r.status, r.attempts, r.started_at, r.finished_at,
       coalesce((SELECT round(sum(epoch(a.finished_at - a.started_at)), 1) FROM _attempts a WHERE a.run_id = r.run_id AND a.finished_at IS NOT NULL),
                round(epoch(r.finished_at - r.started_at), 1)) AS duration_seconds,
       count(t.task_key) AS tasks,
       count(t.task_key) FILTER (WHERE t.state = 'loaded') AS tasks_loaded,
       count(t.task_key) FILTER (WHERE t.state = 'failed') AS tasks_failed,
       count(t.task_key) FILTER (WHERE t.state NOT IN ('loaded', 'failed')) AS tasks_unfinished,
       ${usd('t.cost')} AS spent_usd,
       r.budget_usd,
       round(100.0 * (${usd('t.cost')}) / nullif(r.budget_usd, 0), 1) AS budget_used_pct,
       r.note
FROM _runs r LEFT JOIN _tasks t ON t.run_id = r.run_id
GROUP BY r.run_id, r.pipeline, r.run_date, r.status, r.attempts, r.started_at, r.finished_at, r.budget_usd, r.note`,
  },
  {
    name: 'v_run_steps',
    question: 'Which steps of a run cost what, and where did tasks fail?',
    grain: 'one row per run and pipeline step.',
    notes: 'From the ledger table `_tasks`.',
    columns: [
      col('run_id', 'Run id.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('step_index', 'Position of the step in the pipeline (0-based).'),
      col('step', 'Step name.'),
      col('endpoint_id', 'Catalog endpoint the step calls.'),
      col('tasks', 'Tasks planned.'),
      col('tasks_loaded', 'Tasks loaded.'),
      col('tasks_failed', 'Tasks failed.'),
      col('tasks_unfinished', 'Tasks neither loaded nor failed.'),
      col('pages', 'Result pages fetched (paged endpoints).'),
      col('spent_usd', 'Cost reported by the service, USD.'),
    ],
    select: `
SELECT t.run_id, try_cast(any_value(r.run_date) AS DATE) AS run_date, t.step_index, t.step, t.endpoint_id,
       count(*) AS tasks,
       count(*) FILTER (WHERE t.state = 'loaded') AS tasks_loaded,
       count(*) FILTER (WHERE t.state = 'failed') AS tasks_failed,
       count(*) FILTER (WHERE t.state NOT IN ('loaded', 'failed')) AS tasks_unfinished,
       sum(t.pages) AS pages,
       ${usd('t.cost')} AS spent_usd
FROM _tasks t LEFT JOIN _runs r ON r.run_id = t.run_id
GROUP BY t.run_id, t.step_index, t.step, t.endpoint_id`,
  },
  {
    name: 'v_failed_tasks',
    question: 'Which tasks failed, with what error, and what was asked?',
    grain: 'one row per failed task.',
    notes: 'From the ledger table `_tasks` (state `failed`). A failed task is not posted again by a resume; its error code and message are the service\'s (or the local validator\'s).',
    columns: [
      col('run_id', 'Run id.'),
      col('run_date', 'Day the run is for (DATE).'),
      col('pipeline', 'Pipeline name.'),
      col('step', 'Step name.'),
      col('endpoint_id', 'Catalog endpoint.'),
      col('task_key', 'The task\'s key in the ledger (stable across attempts).'),
      col('service_id', 'Task id at the service; null when it was refused at posting.'),
      col('error_code', 'Status code of the failure.'),
      col('error_message', 'Status message of the failure.'),
      col('attempts', 'Posting attempts.'),
      col('failed_at', 'When the failure was recorded (UTC).'),
      col('cost_usd', 'Cost reported by the service, USD (usually 0).'),
      col('params', 'The request body that was sent (JSON text).'),
    ],
    select: `
SELECT t.run_id, try_cast(r.run_date AS DATE) AS run_date, r.pipeline, t.step, t.endpoint_id, t.task_key, t.service_id,
       t.error_code, t.error_message, t.attempts, t.failed_at, coalesce(t.cost, 0) AS cost_usd, t.params
FROM _tasks t LEFT JOIN _runs r ON r.run_id = t.run_id
WHERE t.state = 'failed'`,
  },
  {
    name: 'v_task_costs',
    question: 'What was each collected task billed, beside what it answered?',
    grain: 'one row per collected task (a row of `tasks`).',
    notes: 'From `tasks` joined to the ledger table `_tasks` by the service\'s task id. A task is billed when it is posted (or, for a live endpoint, when it is called): that price is in the ledger. A SERP task\'s `task_get` answer reports what it was billed in the end (pages crawled, options used, the rest refunded) and the ledger takes that; other families\' `task_get` answers report the free GET\'s 0. Sum `billed_cost_usd` for what a set of tasks cost.',
    columns: [
      col('_task_id', 'Task id at the service (joins every result table\'s `_task_id`).'),
      col('endpoint_id', 'Catalog endpoint that returned the answer (for example `serp.google.organic.task_get.advanced`); a row an older version stored under an old id shows the id it has now (docs/architecture.md, "Endpoint ids").'),
      col('keyword', 'Keyword of the task, if any.'),
      col('target', 'Target of the task, if any.'),
      col('location_code', 'Location code of the task, if any.'),
      col('language_code', 'Language code of the task, if any.'),
      col('status_code', 'Task status code; 40000 and above is an error.'),
      col('billed_cost_usd', 'What the service billed for the task, USD: the cost it reported when the task was posted (live endpoints: when called), from the ledger. Null for a task loaded from files (`ingest`) without a ledger row.'),
      col('answer_cost_usd', 'What the service reported in this answer, USD (`tasks.cost`): a SERP `task_get` answer the task\'s final cost (the billed one), other `task_get` answers the free GET\'s (0), a live endpoint the call\'s own.'),
      col('step', 'Pipeline step that posted the task.'),
      col('task_key', 'The task\'s key in the ledger (stable across attempts).'),
      col('run_id', 'Run that collected the task.'),
      col('collected_at', 'When the answer was loaded (UTC).'),
    ],
    select: `
SELECT t._task_id, ${currentEndpointSql('t.endpoint_id')} AS endpoint_id, t.keyword, t.target, t.location_code, t.language_code, t.status_code,
       l.cost AS billed_cost_usd, t.cost AS answer_cost_usd, l.step, l.task_key, t._run_id AS run_id, t._loaded_at AS collected_at
FROM tasks t LEFT JOIN _tasks l ON l.service_id = t._task_id`,
  },
  ...RUN_VIEWS,
  ...FAMILIES.flatMap((f) => f.views ?? []),
];

const columnComment = (table: string, c: { name: string; description: string }) => `COMMENT ON COLUMN ${q(table)}.${q(c.name)} IS ${lit(c.description)}`;

/** CREATE VIEW and its COMMENTs. */
/** A view's statements, over the catalog tables the warehouse holds (`tables`: a view counting every table reads them). */
export function viewStatements(v: ViewDef, tables: readonly TableDef[]): string[] {
  return [
    `CREATE OR REPLACE VIEW ${q(v.name)} AS ${(v.selectOver?.(tables) ?? v.select).trim()}`,
    `COMMENT ON VIEW ${q(v.name)} IS ${lit(`${v.question} One row per ${v.grain.replace(/^one row per /, '')} See docs/analysis.md.`)}`,
    ...v.columns.map((c) => columnComment(v.name, c)),
  ];
}

/** The data dictionary inside the warehouse: the descriptions of `tables` and their columns, as COMMENTs. */
export function catalogComments(tables: readonly TableDef[]): string[] {
  return [...tables.flatMap((t) => [tableComment(t), ...columnComments(t)]), ...ledgerComments()];
}

const tableComment = (t: TableDef) => `COMMENT ON TABLE ${q(t.name)} IS ${lit(t.description)}`;

/** A catalog table's column descriptions, as COMMENTs. */
function columnComments(t: TableDef): string[] {
  return allColumns(t).map((c) => columnComment(t.name, c));
}

function ledgerComments(): string[] {
  const out: string[] = [];
  out.push(`COMMENT ON TABLE "_runs" IS ${lit('Ledger: one row per run (pipeline and day): status, attempts, budget. Summarised by v_runs.')}`);
  out.push(`COMMENT ON TABLE "_attempts" IS ${lit('Ledger: one row per attempt of a run (the first and each resume): started, finished (null when killed), status. v_runs sums them.')}`);
  out.push(`COMMENT ON TABLE "_targets" IS ${lit('Ledger: the domains each run tracks (pipeline targets:), one row per step tied to a target and domain. The SERP tracking views read it.')}`);
  for (const [c, d] of [['run_id', 'Run.'], ['step', 'Pipeline step tied to the target.'], ['target', 'Target name (targets[].name).'], ['domain', 'A domain the target tracks (its subdomains count for it).'], ['updated_at', 'When the run recorded it (UTC).']]) {
    out.push(`COMMENT ON COLUMN "_targets".${q(c)} IS ${lit(d)}`);
  }
  out.push(`COMMENT ON TABLE "_shared_tasks" IS ${lit('Ledger: a task a later step of the run asked for too, posted once by the first step (its _tasks.step); the SERP tracking views count its results for this step\'s targets as well.')}`);
  for (const [c, d] of [['run_id', 'Run.'], ['task_key', 'The task\'s key in the ledger (_tasks.task_key).'], ['step', 'The later step that asked for the same task.'], ['updated_at', 'When the run recorded it (UTC).']]) {
    out.push(`COMMENT ON COLUMN "_shared_tasks".${q(c)} IS ${lit(d)}`);
  }
  out.push(`COMMENT ON TABLE "_tasks" IS ${lit('Ledger: one row per task of a run: state, price, the cost the service billed (reported when the task was posted; for SERP tasks the bill their result reports), errors, timestamps of each state. Summarised by v_run_steps and v_failed_tasks; v_task_costs puts the billed cost beside each collected task.')}`);
  return out;
}

/**
 * Column descriptions for the tables of the published file (`conn`'s default catalog) that hold rows and lack
 * them, as one SQL text (empty when none): a column's COMMENT is a statement of its own, and the two thousand of
 * a file's hundred-odd tables, most of them empty, were most of a first publish's time. Every table carries its
 * own description from the start (curatedViews).
 */
export async function missingColumnComments(conn: DuckDBConnection): Promise<string> {
  const filled = await tablesWithRows(conn);
  const r = await conn.runAndReadAll(`SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND comment IS NULL`);
  const missing = new Map<string, Set<string>>();
  for (const [t, c] of r.getRows().map((x) => x.map(String))) if (filled.has(t)) missing.set(t, (missing.get(t) ?? new Set()).add(c));
  // Only what the catalog declares: a column it no longer does stays in the file, undescribed.
  return [...missing.keys()].sort().flatMap((name) => {
    const t = TABLE_BY_NAME.get(name);
    return t ? allColumns(t).filter((c) => missing.get(name)!.has(c.name)).map((c) => columnComment(name, c)) : [];
  }).join(';\n');
}

/** The catalog tables given (those the warehouse holds, ALWAYS_IN_USE among them) and the ledger's, created where missing, as one SQL text. */
export function missingTablesSql(tables: readonly TableDef[]): string {
  return [...tables.map((t) => createTableSql(t)), ...LEDGER_DDL].join(';\n');
}

/**
 * Statements run in the published copy, in one transaction: missing tables first (so every view compiles, even on
 * a warehouse with no rows or no ledger), then each view with its comments, then the tables' comments (their
 * columns' come with their rows: missingColumnComments, which the publish runs after these). Each entry is a
 * multi-statement SQL text: one call per view instead of one per comment halves the publishing time.
 */
export function curatedViews(tables: readonly TableDef[]): string[] {
  return [
    'BEGIN TRANSACTION',
    missingTablesSql(tables),
    ...VIEWS.map((v) => viewStatements(v, tables).join(';\n')),
    [...tables.map(tableComment), ...ledgerComments()].join(';\n'),
    'COMMIT',
  ];
}
