/**
 * The catalog tables a DuckDB file holds, with those every warehouse has (ALWAYS_IN_USE), in catalog order: what
 * the published file's views, comments and copies are made for. Read from the file, not from the process: the
 * tables a warehouse holds are its own (src/load/tables-in-use.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableDef } from '../catalog/table.js';
import { heldOf } from '../normalize/catalog.js';

/** The catalog tables of `database` (an attached file's alias; the connection's own file without one). */
export async function heldTables(conn: DuckDBConnection, database?: string): Promise<TableDef[]> {
  const r = await conn.runAndReadAll(
    `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND database_name = ${database ? '$1' : 'current_database()'}`,
    database ? [database] : [],
  );
  return heldOf(r.getRows().map((row) => String(row[0])));
}
