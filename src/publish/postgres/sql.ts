/**
 * PostgreSQL DDL from the same declarations as DuckDB's: the table catalog (columns, types, descriptions), the
 * ledger's tables as DuckDB holds them, and the curated views (views.ts), whose DuckDB SQL is written to be
 * portable except for what `viewSqlForPostgres` rewrites and the few DuckDB functions `compatFunctions` defines
 * in the schema (any_value, arg_min, median, ...), so one definition serves both engines.
 */
import { TABLES } from '../../normalize/catalog.js';
import { allColumns, type TableDef } from '../../catalog/table.js';
import { VIEWS, catalogComments, viewStatements } from '../views.js';
import { type ViewDef } from '../../catalog/view.js';

import { q, lit } from '../../catalog/quote.js';
import { pgName } from '../../normalize/pg-name.js';

// The one quoting of identifiers and literals: PostgreSQL's and DuckDB's are the same.
export { q, lit };

/** DuckDB type (catalog or ledger) -> PostgreSQL type. */
const TYPES: Record<string, string> = {
  VARCHAR: 'text',
  BIGINT: 'bigint',
  INTEGER: 'integer',
  DOUBLE: 'double precision',
  BOOLEAN: 'boolean',
  TIMESTAMPTZ: 'timestamptz',
  'TIMESTAMP WITH TIME ZONE': 'timestamptz',
  TIMESTAMP: 'timestamp',
  // jsonb, not json: BI tools and PostgreSQL's operators index and compare jsonb; json is kept as text.
  JSON: 'jsonb',
  DATE: 'date',
};

export function pgType(duckType: string): string {
  const t = TYPES[duckType.toUpperCase()];
  if (!t) throw new Error(`no PostgreSQL type for DuckDB type ${duckType}`);
  return t;
}

/** A name as PostgreSQL keeps it (the catalog's rule, shared with the data dictionary). */
export const pgIdent = pgName;

export interface PgColumn {
  /** Its name in PostgreSQL (pgIdent of the warehouse's). */
  name: string;
  /** Its name in the DuckDB warehouse. */
  source: string;
  duckType: string;
  pgType: string;
  /** Its PostgreSQL name in a schema published before the catalog renamed it (renamed in place). */
  formerly?: string;
}

/** A table as it is published: its columns, key, and the column a run's changes are tracked by. */
export interface PgTable {
  /** Its name in PostgreSQL (pgIdent of the warehouse's). */
  name: string;
  /** Its name in the DuckDB warehouse. */
  source: string;
  columns: PgColumn[];
  primaryKey: string[];
  /** Rows are replaced by this column's values: `_task_id` for catalog tables, `run_id` for the ledger's. */
  unit: string;
  /** The column whose newest value marks what has been published: `_loaded_at` / `updated_at`; '' for none (sent whole). */
  stamp: string;
  /** `catalog` tables share one set of changed tasks, `ledger` tables one set of changed runs. */
  family: 'catalog' | 'ledger';
  /** Foreign keys (the catalog's nesting, the ledger's runs): what BI tools find joins by. */
  references: { column: string; table: string; key: string }[];
}

export function catalogTable(t: TableDef): PgTable {
  return {
    name: pgIdent(t.name),
    source: t.name,
    columns: allColumns(t).map((c) => ({ name: pgIdent(c.name), source: c.name, duckType: c.type, pgType: pgType(c.type), ...(c.formerly ? { formerly: pgIdent(c.formerly) } : {}) })),
    primaryKey: ['_id'],
    unit: '_task_id',
    stamp: '_loaded_at',
    family: 'catalog',
    references: t.parent ? [{ column: '_parent_id', table: pgIdent(t.parent), key: '_id' }] : [],
  };
}

/** The catalog's tables in use now: generated families' tables join them when a pipeline fetches them. */
export const catalogTables = (): PgTable[] => TABLES.map(catalogTable);

/** CREATE TABLE (a temporary one without keys), then its primary key and the index the replacement deletes by. */
export function createTableSql(schema: string, t: PgTable, opts: { name?: string; temp?: boolean } = {}): string[] {
  const name = opts.name ?? t.name;
  const cols = t.columns.map((c) => `${q(c.name)} ${c.pgType}`).join(', ');
  if (opts.temp) return [`CREATE TEMP TABLE ${q(name)} (${cols})`];
  return [`CREATE TABLE ${q(schema)}.${q(name)} (${cols})`, ...keySql(schema, t)];
}

/** The primary key and the unit's index: built after a new table's rows are in, which is faster than row by row. */
export function keySql(schema: string, t: PgTable): string[] {
  return [
    `ALTER TABLE ${q(schema)}.${q(t.name)} ADD PRIMARY KEY (${t.primaryKey.map(q).join(', ')})`,
    ...(t.primaryKey[0] === t.unit ? [] : [`CREATE INDEX ON ${q(schema)}.${q(t.name)} (${q(t.unit)})`]),
  ];
}

/** A name PostgreSQL keeps whole (63 bytes at most), stable for the same table and column. */
function objectName(table: string, column: string, suffix: string): string {
  const name = `${table}_${column.replace(/^_/, '')}_${suffix}`;
  if (name.length <= 63) return name;
  let h = 0;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  // 63 bytes: what PostgreSQL kept of an earlier version's 64 (which ended in the suffix's initial), so schemas
  // published then still match; the hash covers the suffix.
  return `${name.slice(0, 54)}_${h.toString(36).padStart(7, '0').slice(0, 7)}_`;
}

export interface RelationObject { kind: 'index' | 'foreign_key'; table: string; name: string; sql: string }

/**
 * A table's foreign keys and the indexes joins along them use (`_parent_id` of a nested table, `run_id` of the
 * ledger's), by name, so a publish adds those missing (a new table, or a schema from before them). The keys are
 * DEFERRABLE INITIALLY DEFERRED: a publish replaces a task's rows in every table of its family in one transaction,
 * parents and children in any order, and the keys are checked at its commit.
 */
export function relationObjects(schema: string, t: PgTable): RelationObject[] {
  const out: RelationObject[] = [];
  for (const r of t.references) {
    if (t.primaryKey[0] !== r.column && t.unit !== r.column) {
      const name = objectName(t.name, r.column, 'idx');
      out.push({ kind: 'index', table: t.name, name, sql: `CREATE INDEX IF NOT EXISTS ${q(name)} ON ${q(schema)}.${q(t.name)} (${q(r.column)})` });
    }
    const name = objectName(t.name, r.column, 'fkey');
    out.push({
      kind: 'foreign_key', table: t.name, name,
      sql: `ALTER TABLE ${q(schema)}.${q(t.name)} ADD CONSTRAINT ${q(name)} FOREIGN KEY (${q(r.column)}) REFERENCES ${q(schema)}.${q(r.table)} (${q(r.key)}) DEFERRABLE INITIALLY DEFERRED`,
    });
  }
  return out;
}

/** The bookkeeping table: per published table, how far it is published and how many rows it holds. */
export const STATE_TABLE = '_publish_state';

export function stateTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${q(schema)}.${STATE_TABLE} (
    object text PRIMARY KEY,
    published_through text,
    row_count bigint,
    fingerprint text,
    run_id text,
    published_at timestamptz NOT NULL DEFAULT now()
  )`;
}

/** Types any_value has a built-in (C) transition function for: keeps the larger of two values, nulls skipped. */
const ANY_VALUE_BUILTINS: readonly [string, string][] = [
  ['text', 'text_larger'], ['bigint', 'int8larger'], ['integer', 'int4larger'], ['double precision', 'float8larger'],
  ['boolean', 'boolor_statefunc'], ['date', 'date_larger'], ['timestamptz', 'timestamptz_larger'], ['timestamp', 'timestamp_larger'],
];

/** DuckDB functions the views and queries use that PostgreSQL 15 lacks (or types differently), in the schema. */
export function compatFunctions(schema: string): string[] {
  const s = q(schema);
  return [
    `CREATE OR REPLACE FUNCTION ${s}._first(anyelement, anyelement) RETURNS anyelement LANGUAGE sql IMMUTABLE AS 'SELECT coalesce($1, $2)'`,
    `CREATE OR REPLACE AGGREGATE ${s}.any_value(anyelement) (SFUNC = ${s}._first, STYPE = anyelement)`,
    // The types the views take any_value of, with built-in transition functions: a SQL one is called per row (not
    // inlined in an aggregate), most of a GROUP BY's time over a year of SERP items. Any value is the largest here.
    ...ANY_VALUE_BUILTINS.map(([type, sfunc]) => `CREATE OR REPLACE AGGREGATE ${s}.any_value(${type}) (SFUNC = ${sfunc}, STYPE = ${type})`),
    `DO $$ BEGIN CREATE TYPE ${s}._arg_td AS (v text, k double precision); EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
    `CREATE OR REPLACE FUNCTION ${s}._arg_min_td(st ${s}._arg_td, v text, k double precision) RETURNS ${s}._arg_td LANGUAGE sql IMMUTABLE
       AS 'SELECT CASE WHEN k IS NULL THEN st WHEN st IS NULL OR k < (st).k THEN ROW(v, k)::${s}._arg_td ELSE st END'`,
    `CREATE OR REPLACE FUNCTION ${s}._arg_max_td(st ${s}._arg_td, v text, k double precision) RETURNS ${s}._arg_td LANGUAGE sql IMMUTABLE
       AS 'SELECT CASE WHEN k IS NULL THEN st WHEN st IS NULL OR k > (st).k THEN ROW(v, k)::${s}._arg_td ELSE st END'`,
    `CREATE OR REPLACE FUNCTION ${s}._arg_value(st ${s}._arg_td) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT (st).v'`,
    `CREATE OR REPLACE AGGREGATE ${s}.arg_min(text, double precision) (SFUNC = ${s}._arg_min_td, STYPE = ${s}._arg_td, FINALFUNC = ${s}._arg_value)`,
    `CREATE OR REPLACE AGGREGATE ${s}.arg_max(text, double precision) (SFUNC = ${s}._arg_max_td, STYPE = ${s}._arg_td, FINALFUNC = ${s}._arg_value)`,
    `CREATE OR REPLACE FUNCTION ${s}._median(double precision[]) RETURNS double precision LANGUAGE sql IMMUTABLE
       AS 'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest($1) AS x'`,
    `CREATE OR REPLACE AGGREGATE ${s}.median(double precision) (SFUNC = array_append, STYPE = double precision[], FINALFUNC = ${s}._median)`,
    `CREATE OR REPLACE FUNCTION ${s}.round(double precision, integer) RETURNS double precision LANGUAGE sql IMMUTABLE
       AS 'SELECT round($1::numeric, $2)::double precision'`,
    `CREATE OR REPLACE FUNCTION ${s}.epoch(interval) RETURNS double precision LANGUAGE sql IMMUTABLE AS 'SELECT extract(epoch FROM $1)::double precision'`,
    `CREATE OR REPLACE FUNCTION ${s}.regexp_extract(text, text, integer) RETURNS text LANGUAGE sql IMMUTABLE
       AS 'SELECT CASE WHEN $1 IS NULL THEN NULL ELSE coalesce((regexp_match($1, $2))[$3], '''') END'`,
    // A date written YYYY-MM-DD that exists, else null, in plain SQL the planner inlines: the PL/pgSQL version's
    // exception block opened a subtransaction per row, most of the SERP views' time at a year of pages.
    `CREATE OR REPLACE FUNCTION ${s}.try_cast_date(text) RETURNS date LANGUAGE sql STABLE
       AS $$SELECT CASE WHEN $1 IS NULL OR $1 !~ '^\\d{4}-\\d{2}-\\d{2}$' THEN NULL
                        WHEN substr($1, 1, 4)::int = 0 OR substr($1, 6, 2)::int NOT BETWEEN 1 AND 12 THEN NULL
                        WHEN substr($1, 9, 2)::int BETWEEN 1 AND extract(day FROM make_date(substr($1, 1, 4)::int, substr($1, 6, 2)::int, 1) + interval '1 month - 1 day')::int THEN $1::date
                   END$$`,
  ];
}

/**
 * A view's DuckDB SELECT as PostgreSQL reads it: `try_cast(x AS DATE)` (DuckDB syntax) becomes the schema's
 * try_cast_date(x). Everything else in the views is written to mean the same in both engines.
 */
export function viewSqlForPostgres(sql: string): string {
  let out = '';
  let i = 0;
  const re = /try_cast\(/gi;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    const start = m.index + m[0].length;
    let depth = 1;
    let j = start;
    let asAt = -1;
    for (; j < sql.length && depth > 0; j++) {
      const ch = sql[j];
      if (ch === '(') depth++;
      else if (ch === ')') depth--;
      else if (depth === 1 && /^\s+AS\s+/i.test(sql.slice(j, j + 5)) && asAt < 0) asAt = j;
    }
    if (asAt < 0) continue;
    const target = sql.slice(asAt, j - 1).replace(/^\s+AS\s+/i, '').trim().toUpperCase();
    if (target !== 'DATE') throw new Error(`try_cast to ${target}: only DATE has a PostgreSQL equivalent here`);
    out += `${sql.slice(i, m.index)}try_cast_date(${viewSqlForPostgres(sql.slice(start, asAt))})`;
    i = j;
    re.lastIndex = j;
  }
  return out + sql.slice(i);
}

/** The materialized view holding the rows of a view that declares `pgMaterializedKey`. */
export const materializedName = (view: string) => pgIdent(`_mv_${view}`);

/** Each view's relations in PostgreSQL and their kind (pg_class.relkind): the view, and its materialized rows. */
export function viewRelations(v: ViewDef): { name: string; kind: 'v' | 'm' }[] {
  return [{ name: v.name, kind: 'v' }, ...(v.pgMaterializedKey ? [{ name: materializedName(v.name), kind: 'm' as const }] : [])];
}

/**
 * Each view's statements for PostgreSQL: drop and create (a changed column type cannot be replaced), with comments.
 * A view declaring `pgMaterializedKey` computes its rows into a materialized view (`_mv_<view>`, refreshed by each
 * publish that changes a table it reads, unique on the key) and the view reads them: the name, the columns and the
 * comments stay a plain view's, which every BI tool lists (information_schema leaves materialized views out).
 */
export function viewDdl(schema: string, v: ViewDef): string[] {
  const [create, ...comments] = viewStatements(v);
  // A quoted name past PostgreSQL's 63 bytes (a deep generated table v_run_rows counts) is the table's pgIdent there.
  const select = viewSqlForPostgres(create.replace(/^CREATE OR REPLACE VIEW "[^"]+" AS /, '')).replace(/"((?:[^"]|"")+)"/g, (m, n: string) => {
    const pg = pgIdent(n.replace(/""/g, '"'));
    return pg === n.replace(/""/g, '"') ? m : q(pg);
  });
  const name = `${q(schema)}.${q(v.name)}`;
  const drop = `DROP VIEW IF EXISTS ${name}`;
  if (!v.pgMaterializedKey) return [drop, `CREATE VIEW ${name} AS ${select}`, ...comments];
  const mv = materializedName(v.name);
  const mvName = `${q(schema)}.${q(mv)}`;
  return [
    drop,
    `DROP MATERIALIZED VIEW IF EXISTS ${mvName}`,
    `CREATE MATERIALIZED VIEW ${mvName} AS ${select}`,
    `CREATE UNIQUE INDEX ${q(pgIdent(`${mv}_key`))} ON ${mvName} (${v.pgMaterializedKey.map(q).join(', ')})`,
    `CREATE VIEW ${name} AS SELECT ${v.columns.map((c) => q(c.name)).join(', ')} FROM ${mvName}`,
    ...comments,
    `COMMENT ON MATERIALIZED VIEW ${mvName} IS ${lit(`The rows of ${v.name}, computed at each publish (read the view).`)}`,
    ...v.columns.map((c) => `COMMENT ON COLUMN ${mvName}.${q(c.name)} IS ${lit(c.description)}`),
  ];
}

export const PG_VIEWS: readonly ViewDef[] = VIEWS;

/** The catalog's and the ledger's comments (the data dictionary), for the schema on the search path. */
export function tableComments(): string[] {
  const renamed = new Map(TABLES.flatMap((t) => [t.name, ...allColumns(t).map((c) => c.name)]).filter((n) => pgIdent(n) !== n).map((n) => [q(n), q(pgIdent(n))]));
  if (!renamed.size) return catalogComments();
  // Names cut for PostgreSQL: the statements name the PostgreSQL object, the comment says the warehouse's name.
  return catalogComments().map((sql) => {
    const m = /^COMMENT ON (TABLE|COLUMN) ("(?:[^"]|"")*")(?:\.("(?:[^"]|"")*"))? IS '/.exec(sql);
    if (!m) return sql;
    const full = (m[3] ?? m[2]).slice(1, -1).replace(/""/g, '"');
    const [tableName, colName] = [m[2], m[3]].map((x) => (x ? renamed.get(x) ?? x : x));
    const head = `COMMENT ON ${m[1]} ${tableName}${colName ? `.${colName}` : ''} IS '`;
    const note = renamed.has(m[3] ?? m[2]) ? `(${full.replace(/'/g, "''")} in the warehouse) ` : '';
    return head + note + sql.slice(m[0].length);
  });
}
