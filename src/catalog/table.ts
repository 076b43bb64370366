/**
 * What a table of the warehouse is, as a family declares it: its parent, where its rows come from in a task result,
 * and each column with its DuckDB type, JSON path and description; and the lineage columns every table carries.
 * Types and pure functions of one table only; the table list is derived from the registry (src/catalog/catalog.ts).
 *
 * Lineage columns are added to every table by `lineageColumns` and are not declared per table:
 * `_id` (deterministic row id), `_task_id`, `_run_id`, `_loaded_at`, and on child tables `_parent_id`, `_list_idx`
 * (and `_parent_key`, below the result roots).
 * Row ids are hierarchical text: a task's result row is `<task_id>:<i>`, its children `<parent _id>:<j>`; the
 * `tasks` row is `<task_id>@<endpoint_id>`. Text ids cost some speed over integers (measured ~0.25 s per million
 * child rows in DuckDB) but are deterministic without any hash, identical in the JS and SQL paths, and readable.
 */
import type { ResultKind } from './endpoint.js';

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

/** All columns of a table in storage order: lineage, declared columns, then `extra`. */
export function allColumns(t: TableDef): { name: string; type: DuckType; description: string; derived?: string; formerly?: string }[] {
  return [
    ...lineageColumns(t),
    ...t.columns.map((col) => ({ name: col.name, type: col.type, description: col.description, ...(col.formerly ? { formerly: col.formerly } : {}) })),
    ...(t.extra ? [{ name: EXTRA_COLUMN, type: 'JSON' as DuckType, description: 'Fields the catalog does not know, as JSON (null when there are none).' }] : []),
  ];
}
