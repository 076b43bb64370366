import { describe, expect, test } from 'vitest';
import { endpoint, matchPath, resolvePath, ENDPOINTS } from '../../src/api/catalog.js';
import { validateTask, countTokens } from '../../src/api/validate.js';
import { taskPrice } from '../../src/api/pricing.js';

const engines = { engine_a: 'google', engine_b: 'bing', engine_c: 'yahoo', engine_d: 'baidu', keywords_data: 'google_ads', keywords_data_legacy: 'google', merchant: 'google' };
const events = endpoint('serp.events.task_post');
const ok = { keyword: 'concerts', location_code: 2840 };
const fieldsOf = (def: ReturnType<typeof endpoint>, t: unknown) => validateTask(def, t).map((i) => `${i.field}:${i.code}`);

describe('endpoint catalog', () => {
  test('ids are unique and every path starts with /v3', () => {
    expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length);
    for (const e of ENDPOINTS) expect(e.path.startsWith('/v3/')).toBe(true);
  });
  test('paths resolve with configured engines and match back', () => {
    const p = resolvePath(endpoint('merchant.google.products.task_get.advanced'), engines, { id: 'abc' });
    expect(p).toBe('/v3/merchant/google/products/task_get/advanced/abc');
    const m = matchPath('GET', p, engines);
    expect(m?.def.id).toBe('merchant.google.products.task_get.advanced');
    expect(m?.id).toBe('abc');
    expect(matchPath('GET', '/v3/merchant/engine_a/products/task_get/advanced/abc', engines)).toBeUndefined();
    expect(matchPath('GET', '/v3/merchant/engine_a/products/task_get/advanced/abc', engines, { anyEngine: true })?.engineSegment).toBe('engine_a');
  });
});

describe('validateTask', () => {
  test('a valid events task passes', () => expect(validateTask(events, ok)).toEqual([]));
  test('keyword over 700 characters', () => {
    const [i] = validateTask(events, { ...ok, keyword: 'k'.repeat(701) });
    expect(i).toMatchObject({ field: 'keyword', code: 40501 });
    expect(i.message).toContain('at most 700');
    expect(validateTask(events, { ...ok, keyword: 'k'.repeat(700) })).toEqual([]);
  });
  test('tag over 255 characters, depth over 700', () => {
    expect(fieldsOf(events, { ...ok, tag: 't'.repeat(256) })).toEqual(['tag:40501']);
    expect(fieldsOf(events, { ...ok, depth: 701 })).toEqual(['depth:40501']);
    expect(fieldsOf(events, { ...ok, depth: 700, tag: 't'.repeat(255) })).toEqual([]);
  });
  test('radius must be 199.9..199999 and coordinates at most 7 decimals', () => {
    expect(fieldsOf(events, { keyword: 'x', location_coordinate: '52.52,13.40,199.8' })).toEqual(['location_coordinate:40501']);
    expect(fieldsOf(events, { keyword: 'x', location_coordinate: '52.52,13.40,200000' })).toEqual(['location_coordinate:40501']);
    expect(fieldsOf(events, { keyword: 'x', location_coordinate: '52.12345678,13.40,500' })).toEqual(['location_coordinate:40501']);
    expect(fieldsOf(events, { keyword: 'x', location_coordinate: '52.1234567,13.40,199.9' })).toEqual([]);
  });
  test('no location parameter at all', () => {
    const issues = validateTask(events, { keyword: 'x' });
    expect(issues).toHaveLength(1);
    expect(issues[0].message).toContain('location_code, location_name, location_coordinate');
  });
  test('unknown fields are 40506, postback_data needed with postback_url', () => {
    expect(fieldsOf(events, { ...ok, colour: 'red' })).toEqual(['colour:40506']);
    expect(fieldsOf(events, { ...ok, postback_url: 'http://127.0.0.1/cb?id=$id' })).toEqual(['postback_data:40501']);
  });
  test('filters: operators, nesting and the 8-condition cap', () => {
    const res = endpoint('on_page.resources');
    const id = '00000000-0000-0000-0000-000000000001';
    const c = ['resource_type', '=', 'image'];
    expect(validateTask(res, { id, filters: c })).toEqual([]);
    expect(validateTask(res, { id, filters: [c, 'and', [c, 'or', ['size', '>', 10]]] })).toEqual([]);
    const eight = Array.from({ length: 15 }, (_, i) => (i % 2 ? 'and' : c));
    expect(validateTask(res, { id, filters: eight })).toEqual([]);
    const nine = Array.from({ length: 17 }, (_, i) => (i % 2 ? 'or' : c));
    expect(validateTask(res, { id, filters: nine })[0].rule).toContain('at most 8 conditions');
    expect(validateTask(res, { id, filters: [['size', '~', 1]] })[0].rule).toContain('operator');
    expect(validateTask(res, { id, filters: [c, 'xor', c] })[0].rule).toContain('"and" or "or"');
  });
  test('limit + offset over 10000 on domains by HTML terms', () => {
    const terms = endpoint('domain_analytics.technologies.domains_by_html_terms.live');
    expect(fieldsOf(terms, { search_terms: ['<b>'], limit: 5000, offset: 5001 })).toEqual(['limit+offset:40501']);
    expect(fieldsOf(terms, { search_terms: ['<b>'], limit: 5000, offset: 5000 })).toEqual([]);
    expect(fieldsOf(terms, { search_terms: ['<b>'], offset: 10000 })).toContain('offset:40501');
    expect(fieldsOf(terms, { search_terms: ['<b>'], order_by: ['domain_rank,desc', 'title,asc'] })).toEqual(['order_by[1]:40501']);
  });
  test('paraphrase tokens and creativity index', () => {
    const p = endpoint('content_generation.paraphrase.live');
    expect(countTokens('Hello, world!')).toBe(4);
    expect(fieldsOf(p, { text: 'a '.repeat(501), creativity_index: 0.5 })).toEqual(['text:40501']);
    expect(fieldsOf(p, { text: 'hi', creativity_index: 1.1 })).toEqual(['creativity_index:40501']);
    expect(fieldsOf(p, { text: 'hi' })).toEqual(['creativity_index:40501']);
  });
  test('E13 timestamps within the last 7 days', () => {
    const errs = endpoint('domain_analytics.errors');
    const now = new Date('2026-11-21T12:00:00Z');
    expect(validateTask(errs, { datetime_from: '2026-11-20 00:00:00 +00:00' }, { now })).toEqual([]);
    expect(validateTask(errs, { datetime_from: '2026-11-01 00:00:00 +00:00' }, { now })[0].field).toBe('datetime_from');
  });
  test('keywords_for_keywords: at most 200 keywords', () => {
    const k = endpoint('keywords_for_keywords.task_post');
    expect(fieldsOf(k, { keywords: Array.from({ length: 201 }, (_, i) => `k${i}`) })).toEqual(['keywords:40501']);
    expect(fieldsOf(k, { keywords: Array.from({ length: 200 }, (_, i) => `k${i}`) })).toEqual([]);
  });
});

describe('pricing', () => {
  const prices = { 'serp.events.task_post': { per_task: 0.0006, per_extra_10_results: 0.0006, priority_2_multiplier: 2 } };
  test('depth adds a SERP page per 10 results and priority 2 doubles', () => {
    expect(taskPrice(events, { depth: 10 }, prices)).toBe(0.0006);
    expect(taskPrice(events, { depth: 25 }, prices)).toBe(0.0018);
    expect(taskPrice(events, { depth: 25, priority: 2 }, prices)).toBe(0.0036);
    expect(taskPrice(endpoint('serp.events.tasks_fixed'), {}, prices)).toBe(0);
  });
});
