/**
 * Acceptance: a live-shape Google organic page holding one item of every type the client's models declare, each
 * with every declared field filled (nested objects and lists too), fed through `seo-etl ingest`, lands in typed
 * columns and child tables: no row keeps anything in `extra`, no value is refused, no type is unknown. A type the
 * models do not know yet is kept whole and reported by name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestCommand } from '../../src/run/archive-command.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';
import { ALWAYS_IN_USE, AVAILABLE_TABLES } from '../../src/normalize/catalog.js';
import { SERP_CLASS_FIELDS, SERP_ITEM_CLASSES, SERP_FIELD_TYPES } from '../../src/families/serp/models.generated.js';
import { typeNameOf } from '../../src/sandbox/families/serp/shape.js';
import { queryFile } from '../helpers/project.js';

const dirs: string[] = [];
afterEach(() => { while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });

/** A value of a declared type with every field filled, two levels of lists deep at most. */
function sample(type: string, depth: number, n: number, typeName?: string): unknown {
  const t = type.replace(/\s+/g, '');
  if (t.endsWith('[]')) {
    const inner = t.slice(0, -2);
    const subs = SERP_ITEM_CLASSES[inner];
    // A polymorphic list: one element of each class it maps.
    if (subs) return Object.entries(subs).map(([name, cls], i) => sample(cls, depth + 1, i, name));
    return depth > 3 ? [] : [sample(inner, depth + 1, 0), sample(inner, depth + 1, 1)];
  }
  if (t === 'string') return `s${n}`;
  if (t === 'number') return 7 + n;
  if (t === 'boolean') return true;
  if (t.startsWith('{')) return { a: t.includes('number') ? 1 : t.includes('WorkDayInfo') ? [] : 'x' };
  const fields = SERP_CLASS_FIELDS[t];
  if (!fields) return `s${n}`;
  const out: Record<string, unknown> = {};
  for (const [k, ft] of Object.entries(fields)) {
    if (k === 'type') out[k] = typeName ?? typeNameOf(t);
    else if (k === 'timestamp' || k === 'datetime' || SERP_FIELD_TYPES[t]?.[k] === 'time') out[k] = '2026-11-20 08:15:02 +00:00';
    else if (k === 'url' || k.endsWith('_url')) out[k] = `https://site${n}.example/p`;
    else if (k === 'domain') out[k] = `site${n}.example`;
    else out[k] = sample(ft, depth, n);
  }
  return out;
}

/** Ingests one task_get envelope of `path` with `result`; returns the summary and a query on the warehouse. */
async function ingestPage(path_: string[], data: Record<string, unknown>, result: Record<string, unknown>) {
  const envelope = {
    version: '0.1.20250101', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
    tasks: [{ id: '11231200-1535-0066-0000-bbbbbbbbbbbb', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0.0006, result_count: 1,
      path: [...path_, '11231200-1535-0066-0000-bbbbbbbbbbbb'], data, result: [result] }],
  };
  const root = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-serp-page-'));
  dirs.push(root);
  writeFileSync(path.join(root, 'page.json'), JSON.stringify(envelope));
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as never;
  try {
    expect(await ingestCommand({ root, files: [path.join(root, 'page.json')] })).toBe(0);
  } finally {
    process.stdout.write = write;
  }
  const db = warehousePaths(path.resolve(root, loadConfig({ root }).warehouse.dir)).published;
  return { summary: out.join(''), q: (sql: string) => queryFile(db, sql) };
}

describe('every item type of the client\'s models through ingest', () => {
  it('an AI Mode answer lands typed: the answer, every kind of its parts, and its cited sources', async () => {
    const result: Record<string, unknown> = { ...(sample('SerpGoogleAiModeTaskGetAdvancedResultInfo', 0, 0) as Record<string, unknown>), keyword: 'best running shoes', type: 'ai_mode' };
    const items = result.items as Record<string, unknown>[];
    const { summary, q } = await ingestPage(['v3', 'serp', 'google', 'ai_mode', 'task_get', 'advanced'],
      { api: 'serp', function: 'task_get', se: 'google', se_type: 'ai_mode', keyword: 'best running shoes', location_code: 2840, language_code: 'en' }, result);
    expect(summary).not.toMatch(/unknown fields|unknown item types|unexpected type/);
    const rows = await q(`SELECT item_type, markdown, extra FROM serp_results__items`);
    expect(rows).toHaveLength(items.length);
    expect(rows.every((r) => r.item_type === 'ai_overview' && r.extra === null && typeof r.markdown === 'string')).toBe(true);
    const parts = await q(`SELECT DISTINCT item_type FROM serp_results__items__ai_overview_elements`);
    expect(parts.map((r) => r.item_type).sort()).toEqual(Object.keys(SERP_ITEM_CLASSES.BaseSerpApiAiModeAiOverviewElementItem).sort());
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__ai_overview_elements WHERE extra IS NOT NULL`))[0].n).toBe(0n);
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__ai_overview_references`))[0].n).toBeGreaterThan(0n);
  });

  it('lands typed: nothing in extra, no bad value; an unknown type is kept and reported', async () => {
    const types = Object.entries(SERP_ITEM_CLASSES.BaseSerpApiElementItem);
    const items: Record<string, unknown>[] = types.map(([name, cls], i) => ({ ...(sample(cls, 0, i, name) as object), rank_absolute: i + 1, rank_group: 1, page: 1 }));
    items.push({ type: 'ai_cheat_sheet', rank_group: 1, rank_absolute: items.length + 1, page: 1, position: 'left', xpath: '/x', title: 'A future feature', cards: [{ q: 'a' }] });
    const result = { ...(sample('SerpGoogleOrganicTaskGetAdvancedResultInfo', 0, 0) as object), keyword: 'running shoes', type: 'organic', items, items_count: items.length, item_types: items.map((i) => i.type) };
    const envelope = {
      version: '0.1.20250101', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
      tasks: [{ id: '11231200-1535-0066-0000-aaaaaaaaaaaa', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0.0006, result_count: 1,
        path: ['v3', 'serp', 'google', 'organic', 'task_get', 'advanced', '11231200-1535-0066-0000-aaaaaaaaaaaa'],
        data: { api: 'serp', function: 'task_get', se: 'google', se_type: 'organic', keyword: 'running shoes', location_code: 2840, language_code: 'en', device: 'desktop' }, result: [result] }],
    };
    const root = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-serp-all-'));
    dirs.push(root);
    writeFileSync(path.join(root, 'page.json'), JSON.stringify(envelope));
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as never;
    try {
      expect(await ingestCommand({ root, files: [path.join(root, 'page.json')] })).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const summary = out.join('');
    expect(summary).toMatch(/unknown item types kept: 1 \(serp_results__items:ai_cheat_sheet x1\)/);
    // The only field kept in extra is the unknown type's own.
    expect(summary).toMatch(/unknown fields kept in extra: 1 \(serp_results__items.cards x1\)/);
    expect(summary).not.toMatch(/values of an unexpected type/);

    const db = warehousePaths(path.resolve(root, loadConfig({ root }).warehouse.dir)).published;
    const q = (sql: string) => queryFile(db, sql);
    // Every table of the family: no row keeps a declared field in extra (the unknown type's row keeps its own).
    const held = new Set((await q(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
    for (const t of AVAILABLE_TABLES.filter((x) => x.name.startsWith('serp_results') && x.extra && held.has(x.name))) {
      const kept = await q(`SELECT extra FROM "${t.name}" WHERE extra IS NOT NULL`);
      if (t.name === 'serp_results__items') expect(kept.map((r) => JSON.parse(String(r.extra)))).toEqual([{ cards: [{ q: 'a' }] }]);
      else expect(kept, t.name).toEqual([]);
    }
    // PostgreSQL keeps 63 characters of a name: longer SERP table names would collide there.
    expect(ALWAYS_IN_USE.filter((t) => t.name.startsWith('serp_') && t.name.length > 63).map((t) => t.name)).toEqual([]);
    const typed = await q(`SELECT item_type, count(*) AS n FROM serp_results__items GROUP BY item_type`);
    expect(typed.map((r) => r.item_type).sort()).toEqual([...types.map(([t]) => t), 'ai_cheat_sheet'].sort());
    // The AI Overview: the overview row, its parts, its cited sources with their order.
    const [ai] = await q(`SELECT asynchronous_ai_overview, markdown, rectangle_width FROM serp_results__items WHERE item_type = 'ai_overview'`);
    expect(ai).toMatchObject({ asynchronous_ai_overview: true, markdown: expect.any(String), rectangle_width: expect.any(Number) });
    const refs = await q(`SELECT r.domain, r.url, r.title, r._list_idx FROM serp_results__items__ai_overview_references r JOIN serp_results__items i ON i._id = r._parent_id WHERE i.item_type = 'ai_overview' ORDER BY r._list_idx`);
    expect(refs.map((r) => r.domain)).toEqual(['site0.example', 'site1.example']);
    const parts = await q(`SELECT item_type FROM serp_results__items__ai_overview_elements ORDER BY _list_idx`);
    expect(parts.map((r) => r.item_type)).toEqual(Object.keys(SERP_ITEM_CLASSES.BaseSerpApiAiOverviewElementItem));
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__ai_overview_elements__references`))[0].n).toBeGreaterThan(0n);
    // People also ask: the AI-overview answer's parts and sources.
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__people_also_ask__expanded__ai`))[0].n).toBeGreaterThan(0n);
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__people_also_ask__expanded__refs`))[0].n).toBeGreaterThan(0n);
    // Every knowledge-graph part, and the elements of its lists.
    const kg = await q(`SELECT DISTINCT item_type FROM serp_results__items__knowledge_graph`);
    expect(kg.map((r) => r.item_type).sort()).toEqual(Object.keys(SERP_ITEM_CLASSES.BaseSerpApiKnowledgeGraphElementItem).sort());
    expect((await q(`SELECT count(*) AS n FROM serp_results__items__knowledge_graph__elements`))[0].n).toBeGreaterThan(0n);
    // Features without a table of their own: their elements typed.
    const el = await q(`SELECT i.item_type AS feature, e.title, e.url FROM serp_results__items__elements e JOIN serp_results__items i ON i._id = e._parent_id WHERE i.item_type = 'discussions_and_forums'`);
    expect(el[0]).toMatchObject({ title: 's0', url: 'https://site0.example/p' });
    // Times the models declare are timestamps here too, not text; a count the specification types integer, a whole number.
    const [when] = await q(`SELECT e.timestamp, typeof(e.timestamp) AS t FROM serp_results__items__elements e JOIN serp_results__items i ON i._id = e._parent_id WHERE i.item_type = 'discussions_and_forums' AND e.timestamp IS NOT NULL LIMIT 1`);
    expect(when.t).toBe('TIMESTAMP WITH TIME ZONE');
    expect(when.timestamp).toBeInstanceOf(Date);
    expect((await q(`SELECT typeof(votes) AS t FROM serp_results__items__elements LIMIT 1`))[0].t).toBe('BIGINT');
    // Popular products: each product's price and identifiers (gid) in typed columns, not JSON.
    const product = ((items.find((i) => i.type === 'popular_products')!.items) as Record<string, any>[])[0];
    const [pp] = await q(`SELECT e.price_current, e.price_regular, e.price_currency, e.price_is_price_range, e.price_displayed_price, e.product_identifiers_gid, e.product_identifiers_product_id
      FROM serp_results__items__elements e JOIN serp_results__items i ON i._id = e._parent_id WHERE i.item_type = 'popular_products' ORDER BY e._list_idx LIMIT 1`);
    expect(pp).toEqual({
      price_current: product.price.current, price_regular: product.price.regular, price_currency: product.price.currency, price_is_price_range: product.price.is_price_range,
      price_displayed_price: product.price.displayed_price, product_identifiers_gid: product.product_identifiers.gid, product_identifiers_product_id: product.product_identifiers.product_id,
    });
    // The answer box's text (a list of lines): one typed row per line, in order.
    const box = items.find((i) => i.type === 'answer_box')!;
    const lines = await q(`SELECT t.text FROM serp_results__items__text t JOIN serp_results__items i ON i._id = t._parent_id WHERE i.item_type = 'answer_box' ORDER BY t._list_idx`);
    expect(lines.map((r) => r.text)).toEqual(box.text);
  });
});
