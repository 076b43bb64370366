import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TABLES, catalogProblems, rootTableFor } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { familyTableDocs, renderTablesDoc } from '../../src/normalize/docs.js';
import { ENDPOINTS } from '../../src/api/catalog.js';
import { neutralItemType } from '../../src/normalize/item-type.js';

describe('table catalog', () => {
  it('is consistent: unique names, declared parents, parent__child names, no duplicate columns', () => {
    expect(catalogProblems()).toEqual([]);
  });

  it('has a root table for every result kind of the endpoint catalog except task creation', () => {
    const kinds = new Set(ENDPOINTS.map((e) => e.result));
    kinds.delete('task_created');
    const missing = [...kinds].filter((k) => !rootTableFor(k));
    expect(missing).toEqual([]);
  });

  it('gives every table the lineage columns and child tables _parent_id/_list_idx', () => {
    for (const t of TABLES) {
      const names = allColumns(t).map((c) => c.name);
      expect(names.slice(0, 4)).toEqual(['_id', '_task_id', '_run_id', '_loaded_at']);
      if (t.parent && t.name !== 'tasks') expect(names).toContain('_parent_id');
    }
  });

  it('docs/tables.md is what `seo-etl docs` generates from the catalog', () => {
    const file = readFileSync(new URL('../../docs/tables.md', import.meta.url), 'utf8');
    expect(file, 'docs/tables.md is stale: run `seo-etl docs`').toBe(renderTablesDoc());
    for (const [name, text] of Object.entries(familyTableDocs())) {
      expect(readFileSync(new URL(`../../docs/tables/${name}`, import.meta.url), 'utf8'), `docs/tables/${name} is stale: run \`seo-etl docs\``).toBe(text);
    }
  });
});

describe('engine-neutral item types', () => {
  it('strips any engine prefix from known types, the configured one from unknown types', () => {
    expect(neutralItemType('google_shopping_serp', [])).toBe('shopping_serp');
    expect(neutralItemType('engine_a_shopping_serp', [])).toBe('shopping_serp');
    expect(neutralItemType('bing_shopping_sponsored_carousel_element', [])).toBe('shopping_sponsored_carousel_element');
    expect(neutralItemType('related_searches', ['google'])).toBe('related_searches');
    expect(neutralItemType('google_shopping_new_widget', ['google'])).toBe('shopping_new_widget');
    expect(neutralItemType('mystery_widget', ['google'])).toBe('mystery_widget');
  });
});
