/**
 * No column is named as SQL reserves (`table`, which BI tools and every query had to quote: issue 47, point 8): the
 * field's value is in `table_json`. A warehouse made before keeps its rows: the column is renamed in place.
 */
import { describe, expect, test } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { AVAILABLE_TABLES, TABLE_BY_NAME } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { createTableSql, ensureSchema } from '../../src/load/ddl.js';

describe('the column named table', () => {
  test('is table_json in every table that had one, each remembering its former name', () => {
    const named = (n: string) => AVAILABLE_TABLES.filter((t) => allColumns(t).some((c) => c.name === n)).map((t) => t.name);
    expect(named('table')).toEqual([]);
    const renamed = AVAILABLE_TABLES.flatMap((t) => allColumns(t).filter((c) => c.name === 'table_json').map((c) => c.formerly));
    expect(renamed.length).toBeGreaterThan(10);
    expect(new Set(renamed)).toEqual(new Set(['table']));
    expect(allColumns(TABLE_BY_NAME.get('serp_results__items')!).find((c) => c.name === 'table_json')).toMatchObject({ type: 'JSON', formerly: 'table' });
  });

  test('a warehouse made before keeps its values: the column is renamed, not added beside the old one', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const items = TABLE_BY_NAME.get('serp_results__items')!;
      // The table as an older catalog made it: `table` where `table_json` is now.
      await conn.run(createTableSql(items).replace('"table_json"', '"table"'));
      await conn.run(`INSERT INTO serp_results__items (_task_id, _run_id, "table") VALUES ('t1', 'r1', '{"rows":[["a","b"]]}')`);
      const changes = await ensureSchema(conn);
      expect(changes.filter((c) => c.table === 'serp_results__items')).toEqual([{ table: 'serp_results__items', column: 'table_json', action: 'renamed_column', from: 'table' }]);
      const rows = (await conn.runAndReadAll(`SELECT CAST(table_json AS VARCHAR) AS v FROM serp_results__items`)).getRowObjectsJS();
      expect(rows).toEqual([{ v: '{"rows":[["a","b"]]}' }]);
      const cols = (await conn.runAndReadAll(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'serp_results__items' AND column_name IN ('table', 'table_json')`)).getRows().flat();
      expect(cols).toEqual(['table_json']);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
