/**
 * The DuckDB side of a PostgreSQL publish: the warehouse file attached read-only (a publish never writes it), the
 * ledger's table shapes from LEDGER_DDL (so they are published even from a warehouse without a ledger), and rows
 * written as CSV by DuckDB's own writer for PostgreSQL's COPY (quoted empty strings, unquoted empty NULLs: the
 * convention both read alike).
 */
import type { DuckDBInstance, DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { LEDGER_DDL } from '../../ledger/schema.js';
import { lit, pgType, q, type PgTable } from './sql.js';
import { createDuckdb } from '../../load/threads.js';
import { heldOf } from '../../normalize/catalog.js';
import type { TableDef } from '../../catalog/table.js';

export class DuckSource {
  private constructor(private readonly instance: DuckDBInstance, readonly conn: DuckDBConnection, private readonly tables: Set<string>) {}

  static async open(file: string): Promise<DuckSource> {
    const instance = await createDuckdb(':memory:');
    try {
      const conn = await instance.connect();
      await conn.run(`ATTACH ${lit(file)} AS wh (READ_ONLY)`);
      const names = (await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'wh' AND schema_name = 'main'`)).getRows().map((r) => String(r[0]));
      return new DuckSource(instance, conn, new Set(names));
    } catch (err) {
      instance.closeSync();
      throw err;
    }
  }

  /** The catalog tables the file holds, with those every warehouse has, in catalog order. */
  heldTables(): TableDef[] {
    return heldOf(this.tables);
  }

  has(table: string): boolean {
    return this.tables.has(table);
  }

  async rows(sql: string, values?: DuckDBValue[]): Promise<unknown[][]> {
    return (await this.conn.runAndReadAll(sql, values)).getRows() as unknown[][];
  }

  async count(table: string): Promise<number> {
    if (!this.has(table)) return 0;
    return Number((await this.rows(`SELECT count(*) FROM wh.${q(table)}`))[0][0]);
  }

  /** The newest stamp of the tables, as DuckDB writes it (the text round-trips to the same value), or null. */
  async newestStamp(tables: readonly PgTable[]): Promise<string | null> {
    const parts = tables.filter((t) => t.stamp && this.has(t.source)).map((t) => `SELECT CAST(max(${q(t.stamp)}) AS VARCHAR) AS s FROM wh.${q(t.source)}`);
    if (!parts.length) return null;
    const [[s]] = await this.rows(`SELECT max(s) FROM (${parts.join(' UNION ALL ')})`);
    return s === null || s === undefined ? null : String(s);
  }

  /** Writes `SELECT ...` to a CSV file for COPY; returns the rows written. */
  async toCsv(select: string, file: string, values?: DuckDBValue[]): Promise<number> {
    const r = await this.conn.runAndReadAll(`COPY (${select}) TO ${lit(file)} (FORMAT csv, HEADER false)`, values);
    return Number(r.getRows()[0]?.[0] ?? 0);
  }

  close(): void {
    this.conn.closeSync();
    this.instance.closeSync();
  }
}

/** The ledger's tables (`_runs`, `_tasks`) as published: columns and keys read from LEDGER_DDL, created in memory. */
export async function ledgerTables(): Promise<PgTable[]> {
  const instance = await createDuckdb(':memory:');
  const conn = await instance.connect();
  try {
    for (const sql of LEDGER_DDL) await conn.run(sql);
    const cols = (await conn.runAndReadAll(`SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal ORDER BY table_name, column_index`)).getRows() as string[][];
    const keys = (await conn.runAndReadAll(`SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type = 'PRIMARY KEY'`)).getRowsJS() as [string, string[]][];
    const names = [...new Set(cols.map((c) => c[0]))].sort((a, b) => (a === '_runs' ? -1 : b === '_runs' ? 1 : a.localeCompare(b)));
    return names.map((name) => ({
      name,
      source: name,
      columns: cols.filter((c) => c[0] === name).map(([, c, ty]) => ({ name: c, source: c, duckType: ty, pgType: pgType(ty) })),
      primaryKey: keys.find((k) => k[0] === name)?.[1] ?? [],
      unit: 'run_id',
      // A ledger table without updated_at (`_targets`, a run's tracked domains) is small and sent whole each time.
      stamp: cols.some((c) => c[0] === name && c[1] === 'updated_at') ? 'updated_at' : '',
      family: 'ledger' as const,
      // Every task and attempt belongs to a run.
      references: name === '_runs' ? [] : [{ column: 'run_id', table: '_runs', key: 'run_id' }],
    }));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
