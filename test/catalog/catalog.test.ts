/**
 * The catalog as a value (issue 45): built once from a list of families, nothing changes it afterwards, and a second
 * catalog of other families (here a made-up one) lives beside the process's without either seeing the other's
 * endpoints, tables or compiled plans.
 */
import { describe, expect, test } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { c } from '../../src/catalog/declare.js';
import type { FamilyDef } from '../../src/catalog/family.js';
import { CATALOG, FAMILIES } from '../../src/families/index.js';
import { normalizeTask, tablesOfTask } from '../../src/normalize/extract.js';
import { Warehouse } from '../../src/load/warehouse.js';

const LOADED_AT = new Date('2026-01-05T00:00:00Z');

/** A made-up family: one live endpoint whose results land in `fake_things`, with or without a child table of its `parts`. */
function fakeFamily(parts: 'with parts' | 'without parts'): FamilyDef {
  return {
    name: 'fake_family',
    description: 'A family no registry lists.',
    endpoints: [{ id: 'fake_family.things.live', ref: 'live', method: 'POST', path: '/v3/fake_family/things/live', kind: 'live', api: 'fake_family', fn: 'things', result: 'fake_things', version: '0.1', description: 'Things.', billing: 'request', fields: { target: { type: 'string', required: true } } }],
    tables: [
      {
        name: 'fake_things', parent: null, resultKind: 'fake_things', extra: true, description: 'Things.',
        columns: [c('target', 'VARCHAR', 'The target.'), c('count', 'BIGINT', 'How many.')],
      },
      ...(parts === 'with parts' ? [{ name: 'fake_things__parts', parent: 'fake_things', extra: false, description: 'Parts.', source: { kind: 'objects' as const, path: 'parts' }, columns: [c('part', 'VARCHAR', 'A part.')] }] : []),
    ],
  };
}

const task = (result: unknown[]) => ({
  endpointId: 'fake_family.things.live', version: '0.1',
  task: { id: 't-1', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, result_count: result.length, path: ['v3', 'fake_family', 'things', 'live'], data: { api: 'fake_family', function: 'things', target: 'a.example' }, result },
});

describe('the catalog is a value', () => {
  test('the process builds its catalog once from the registry, and nothing can add to it', () => {
    expect(CATALOG.families).toBe(FAMILIES);
    expect(CATALOG.endpoints.length).toBeGreaterThan(500);
    expect(Object.isFrozen(CATALOG)).toBe(true);
    expect(Object.isFrozen(CATALOG.tables)).toBe(true);
    expect(() => (CATALOG.endpoints as unknown[]).push({})).toThrow(TypeError);
    // Every tasks_ready entry carries the family-wide limits, derived, not declared.
    const ready = CATALOG.endpointsOfKind('tasks_ready');
    expect(ready.length).toBeGreaterThan(10);
    expect(ready.every((e) => e.perMinute === 20 && e.maxResultsPerCall === 1000)).toBe(true);
  });

  test('a second catalog of other families shares nothing with the process\'s', () => {
    const other = new Catalog([fakeFamily('with parts')]);
    expect(other.endpoints.map((e) => e.id)).toEqual(['fake_family.things.live']);
    expect(other.tables.map((t) => t.name)).toEqual(['tasks', 'tasks__keywords', 'tasks__search_terms', 'ready_tasks', 'unknown_results', 'fake_things', 'fake_things__parts']);
    expect(other.childrenOf('fake_things').map((t) => t.name)).toEqual(['fake_things__parts']);
    expect(other.tablesOf('fake_family.things.live')).toEqual(['tasks', 'tasks__keywords', 'tasks__search_terms', 'fake_things', 'fake_things__parts']);
    // The process's catalog does not know the made-up endpoint: its tasks go to unknown_results there.
    expect(CATALOG.findEndpoint('fake_family.things.live')).toBeUndefined();
    expect(tablesOfTask('fake_family.things.live')).toEqual(['tasks', 'tasks__keywords', 'tasks__search_terms', 'unknown_results']);
    expect(CATALOG.tableByName.has('fake_things')).toBe(false);
  });

  test('the normalizer writes the rows of the catalog it is given, and compiles each catalog\'s plans apart', () => {
    const withParts = new Catalog([fakeFamily('with parts')]);
    const plain = new Catalog([fakeFamily('without parts')]);
    const t = task([{ target: 'a.example', count: '7', parts: [{ part: 'lid' }, { part: 'box' }] }]);
    const ctx = { runId: 'r1', loadedAt: LOADED_AT };

    const a = normalizeTask(t, { ...ctx, catalog: withParts });
    expect(a.get('fake_things')?.map((r) => [r.target, r.count, r.extra ?? null])).toEqual([['a.example', 7, null]]);
    expect(a.get('fake_things__parts')?.map((r) => r.part)).toEqual(['lid', 'box']);

    // The same table name in a catalog without the child table: `parts` is a field it does not declare, kept in extra.
    const b = normalizeTask(t, { ...ctx, catalog: plain });
    expect(b.has('fake_things__parts')).toBe(false);
    expect(JSON.parse(String(b.get('fake_things')![0].extra))).toEqual({ parts: [{ part: 'lid' }, { part: 'box' }] });

    // And the process's catalog, as every stage uses by default: the result kept whole.
    const p = normalizeTask(t, ctx);
    expect(p.has('fake_things')).toBe(false);
    expect(p.get('unknown_results')).toHaveLength(1);
    // The first catalog's plans were not replaced by the second's.
    expect(normalizeTask(t, { ...ctx, catalog: withParts }).get('fake_things__parts')).toHaveLength(2);
  });

  test('a warehouse opened with a catalog creates and loads that catalog\'s tables, and the process\'s do not see them', async () => {
    const fake = new Catalog([fakeFamily('with parts')]);
    const wh = await Warehouse.open(':memory:', { catalog: fake });
    const plain = await Warehouse.open(':memory:');
    try {
      await wh.ensureSchema();
      await plain.ensureSchema();
      const summary = await wh.loadTasks([task([{ target: 'a.example', count: 3, parts: [{ part: 'lid' }] }])], { runId: 'r1', loadedAt: LOADED_AT });
      expect(summary.rows).toMatchObject({ tasks: 1, fake_things: 1, fake_things__parts: 1 });
      const rows = (await wh.connection.runAndReadAll(`SELECT t.target, t.count, p.part FROM fake_things t JOIN fake_things__parts p ON p._parent_id = t._id`)).getRowObjectsJson();
      expect(rows).toEqual([{ target: 'a.example', count: '3', part: 'lid' }]);
      expect(wh.inUse.tables.map((t) => t.name)).toContain('fake_things__parts');
      // The process's catalog: its warehouses hold its tables only, and none of the made-up family's.
      const names = (await plain.connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'fake%'`)).getRows();
      expect(names).toEqual([]);
      expect(plain.inUse.tables.map((t) => t.name)).toEqual(CATALOG.alwaysInUse.map((t) => t.name));
    } finally {
      wh.close();
      plain.close();
    }
  });
});
