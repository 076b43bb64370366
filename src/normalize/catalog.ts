/**
 * The table list: the core tables (tasks, ready lists, unknown results) and every family's, from the registry.
 * Everything else is derived from it: the JS extractor (extract.ts), the DDL and schema evolution
 * (src/load/ddl.ts), the Parquet export and the data dictionary docs/tables.md (docs.ts). What one table is:
 * src/catalog/table.ts.
 */
import type { ResultKind } from '../catalog/endpoint.js';
import { allColumns, type TableDef } from '../catalog/table.js';
import { c, ts, scalarChild } from '../catalog/declare.js';
import { FAMILIES } from '../families/index.js';

// ---- the tables ---------------------------------------------------------------------------------------------

/** The core tables and every hand-declared family's: in use in every warehouse. */
export const CORE_TABLES: readonly TableDef[] = [
  {
    name: 'tasks', parent: null, extra: true,
    description: 'One row per collected task (failed ones included): status, timing, the API version that answered, and the echo of the request parameters (`data`). Result tables join on `_task_id`.',
    columns: [
      c('endpoint_id', 'VARCHAR', 'Catalog endpoint that returned the task (for example `keywords_for_site.task_get`).', '$endpoint_id'),
      c('api_version', 'VARCHAR', 'The `version` the API answered with.', '$version'),
      c('status_code', 'INTEGER', 'Task status code; 40000 and above is an error.'),
      c('status_message', 'VARCHAR', 'Task status message.'),
      c('cost', 'DOUBLE', 'What the service reported in this answer, USD. A SERP `task_get` answer reports the task\'s final cost (after refunds); other `task_get` answers the free GET\'s (0), NOT what the task was billed. The billed cost (from the ledger) is `billed_cost_usd` in `v_task_costs` (and `cost` in the ledger table `_tasks`).'),
      c('time_seconds', 'DOUBLE', 'Execution time, seconds.', 'time', 'seconds'),
      c('result_count', 'BIGINT', 'Number of elements in `result`.'),
      c('path', 'VARCHAR', 'URL path segments of the call, joined with `/`.', 'path', 'join_path'),
      c('api', 'VARCHAR', 'API family (`data.api`).', 'data.api'),
      c('function', 'VARCHAR', 'API function (`data.function`).', 'data.function'),
      c('se', 'VARCHAR', 'Search engine (`data.se`), as the service names it.', 'data.se'),
      c('se_type', 'VARCHAR', 'Search engine type (`data.se_type`).', 'data.se_type'),
      c('tag', 'VARCHAR', 'User-defined task tag (`data.tag`).', 'data.tag'),
      c('keyword', 'VARCHAR', 'Keyword of the task (`data.keyword`).', 'data.keyword'),
      c('target', 'VARCHAR', 'Target domain (`data.target`).', 'data.target'),
      c('location_code', 'BIGINT', 'Location code (`data.location_code`).', 'data.location_code'),
      c('location_name', 'VARCHAR', 'Location name (`data.location_name`).', 'data.location_name'),
      c('location_coordinate', 'VARCHAR', 'Location coordinate (`data.location_coordinate`).', 'data.location_coordinate'),
      c('language_code', 'VARCHAR', 'Language code (`data.language_code`).', 'data.language_code'),
      c('language_name', 'VARCHAR', 'Language name (`data.language_name`).', 'data.language_name'),
      c('se_domain', 'VARCHAR', 'Search engine domain (`data.se_domain`).', 'data.se_domain'),
      c('device', 'VARCHAR', 'Device (`data.device`).', 'data.device'),
      c('os', 'VARCHAR', 'Operating system (`data.os`).', 'data.os'),
      c('depth', 'BIGINT', 'Requested number of results (`data.depth`).', 'data.depth'),
      c('max_crawl_pages', 'BIGINT', 'Requested result pages (`data.max_crawl_pages`).', 'data.max_crawl_pages'),
      c('priority', 'INTEGER', 'Task priority (`data.priority`).', 'data.priority'),
      c('date_range', 'VARCHAR', 'Events date range (`data.date_range`).', 'data.date_range'),
      c('search_partners', 'BOOLEAN', 'Whether partner networks were included (`data.search_partners`).', 'data.search_partners'),
      c('sort_by', 'VARCHAR', 'Requested sort order (`data.sort_by`).', 'data.sort_by'),
      c('price_min', 'DOUBLE', 'Minimum price filter (`data.price_min`).', 'data.price_min'),
      c('price_max', 'DOUBLE', 'Maximum price filter (`data.price_max`).', 'data.price_max'),
      c('url', 'VARCHAR', 'URL given with the task (`data.url`).', 'data.url'),
      c('text', 'VARCHAR', 'Text to paraphrase (`data.text`).', 'data.text'),
      c('creativity_index', 'DOUBLE', 'Paraphrase creativity (`data.creativity_index`).', 'data.creativity_index'),
      c('crawl_task_id', 'VARCHAR', 'On-page crawl task id (`data.id`).', 'data.id'),
      c('mode', 'VARCHAR', 'Search mode (`data.mode`).', 'data.mode'),
      c('limit', 'BIGINT', 'Page size (`data.limit`).', 'data.limit'),
      c('offset', 'BIGINT', 'Offset (`data.offset`).', 'data.offset'),
      c('offset_token', 'VARCHAR', 'Offset token (`data.offset_token`).', 'data.offset_token'),
      c('search_after_token', 'VARCHAR', 'Search-after token (`data.search_after_token`).', 'data.search_after_token'),
      c('filtered_function', 'VARCHAR', 'Function filter (`data.filtered_function`).', 'data.filtered_function'),
      ts('datetime_from', 'Start of the requested window (`data.datetime_from`).', 'data.datetime_from'),
      ts('datetime_to', 'End of the requested window (`data.datetime_to`).', 'data.datetime_to'),
      c('filters', 'JSON', 'Filter expression as sent (`data.filters`), a nested condition list.', 'data.filters', 'json'),
      c('relevant_pages_filters', 'JSON', 'Page filter expression as sent (`data.relevant_pages_filters`).', 'data.relevant_pages_filters', 'json'),
      c('order_by', 'JSON', 'Sort rules as sent (`data.order_by`).', 'data.order_by', 'json'),
      c('pingback_url', 'VARCHAR', 'Pingback URL (`data.pingback_url`).', 'data.pingback_url'),
      c('postback_url', 'VARCHAR', 'Postback URL (`data.postback_url`).', 'data.postback_url'),
      c('postback_data', 'VARCHAR', 'Postback result type (`data.postback_data`).', 'data.postback_data'),
      ...FAMILIES.flatMap((f) => f.taskColumns ?? []),
    ],
    ignored: [{ path: 'id', why: 'in `_task_id`' }, { path: 'result', why: 'rows of the result tables' }],
  },
  scalarChild('tasks__keywords', 'tasks', 'data.keywords', c('keyword', 'VARCHAR', 'One of the keywords given with the task.', '$'), 'Keywords echoed in a task\'s `data.keywords`, one row each.'),
  scalarChild('tasks__search_terms', 'tasks', 'data.search_terms', c('search_term', 'VARCHAR', 'One of the HTML search terms given with the task.', '$'), 'HTML search terms echoed in a task\'s `data.search_terms`, one row each.'),

  // Lists.
  {
    name: 'ready_tasks', parent: null, resultKind: 'ready_list', extra: true,
    description: 'Ready-task lists (tasks_ready): tasks completed and not collected yet, as listed at the time of the call.',
    columns: [
      c('ready_task_id', 'VARCHAR', 'Id of the completed task.', 'id'),
      c('se', 'VARCHAR', 'Search engine.'),
      c('se_type', 'VARCHAR', 'Search engine type.'),
      ts('date_posted', 'When the task was posted (UTC).'),
      c('tag', 'VARCHAR', 'User-defined task tag.'),
      c('endpoint', 'VARCHAR', 'Result path (keywords data).'),
      c('endpoint_regular', 'VARCHAR', 'Path of the regular result.'),
      c('endpoint_advanced', 'VARCHAR', 'Path of the advanced result.'),
      c('endpoint_html', 'VARCHAR', 'Path of the HTML result.'),
    ],
  },
  // Catch-all for results no table describes (an endpoint outside the catalog, met by ingest).
  {
    name: 'unknown_results', parent: null, extra: false,
    description: 'Results of endpoints the catalog has no table for, kept whole so nothing is lost (one row per `result` element).',
    columns: [c('path', 'VARCHAR', 'Path of the call.', '$path'), c('result', 'JSON', 'The result element as JSON.', '$', 'json')],
  },
  ...FAMILIES.flatMap((f) => f.tables ?? []),
];

/** Every table the registry's families can write (`seo-etl tables --available`, docs/tables.md). */
export const AVAILABLE_TABLES: readonly TableDef[] = [...CORE_TABLES, ...FAMILIES.flatMap((f) => f.onDemandTables ?? [])];

export const TABLE_BY_NAME: ReadonlyMap<string, TableDef> = new Map(AVAILABLE_TABLES.map((t) => [t.name, t]));

/**
 * The tables every warehouse holds from the start: the core tables, and the generated families' tables their views
 * read (so every view compiles). A generated family's other tables come into use with what a pipeline fetches, a
 * task loaded or a warehouse that has them (src/load/tables-in-use.ts), never through a global of this module.
 */
export const ALWAYS_IN_USE: readonly TableDef[] = inCatalogOrder([
  ...CORE_TABLES.map((t) => t.name),
  ...FAMILIES.flatMap((f) => (f.views ?? []).flatMap((v) => v.needs ?? [])),
]);

/** The tables a file holding these (catalog or other) table names has for readers: every warehouse's, then the named ones, in catalog order. */
export function heldOf(names: Iterable<string>): TableDef[] {
  return inCatalogOrder([...ALWAYS_IN_USE.map((t) => t.name), ...names]);
}

/** The named tables of the catalog, in its order (names it does not know left out). */
export function inCatalogOrder(names: Iterable<string>): TableDef[] {
  const want = new Set(names);
  return AVAILABLE_TABLES.filter((t) => want.has(t.name));
}

/**
 * Whether a table comes into use with its first row rather than with its result kind: an item type's own table
 * (`item` rows) and the tables below it. Most item types of a polymorphic list are absent from any one answer.
 */
export function inUseOnFirstRow(t: TableDef): boolean {
  for (let cur: TableDef | undefined = t; cur; cur = cur.parent ? TABLE_BY_NAME.get(cur.parent) : undefined) {
    if (cur.source?.kind === 'item') return true;
  }
  return false;
}

export function table(name: string): TableDef {
  const t = TABLE_BY_NAME.get(name);
  if (!t) throw new Error(`unknown table '${name}'`);
  return t;
}

/** Each table's children, in catalog order, indexed once: a filter per call made walking the catalog quadratic. */
const CHILDREN = new Map<string, TableDef[]>();
for (const t of AVAILABLE_TABLES) {
  if (t.parent === null) continue;
  const siblings = CHILDREN.get(t.parent);
  if (siblings) siblings.push(t);
  else CHILDREN.set(t.parent, [t]);
}

export function childrenOf(name: string): readonly TableDef[] {
  return CHILDREN.get(name) ?? [];
}

/** The root table for a result kind (undefined for kinds without rows: task_created). */
export function rootTableFor(kind: ResultKind): TableDef | undefined {
  return AVAILABLE_TABLES.find((t) => t.resultKind === kind || t.alsoResultKinds?.includes(kind));
}

/** A table and all its descendants: the tables a task of that kind writes (and replaces on reload). */
export function familyOf(root: string): TableDef[] {
  const out: TableDef[] = [];
  const walk = (name: string) => {
    out.push(table(name));
    for (const ch of childrenOf(name)) walk(ch.name);
  };
  walk(root);
  return out;
}

/** Catalog self-check, run by tests: unique names, parents exist, child naming `parent__child`. */
export function catalogProblems(): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const t of AVAILABLE_TABLES) {
    if (seen.has(t.name)) problems.push(`${t.name}: declared twice`);
    seen.add(t.name);
    if (t.parent && !TABLE_BY_NAME.has(t.parent)) problems.push(`${t.name}: parent ${t.parent} is not declared`);
    if (t.parent && t.parent !== 'tasks' && !t.name.startsWith(`${t.parent}__`)) problems.push(`${t.name}: a child table is named <parent>__<child>`);
    if (t.parent && !t.source) problems.push(`${t.name}: a child table needs a source`);
    const cols = new Set<string>();
    for (const col of allColumns(t)) {
      if (cols.has(col.name)) problems.push(`${t.name}.${col.name}: declared twice`);
      cols.add(col.name);
    }
  }
  return problems;
}
