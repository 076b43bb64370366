/**
 * The tables a warehouse holds are its own (issue 45): the catalog does not change at run time, so what one
 * warehouse (one test, one load) puts in use never shows in another of the same process.
 */
import { describe, expect, test } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { TablesInUse } from '../../src/load/tables-in-use.js';
import { ALWAYS_IN_USE, AVAILABLE_TABLES } from '../../src/normalize/catalog.js';
import { tablesOfTask } from '../../src/normalize/extract.js';

const present = async (wh: Warehouse) => new Set((await wh.connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).getRows().map((r) => String(r[0])));

describe('tables in use', () => {
  test('start as the tables every warehouse has, and grow in catalog order', () => {
    const inUse = new TablesInUse();
    expect(inUse.tables).toEqual(ALWAYS_IN_USE);
    const onDemand = AVAILABLE_TABLES.filter((t) => !inUse.has(t.name)).slice(0, 3).reverse();
    expect(onDemand).toHaveLength(3);
    const added = inUse.add([...onDemand.map((t) => t.name), 'no_such_table']);
    expect(added.map((t) => t.name)).toEqual([...onDemand].reverse().map((t) => t.name));
    expect(inUse.add(onDemand.map((t) => t.name))).toEqual([]);
    const order = inUse.tables.map((t) => AVAILABLE_TABLES.indexOf(t));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test('one warehouse\'s generated tables are not another\'s, in one process', async () => {
    const labs = tablesOfTask('dataforseo_labs.google.keyword_ideas.live').filter((n) => !ALWAYS_IN_USE.some((t) => t.name === n));
    expect(labs.length).toBeGreaterThan(0);
    const a = await Warehouse.open(':memory:');
    const b = await Warehouse.open(':memory:');
    try {
      a.use(labs);
      await a.ensureSchema();
      await b.ensureSchema();
      expect(labs.filter((n) => a.inUse.has(n))).not.toEqual([]);
      expect(labs.filter((n) => b.inUse.has(n))).toEqual([]);
      const inA = await present(a);
      const inB = await present(b);
      expect(labs.filter((n) => a.inUse.has(n)).every((n) => inA.has(n))).toBe(true);
      expect(labs.filter((n) => inB.has(n))).toEqual([]);
    } finally {
      a.close();
      b.close();
    }
  });
});
