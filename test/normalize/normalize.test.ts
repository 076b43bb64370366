import { describe, expect, it } from 'vitest';
import { coerce, normalizeTask, NormalizeStats, tablesOfTask, type Row } from '../../src/normalize/extract.js';
import { TABLE_BY_NAME } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { task, keywordTask, merchantTask, technologyTask, onpageTask, eventsTask, eventsHtmlTask, listTasks } from './fixtures.js';

const ctx = { runId: 'run-1', loadedAt: new Date('2026-01-15T12:00:00Z'), engines: ['engine_a'] };
const rowsOf = (out: Map<string, Row[]>, t: string) => out.get(t) ?? [];

function expectCatalogShape(out: Map<string, Row[]>): void {
  for (const [name, rows] of out) {
    const def = TABLE_BY_NAME.get(name)!;
    const cols = allColumns(def).map((c) => c.name).sort();
    for (const r of rows) expect(Object.keys(r).sort(), `${name} row keys`).toEqual(cols);
    const ids = rows.map((r) => r._id);
    expect(new Set(ids).size, `${name} ids unique`).toBe(ids.length);
  }
}

describe('keyword data', () => {
  it('gives one row per keyword with monthly searches and categories as child rows linked by _parent_id', () => {
    const t = keywordTask('K1', 6, 3);
    const out = normalizeTask(t, ctx);
    expectCatalogShape(out);
    const result = t.task.result as any[];
    const kw = rowsOf(out, 'keyword_data');
    expect(kw.map((r) => r.keyword)).toEqual(result.map((r) => r.keyword));
    expect(kw.every((r) => r.function === 'keywords_for_site' && r._task_id === 'K1' && r._run_id === 'run-1')).toBe(true);
    expect(kw.map((r) => r._id)).toEqual(result.map((_, i) => `K1:${i}`));
    const monthly = rowsOf(out, 'keyword_data__monthly_searches');
    expect(monthly.length).toBe(result.reduce((n, r) => n + (r.monthly_searches?.length ?? 0), 0));
    const first = result.findIndex((r) => r.monthly_searches);
    const firstRows = monthly.filter((m) => m._parent_id === `K1:${first}`);
    expect(firstRows.map((m) => [m.year, m.month, m.search_volume, m._list_idx])).toEqual(result[first].monthly_searches.map((m: any, j: number) => [m.year, m.month, m.search_volume, j]));
    const cats = rowsOf(out, 'keyword_data__categories');
    expect(cats.map((c) => c.category_code)).toEqual(result.flatMap((r) => r.categories ?? []));
    const taskRow = rowsOf(out, 'tasks')[0];
    expect(taskRow).toMatchObject({ _id: 'K1@keywords_for_site.task_get', endpoint_id: 'keywords_for_site.task_get', status_code: 20000, time_seconds: 0.0818, target: 'K1.example.com', tag: 't-K1', api_version: '0.1.20240801', path: 'v3/keywords_for_site/task_get', extra: null });
  });

  it('is deterministic: the same task gives the same rows and ids', () => {
    expect(normalizeTask(keywordTask('K2', 4, 9), ctx)).toEqual(normalizeTask(keywordTask('K2', 4, 9), ctx));
  });

  it('keeps nulls where the reference allows them and makes no child rows from null or empty lists', () => {
    const out = normalizeTask(task('K3', 'keywords_for_keywords.task_get', [
      { keyword: 'a', location_code: null, language_code: null, search_partners: false, competition: null, cpc: null, search_volume: null, categories: null, monthly_searches: null },
      { keyword: 'b', location_code: 2840, language_code: 'en', search_partners: true, competition: 0.5, cpc: 1.25, search_volume: 10, categories: [], monthly_searches: [] },
    ], { api: 'keywords_data', function: 'keywords_for_keywords', keywords: ['a', 'b'] }), ctx);
    expectCatalogShape(out);
    expect(rowsOf(out, 'keyword_data')[0]).toMatchObject({ location_code: null, competition: null, cpc: null, search_volume: null, function: 'keywords_for_keywords', extra: null });
    expect(rowsOf(out, 'keyword_data__monthly_searches')).toEqual([]);
    expect(rowsOf(out, 'keyword_data__categories')).toEqual([]);
    expect(rowsOf(out, 'tasks__keywords').map((r) => [r.keyword, r._parent_id, r._list_idx])).toEqual([['a', 'K3@keywords_for_keywords.task_get', 0], ['b', 'K3@keywords_for_keywords.task_get', 1]]);
  });

  it('keeps unknown fields in extra, counts them, and keeps a value of the wrong type instead of dropping it', () => {
    const stats = new NormalizeStats();
    const out = normalizeTask(task('K4', 'keywords_for_site.task_get', [
      { keyword: 'x', search_volume: 'lots', brand_new_metric: 42, keyword_annotations: { concepts: [] }, monthly_searches: [{ year: 2025, month: 1, search_volume: 5, surprise: true }] },
    ], { api: 'keywords_data', function: 'keywords_for_site', brand_new_param: 1 }), ctx, stats);
    const kw = rowsOf(out, 'keyword_data')[0];
    expect(kw.search_volume).toBeNull();
    expect(JSON.parse(kw.extra as string)).toEqual({ brand_new_metric: 42, keyword_annotations: { concepts: [] }, search_volume: 'lots' });
    expect(JSON.parse(rowsOf(out, 'keyword_data__monthly_searches')[0].extra as string)).toEqual({ surprise: true });
    expect(JSON.parse(rowsOf(out, 'tasks')[0].extra as string)).toEqual({ data: { brand_new_param: 1 } });
    expect(Object.fromEntries(stats.unknownFields)).toEqual({
      'keyword_data.brand_new_metric': 1, 'keyword_data.keyword_annotations': 1, 'keyword_data__monthly_searches.surprise': 1, 'tasks.data.brand_new_param': 1,
    });
    expect(stats.badValueCount).toBe(1);
  });

  it('a request field the endpoint declares, echoed in data (load_async_ai_overview), is kept in extra but not counted unknown', () => {
    const stats = new NormalizeStats();
    const echo = { api: 'serp', function: 'task_get', se: 'google', se_type: 'organic', keyword: 'shoes', load_async_ai_overview: true, brand_new_param: 1 };
    const out = normalizeTask(task('S1', 'serp.google.organic.task_get.advanced', [], echo), ctx, stats);
    expect(JSON.parse(rowsOf(out, 'tasks')[0].extra as string)).toEqual({ data: { load_async_ai_overview: true, brand_new_param: 1 } });
    expect(Object.fromEntries(stats.unknownFields)).toEqual({ 'tasks.data.brand_new_param': 1 });
    // The live call declares it too (the task echoes its own request).
    const live = new NormalizeStats();
    normalizeTask(task('S2', 'serp.google.organic.live.advanced', [], { ...echo, brand_new_param: undefined }), ctx, live);
    expect(live.unknownFieldCount).toBe(0);
  });

  it('records a task with an error status as a failed task with no result rows', () => {
    const stats = new NormalizeStats();
    const out = normalizeTask(task('K5', 'keywords_for_site.task_get', null, { api: 'keywords_data' }, { status_code: 40401, status_message: 'Task Not Found.' }), ctx, stats);
    expect([...out.keys()]).toEqual(['tasks']);
    expect(rowsOf(out, 'tasks')[0]).toMatchObject({ status_code: 40401, status_message: 'Task Not Found.', result_count: 0 });
    expect(stats.failedTasks).toBe(1);
  });

  it('gives nothing for a task_post answer (posting is the ledger\'s) and lists the tables a task replaces', () => {
    expect(normalizeTask(task('P1', 'keywords_for_site.task_post', null), ctx).size).toBe(0);
    expect(tablesOfTask('keywords_for_site.task_post')).toEqual([]);
    expect(tablesOfTask('keywords_for_site.task_get')).toEqual(['tasks', 'tasks__keywords', 'tasks__search_terms', 'keyword_data', 'keyword_data__monthly_searches', 'keyword_data__categories']);
  });
});

describe('merchant shopping', () => {
  it('types every item type, flattens ratings, delivery and special offers, and makes images and tags child rows', () => {
    const t = merchantTask('M1');
    const out = normalizeTask(t, ctx);
    expectCatalogShape(out);
    const res = (t.task.result as any[])[0];
    const items = rowsOf(out, 'merchant_shopping__items');
    expect(items.length).toBe(res.items.length);
    expect(new Set(items.map((i) => i.item_type))).toEqual(new Set(['shopping_sponsored_carousel', 'shopping_carousel', 'shopping_paid', 'shopping_serp', 'related_searches']));
    expect(items.every((i) => typeof i.type === 'string' && (i.type as string).endsWith(i.item_type as string))).toBe(true);
    expect(items.every((i) => i.extra === null)).toBe(true);
    const serpIdx = res.items.findIndex((i: any) => i.type === 'engine_a_shopping_serp');
    const serp = items[serpIdx];
    const src = res.items[serpIdx];
    expect(serp.price).toBe(src.price);
    expect(serp.product_rating_value).toBe(Number(src.product_rating.value));
    expect(serp.product_rating_max).toBe(src.product_rating.rating_max);
    expect(serp.delivery_message).toBe(src.delivery_info.delivery_message);
    expect(rowsOf(out, 'merchant_shopping__items__product_images').filter((r) => r._parent_id === serp._id).map((r) => r.url)).toEqual(src.product_images ?? []);
    // stores_count_info is read on the item (live) and inside delivery_info (reference), typed as numbers.
    expect(serp.stores_count).toBe(src.stores_count_info.count);
    expect(serp.gid).toBe(src.gid);
    expect(serp.delivery_date_from).toEqual(new Date(src.delivery_info.delivery_date_from.replace(' +00:00', 'Z')));
    const reference = normalizeTask(task('M1r', 'merchant.google.products.task_get.advanced', [{ keyword: 'k', items: [{ type: 'engine_a_shopping_serp', delivery_info: { stores_count_info: { count: '7', displayed_text: '7 stores', count_from_text: true } } }] }]), ctx);
    expect(rowsOf(reference, 'merchant_shopping__items')[0]).toMatchObject({ stores_count: 7, stores_count_displayed_text: '7 stores', stores_count_from_text: true, extra: null });
    const allElements = rowsOf(out, 'merchant_shopping__items__elements');
    const carouselIdx = res.items.findIndex((i: any) => i.type === 'engine_a_shopping_sponsored_carousel');
    const carousel = res.items[carouselIdx];
    const elements = allElements.filter((e) => e._parent_id === items[carouselIdx]._id);
    expect(elements.length).toBe(carousel.items.length);
    expect(elements.every((e) => e.item_type === 'shopping_sponsored_carousel_element')).toBe(true);
    const organicIdx = res.items.findIndex((i: any) => i.type === 'engine_a_shopping_carousel');
    const organic = allElements.filter((e) => e._parent_id === items[organicIdx]._id);
    expect(organic.length).toBe(res.items[organicIdx].items.length);
    expect(organic[0]).toMatchObject({ item_type: 'shopping_carousel_element', gid: res.items[organicIdx].items[0].gid, product_id: res.items[organicIdx].items[0].product_id, shopping_url: expect.any(String), extra: null });
    const withOffer = carousel.items.findIndex((e: any) => e.special_offer_info);
    expect(withOffer).toBeGreaterThanOrEqual(0);
    expect(elements[withOffer].special_offer_title).toBe(carousel.items[withOffer].special_offer_info.title);
    const related = res.items.find((i: any) => i.type === 'related_searches');
    expect(rowsOf(out, 'merchant_shopping__items__related_searches').map((r) => r.keyword)).toEqual((related.items ?? []).map((x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x))));
    expect(rowsOf(out, 'merchant_shopping')[0]).toMatchObject({ keyword: res.keyword, datetime: expect.any(Date), extra: null });
  });

  it('stores the same neutral item types whatever the engine is called', () => {
    const live = normalizeTask(merchantTask('M2', 'google'), { ...ctx, engines: ['google'] });
    const sandbox = normalizeTask(merchantTask('M2', 'engine_a'), ctx);
    const types = (o: Map<string, Row[]>) => rowsOf(o, 'merchant_shopping__items').map((r) => r.item_type);
    expect(types(live)).toEqual(types(sandbox));
    expect(rowsOf(live, 'merchant_shopping__items')[0].type).toMatch(/^google_/);
  });

  it('keeps an item type it does not know, with its common columns and the rest in extra, and counts it', () => {
    const stats = new NormalizeStats();
    const out = normalizeTask(task('M3', 'merchant.google.products.task_get.advanced', [{
      keyword: 'k', type: 'shopping', items_count: 2, item_types: ['google_shopping_hologram'],
      items: [{ type: 'google_shopping_hologram', rank_group: 1, rank_absolute: 1, position: 'left', xpath: '/x', glow: 'bright', items: [1, 2] }, null],
    }], { se: 'google' }), { ...ctx, engines: ['google'] }, stats);
    const items = rowsOf(out, 'merchant_shopping__items');
    expect(items[0]).toMatchObject({ item_type: 'shopping_hologram', rank_group: 1, xpath: '/x' });
    expect(JSON.parse(items[0].extra as string)).toEqual({ glow: 'bright', items: [1, 2] });
    expect(items[1]).toMatchObject({ item_type: null, extra: null });
    expect(Object.fromEntries(stats.unknownItemTypes)).toEqual({ 'merchant_shopping__items:shopping_hologram': 1 });
  });

  it('keeps an item whose type is not text: no item type, the value in extra, counted as a bad value', () => {
    const stats = new NormalizeStats();
    const out = normalizeTask(task('M4', 'merchant.google.products.task_get.advanced', [{
      keyword: 'k', type: 'shopping', items_count: 1, items: [{ type: 1, rank_group: 1, title: 'a' }],
    }], { se: 'google' }), { ...ctx, engines: ['google'] }, stats);
    const items = rowsOf(out, 'merchant_shopping__items');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ item_type: null, rank_group: 1 });
    expect(JSON.parse(items[0].extra as string)).toMatchObject({ type: 1 });
    expect(stats.badValueCount).toBeGreaterThan(0);
  });
});

describe('domain technologies', () => {
  it('makes technologies (group, category, technology) rows and phone numbers, emails and social links child rows', () => {
    const t = technologyTask('D1', 9);
    const out = normalizeTask(t, ctx);
    expectCatalogShape(out);
    const items = (t.task.result as any[])[0].items as any[];
    const tech = rowsOf(out, 'domain_technologies__items__technologies');
    const expected = items.flatMap((it) => Object.entries(it.technologies as Record<string, Record<string, string[]>>).flatMap(([g, cats]) => Object.entries(cats).flatMap(([c, names]) => names.map((n) => [g, c, n]))));
    expect(tech.map((r) => [r.group, r.category, r.technology])).toEqual(expected);
    expect(new Set(tech.map((r) => r.group)).size).toBe(9);
    expect(rowsOf(out, 'domain_technologies__items__emails').length).toBe(items.reduce((n, i) => n + (i.emails?.length ?? 0), 0));
    expect(rowsOf(out, 'domain_technologies__items').every((r) => r.last_visited instanceof Date && r.extra === null)).toBe(true);
    expect(rowsOf(out, 'tasks__search_terms').map((r) => r.search_term)).toEqual(['shop', 'cart']);
  });
});

describe('on-page resources', () => {
  it('gives checks as boolean columns, timings, cache control, last_modified and errors/warnings as child rows', () => {
    const t = onpageTask('O1');
    const out = normalizeTask(t, ctx);
    expectCatalogShape(out);
    const items = (t.task.result as any[])[0].items as any[];
    const rows = rowsOf(out, 'onpage_resources__items');
    expect(rows.every((r) => r.extra === null)).toBe(true);
    rows.forEach((r, i) => {
      for (const [k, v] of Object.entries(items[i].checks)) expect(r[`check_${k}`]).toBe(v);
      expect(r.fetch_duration_ms).toBe(items[i].fetch_timing.duration_time);
      expect(r.cachable).toBe(items[i].cache_control.cachable);
      expect(r.last_modified_header === null || r.last_modified_header instanceof Date).toBe(true);
    });
    expect(rowsOf(out, 'onpage_resources__items__errors').length).toBe(items.reduce((n, i) => n + i.resource_errors.errors.length, 0));
    expect(rowsOf(out, 'onpage_resources__items__warnings').length).toBe(items.reduce((n, i) => n + i.resource_errors.warnings.length, 0));
  });
});

describe('lists, events and the rest', () => {
  it('normalizes every other result kind into its table with nothing left in extra', () => {
    const stats = new NormalizeStats();
    const all = [...listTasks(), eventsTask('E1', 'advanced'), eventsTask('E2', 'regular'), eventsHtmlTask('E3')];
    const byTable = new Map<string, Row[]>();
    for (const t of all) for (const [k, v] of normalizeTask(t, ctx, stats)) byTable.set(k, [...(byTable.get(k) ?? []), ...v]);
    expectCatalogShape(byTable);
    expect(stats.unknownFieldCount).toBe(0);
    expect(stats.badValueCount).toBe(0);
    expect(rowsOf(byTable, 'events_locations').length).toBe(5);
    expect(rowsOf(byTable, 'serp_endpoints').map((r) => r.path)).toEqual(['v3/serp/engine_a/organic/task_get/advanced/$id', 'v3/serp/engine_b/organic/live/html']);
    expect(rowsOf(byTable, 'paraphrases')[0].generated_text).toEqual(expect.any(String));
    expect(rowsOf(byTable, 'fixed_tasks')[0].date_fixed).toEqual(new Date('2026-01-15T10:00:00Z'));
    expect(rowsOf(byTable, 'ready_tasks')[0]).toMatchObject({ ready_task_id: 'K1', endpoint: '/v3/keywords_data/engine_a/keywords_for_site/task_get/K1' });
    expect(rowsOf(byTable, 'domain_errors')[0]).toMatchObject({ error_code: 50401, http_time: 10.02, datetime: new Date('2026-01-14T08:00:00Z') });
    const ev = rowsOf(byTable, 'events_serp__items');
    expect(ev.length).toBeGreaterThan(0);
    expect(ev.every((r) => r.item_type === 'event_item' && typeof r.venue_cid === 'string')).toBe(true);
    // A zoned time is an instant; a local time without a zone is kept as written, flagged, and never read as UTC.
    expect(ev.every((r) => (r.start_datetime_has_zone ? r.start_datetime instanceof Date && r.start_datetime_local === null : r.start_datetime === null && typeof r.start_datetime_local === 'string'))).toBe(true);
    expect(rowsOf(byTable, 'events_html__items').length).toBeGreaterThan(0);
  });

  it('keeps results of an endpoint outside the catalog whole in unknown_results', () => {
    const out = normalizeTask(task('U1', 'unknown:v3/backlinks/summary/live', [{ a: 1 }]), ctx);
    expect(rowsOf(out, 'unknown_results')[0]).toMatchObject({ _id: 'U1:0', result: '{"a":1}' });
  });
});

describe('coerce: the time formats the models declare', () => {
  const asTime = (v: unknown) => { const d = coerce(v, 'TIMESTAMPTZ'); return d instanceof Date ? d.toISOString() : typeof d; };
  it('reads the service\'s time, ISO 8601 with fractions, and a date as its midnight UTC', () => {
    expect(asTime('2024-03-18 09:41:07 +00:00')).toBe('2024-03-18T09:41:07.000Z');
    expect(asTime('2024-03-18 11:41:07 +02:00')).toBe('2024-03-18T09:41:07.000Z');
    expect(asTime('2020-09-12T00:07:43.0733218Z')).toBe('2020-09-12T00:07:43.073Z');
    expect(asTime('2019-01-15')).toBe('2019-01-15T00:00:00.000Z');
  });
  it('keeps what is no time out of the column (the row keeps it in extra)', () => {
    expect(asTime('2019-02-30')).toBe('symbol');
    expect(asTime('last week')).toBe('symbol');
    expect(coerce(12.5, 'BIGINT')).not.toBe(12.5);
    expect(coerce('40', 'BIGINT')).toBe(40);
  });
});
