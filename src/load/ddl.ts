/**
 * DDL from the catalog and schema evolution. Tables are created from the catalog; a later catalog that declares
 * a new column adds it as a nullable column, a renamed one (`formerly`) is renamed in place; a column is never
 * dropped or narrowed (a column the catalog no longer declares stays and is left null; a type change is applied
 * only when it widens).
 *
 * No PRIMARY KEY constraint is declared in DuckDB: `_id` is kept unique by the loading discipline (a task's rows
 * are deleted and re-inserted as a unit) and checked by tests. An ART index would slow every bulk append and
 * DuckDB refuses to re-insert a key deleted earlier in the same transaction, which the task-level replace does.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { TABLES, activateTables } from '../normalize/catalog.js';
import { allColumns, type DuckType, type TableDef } from '../catalog/table.js';
import { q } from '../catalog/quote.js';
import { inTransaction } from './transaction.js';

export { q, lit } from '../catalog/quote.js';

/**
 * A catalog table's DDL. `derivedIds`: the working file's layout, where a result row's `_id` is computed on read (a
 * generated column, catalog.ts derivedId) instead of stored; without it every column is stored, as in a table made
 * to stand empty in the published file (views.ts) or by hand.
 */
export function createTableSql(t: TableDef, opts: { derivedIds?: boolean } = {}): string {
  const cols = allColumns(t).map((c) => `${q(c.name)} ${c.type}${opts.derivedIds && c.derived ? ` AS (${c.derived})` : ''}`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${q(t.name)} (${cols})`;
}

/**
 * The tables of `database`'s main schema that DuckDB counts rows in (the current one when omitted): a table it counts
 * none in holds none, and most of a night's tables are empty.
 */
export async function tablesWithRows(conn: DuckDBConnection, database?: string): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = ${database === undefined ? 'current_database()' : '$1'} AND schema_name = 'main' AND estimated_size > 0`, database === undefined ? undefined : [database]);
  return new Set(r.getRows().map(([t]) => String(t)));
}

/** Widening changes that are safe to apply in place; anything else keeps the existing type. */
const WIDER: Record<string, readonly DuckType[]> = {
  INTEGER: ['BIGINT', 'DOUBLE', 'VARCHAR'],
  BIGINT: ['DOUBLE', 'VARCHAR'],
  DOUBLE: ['VARCHAR'],
  BOOLEAN: ['VARCHAR'],
};

/**
 * Text columns a later catalog types (times, the models' integers and numbers): the expression that converts a
 * stored text as the loader would read it from an answer. DuckDB wants no space before a zone offset.
 */
const FROM_TEXT: Partial<Record<DuckType, (col: string) => string>> = {
  TIMESTAMPTZ: (col) => `TRY_CAST(regexp_replace(trim(${col}), '\\s+([+-]\\d\\d:?\\d\\d)$', '\\1') AS TIMESTAMPTZ)`,
  BIGINT: (col) => `TRY_CAST(trim(${col}) AS BIGINT)`,
  DOUBLE: (col) => `TRY_CAST(trim(${col}) AS DOUBLE)`,
  BOOLEAN: (col) => `TRY_CAST(trim(${col}) AS BOOLEAN)`,
};

export interface SchemaChange { table: string; column: string; action: 'created_table' | 'added_column' | 'renamed_column' | 'widened' | 'retyped' | 'kept_type'; from?: string; to?: string }

/** Brings the warehouse's tables in line with the catalog, additively. Returns what changed. */
export async function ensureSchema(conn: DuckDBConnection): Promise<SchemaChange[]> {
  const existing = new Map<string, Map<string, string>>();
  const reader = await conn.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_catalog = current_database()`);
  for (const [t, c, ty] of reader.getRows() as [string, string, string][]) {
    if (!existing.has(t)) existing.set(t, new Map());
    existing.get(t)!.set(c, ty);
  }
  // Tables of generated families this warehouse already holds stay in use (their schema evolves with the catalog).
  activateTables(existing.keys());
  const changes: SchemaChange[] = [];
  const statements: string[] = [];
  for (const t of TABLES) {
    const have = existing.get(t.name);
    if (!have) {
      statements.push(createTableSql(t, { derivedIds: true }));
      changes.push({ table: t.name, column: '*', action: 'created_table' });
      continue;
    }
    for (const col of allColumns(t)) {
      const cur = have.get(col.name);
      if (!cur && col.formerly && have.has(col.formerly)) {
        // Renamed in the catalog (src/catalog/renamed.ts): the rows keep their values under the new name.
        statements.push(`ALTER TABLE ${q(t.name)} RENAME COLUMN ${q(col.formerly)} TO ${q(col.name)}`);
        changes.push({ table: t.name, column: col.name, action: 'renamed_column', from: col.formerly });
      } else if (!cur) {
        statements.push(`ALTER TABLE ${q(t.name)} ADD COLUMN ${q(col.name)} ${col.type}`);
        changes.push({ table: t.name, column: col.name, action: 'added_column', to: col.type });
      } else if (normalType(cur) !== col.type) {
        const fromText = normalType(cur) === 'VARCHAR' ? FROM_TEXT[col.type] : undefined;
        if (WIDER[normalType(cur)]?.includes(col.type)) {
          statements.push(`ALTER TABLE ${q(t.name)} ALTER COLUMN ${q(col.name)} SET DATA TYPE ${col.type}`);
          changes.push({ table: t.name, column: col.name, action: 'widened', from: cur, to: col.type });
        } else if (fromText && await allConvert(conn, t.name, col.name, fromText(q(col.name)))) {
          // A text column of an earlier catalog whose every value converts takes the type in place; one that would
          // lose a value stays text (the loader writes text into it; `reprocess` rebuilds it typed from the archive).
          statements.push(`ALTER TABLE ${q(t.name)} ALTER COLUMN ${q(col.name)} SET DATA TYPE ${col.type} USING ${fromText(q(col.name))}`);
          changes.push({ table: t.name, column: col.name, action: 'retyped', from: cur, to: col.type });
        } else {
          changes.push({ table: t.name, column: col.name, action: 'kept_type', from: cur, to: col.type });
        }
      }
    }
  }
  // One transaction, sent as one text: a new warehouse's hundred tables were a hundred commits, each a write of
  // DuckDB's log, and a crash between them left half a schema.
  if (statements.length) await inTransaction(conn, async (c) => { await c.run(statements.join(';\n')); });
  return changes;
}

/** Whether every non-null value of a column converts by `expr`. */
async function allConvert(conn: DuckDBConnection, table: string, column: string, expr: string): Promise<boolean> {
  const r = await conn.runAndReadAll(`SELECT count(*) FROM ${q(table)} WHERE ${q(column)} IS NOT NULL AND ${expr} IS NULL`);
  return Number(r.getRows()[0][0]) === 0;
}

function normalType(t: string): string {
  const u = t.toUpperCase();
  if (u === 'TIMESTAMP WITH TIME ZONE') return 'TIMESTAMPTZ';
  return u;
}
