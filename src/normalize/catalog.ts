/**
 * The table catalog: every output table declared once. A declaration names the table, its parent, where its rows
 * come from in a task result, and each column with its DuckDB type, its JSON path (relative to the row's source
 * object) and a description. Everything else is derived from it: the JS extractor (extract.ts), the DDL and schema
 * evolution (src/load/ddl.ts), the Parquet export and the data dictionary docs/tables.md (docs.ts).
 *
 * Lineage columns are added to every table by `lineageColumns` and are not declared per table:
 * `_id` (deterministic row id), `_task_id`, `_run_id`, `_loaded_at`, and on child tables `_parent_id`, `_list_idx`
 * (and `_parent_key`, below the result roots).
 * Row ids are hierarchical text: a task's result row is `<task_id>:<i>`, its children `<parent _id>:<j>`; the
 * `tasks` row is `<task_id>@<endpoint_id>`. Text ids cost some speed over integers (measured ~0.25 s per million
 * child rows in DuckDB) but are deterministic without any hash, identical in the JS and SQL paths, and readable.
 */
import type { ResultKind } from '../api/catalog.js';
import { FAMILIES } from '../families/index.js';
import { c, ts, scalarChild } from './declare.js';

export type DuckType = 'VARCHAR' | 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMPTZ' | 'JSON';

/**
 * How a source value becomes a column value. Without one, the column type decides (see coerce in extract.ts):
 * numbers in numeric strings are accepted, a value that cannot be typed goes to `extra` instead of being dropped.
 */
export type Convert =
  /** `"2024-01-02 03:04:05 +00:00"` -> TIMESTAMPTZ (parseTimestamp). */
  | 'timestamp'
  /** `"0.0818 sec."` -> seconds (parseSeconds). */
  | 'seconds'
  /** `google_shopping_serp` -> `shopping_serp`: the item type without its engine prefix. */
  | 'item_type'
  /** Any JSON value kept as JSON text (filters, order_by). */
  | 'json'
  /** A string list joined with `/` (task `path`). */
  | 'join_path'
  /** A timestamp that carries a zone -> TIMESTAMPTZ; a local time without one -> null (see `local_time`). */
  | 'zoned_timestamp'
  /** A local time without a zone, kept as written (`yyyy-mm-dd hh:mm:ss`); a zoned timestamp -> null. */
  | 'local_time'
  /** Whether the timestamp carries a zone. */
  | 'has_zone';

export interface ColumnDef {
  name: string;
  type: DuckType;
  /** Dotted path inside the row's source object; `$` is the source value itself (scalar list elements). */
  path: string;
  convert?: Convert;
  /** A second place of the value, read when `path` holds nothing (where the reference puts a field the live service moved). */
  alt?: string;
  description: string;
  /** Filled only from results of these kinds (a table two result kinds share, where one path means two things). */
  onlyForResultKinds?: readonly ResultKind[];
  /** The value names the row's item type as written (child tables of some item types follow it); `item_type` converts do too. */
  itemType?: boolean;
  /** The column's name in warehouses made before it was renamed: DuckDB and PostgreSQL rename it in place. */
  formerly?: string;
}

export { RENAMED_FIELDS } from './renamed.js';

/** Where a table's rows come from. */
export type RowSource =
  /** Each element of the parent's array at `path` is an object: one row per element. */
  | { kind: 'objects'; path: string }
  /** Each element of the array at `path` is a scalar: one row per element, its value at column path `$`. */
  | { kind: 'scalars'; path: string }
  /** The value at `path` is an object with dynamic keys: one row per key (`$key`) and value (`$`). */
  | { kind: 'entries'; path: string }
  /** `technologies`: { group: { category: [name, ...] } } -> one row per (group, category, technology). */
  | { kind: 'technologies'; path: string }
  /**
   * One row per parent row from the object at `path` (`$`: the parent's own object), with the parent's `_id`, when
   * that object's `by` field names one of `onlyForItemTypes`: an item type's own fields beside the common ones.
   */
  | { kind: 'item'; path: string; by: string };

export interface TableDef {
  name: string;
  description: string;
  /** Parent table, or null for tables whose rows are a task's `result` elements (and `tasks`). */
  parent: string | null;
  /** For root result tables: the result kind whose `result` elements are this table's rows. */
  resultKind?: ResultKind;
  /** Further result kinds whose elements land in this table too (columns may be limited to one kind). */
  alsoResultKinds?: readonly ResultKind[];
  /** Root result tables: `objects` (default) or `scalar_lists` (`result` elements are arrays of strings). */
  resultShape?: 'objects' | 'scalar_lists';
  /** For child tables: where in the parent's source object the rows come from. */
  source?: RowSource;
  /** Child tables that apply only to some parent item types (engine-neutral, as in the `item_type` column). */
  onlyForItemTypes?: readonly string[];
  columns: readonly ColumnDef[];
  /** Known source paths deliberately not stored (constant or derivable); they are not counted as unknown. */
  ignored?: readonly { path: string; why: string }[];
  /** Item types the catalog knows, for tables holding typed items (an unknown one is kept and counted). */
  knownItemTypes?: readonly string[];
  /** Whether rows keep fields the catalog does not know in an `extra` JSON column (object rows only). */
  extra: boolean;
}

export interface LineageColumn {
  name: string;
  type: DuckType;
  description: string;
  /** SQL computing the column from the row's other columns: DuckDB keeps it virtual (a generated column), not stored. */
  derived?: string;
}

/**
 * Whether a table's parent is a result row of the same task, whose `_id` is `<task_id>:<path>`: such a table
 * stores only `<path>` (`_parent_key`) and DuckDB computes `_parent_id` from it. A child of `tasks` keeps its
 * `_parent_id` (`<task_id>@<endpoint_id>`) stored.
 */
export const keyedParent = (t: TableDef): boolean => t.parent !== null && t.parent !== 'tasks' && t.name !== 'tasks';

/** `_parent_id` of a table with a keyed parent, from what the working file stores. */
const PARENT_ID_SQL = `_task_id || ':' || _parent_key`;

/**
 * How a result row's `_id` follows from its stored lineage columns, exactly as the normalizer builds it
 * (extract.ts): DuckDB stores the text of unique ids at several times Parquet's size, so the warehouse computes
 * them on read, from stored columns only (a generated column cannot name another). The `tasks` row's id is stored
 * (one per task).
 */
export function derivedId(t: TableDef): string | undefined {
  if (t.name === 'tasks') return undefined;
  if (t.parent === null) return `_task_id || ':' || _list_idx`;
  const parent = keyedParent(t) ? PARENT_ID_SQL : '_parent_id';
  return t.source?.kind === 'item' ? parent : `${parent} || ':' || _list_idx`;
}

/** The lineage columns a table carries, first in its column order. */
export function lineageColumns(t: TableDef): LineageColumn[] {
  const derived = derivedId(t);
  const cols: LineageColumn[] = [
    { name: '_id', type: 'VARCHAR', ...(derived ? { derived } : {}), description: t.name === 'tasks'
      ? 'Row id: `<task_id>@<endpoint_id>`. Primary key.'
      : t.parent === 'tasks' || (t.parent === null)
        ? 'Row id: `<task_id>:<index in result>` (deterministic). Primary key.'
        : t.source?.kind === 'item'
          ? `Row id: the \`_id\` of its row in \`${t.parent}\` (one row per row of this item type). Primary key.`
          : 'Row id: `<parent _id>:<index in list>` (deterministic). Primary key.' },
    { name: '_task_id', type: 'VARCHAR', description: 'Id of the API task this row came from.' },
    { name: '_run_id', type: 'VARCHAR', description: 'Run that collected the task (or `ingest-...` for ingested files).' },
    { name: '_loaded_at', type: 'TIMESTAMPTZ', description: 'When the row was loaded.' },
  ];
  if (t.name !== 'tasks' && t.parent !== null) {
    cols.push({ name: '_parent_id', type: 'VARCHAR', ...(keyedParent(t) ? { derived: PARENT_ID_SQL } : {}), description: `\`_id\` of the parent row in \`${t.parent}\`.` });
  }
  if (keyedParent(t)) {
    cols.push({ name: '_parent_key', type: 'VARCHAR', description: '`_parent_id` without its leading `<task_id>:`: where the parent row sits in the task (the DuckDB warehouse stores this and computes `_parent_id` from it).' });
  }
  if (t.name !== 'tasks') {
    cols.push({ name: '_list_idx', type: 'INTEGER', description: t.parent === null ? 'Position in the task `result` (0-based).' : t.source?.kind === 'item' ? 'Always 0: one row per parent row.' : 'Position in the source list (0-based).' });
  }
  return cols;
}

export const EXTRA_COLUMN = 'extra';

// ---- declaration helpers -------------------------------------------------------------------------------------

/** Whether a column takes values from results of this kind. */
export const columnApplies = (col: ColumnDef, kind: ResultKind | undefined): boolean => !col.onlyForResultKinds || (kind !== undefined && col.onlyForResultKinds.includes(kind));

// ---- the tables ---------------------------------------------------------------------------------------------

const ACTIVE: TableDef[] = [
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

/**
 * The tables in use: the core ones, every hand-declared family's, and those of generated families that this
 * process met (a pipeline fetching them, a task loaded, a warehouse that has them). The warehouse creates these.
 */
export const TABLES: readonly TableDef[] = ACTIVE;

/** Every table the registry's families can write (`seo-etl tables --available`, docs/tables.md). */
export const AVAILABLE_TABLES: readonly TableDef[] = [...ACTIVE, ...FAMILIES.flatMap((f) => f.onDemandTables ?? [])];

export const TABLE_BY_NAME: ReadonlyMap<string, TableDef> = new Map(AVAILABLE_TABLES.map((t) => [t.name, t]));

/**
 * Puts the named tables (of generated families) in use, in AVAILABLE_TABLES order; returns those newly in use.
 * Tables are created for what a pipeline fetches, not for every operation of the API at once.
 */
export function activateTables(names: Iterable<string>): TableDef[] {
  const active = new Set(ACTIVE.map((t) => t.name));
  const want = new Set([...names].filter((n) => !active.has(n) && TABLE_BY_NAME.has(n)));
  if (want.size === 0) return [];
  const added = AVAILABLE_TABLES.filter((t) => want.has(t.name));
  ACTIVE.push(...added);
  return added;
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

export function childrenOf(name: string): TableDef[] {
  return AVAILABLE_TABLES.filter((t) => t.parent === name);
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

/** All columns of a table in storage order: lineage, declared columns, then `extra`. */
export function allColumns(t: TableDef): { name: string; type: DuckType; description: string; derived?: string; formerly?: string }[] {
  return [
    ...lineageColumns(t),
    ...t.columns.map((col) => ({ name: col.name, type: col.type, description: col.description, ...(col.formerly ? { formerly: col.formerly } : {}) })),
    ...(t.extra ? [{ name: EXTRA_COLUMN, type: 'JSON' as DuckType, description: 'Fields the catalog does not know, as JSON (null when there are none).' }] : []),
  ];
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
