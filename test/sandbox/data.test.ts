/** Result shapes field by field, determinism, coverage of every item type, filters and paging. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { start, client, pathOf, TIMESTAMP, ZERO, type Started } from './helpers.js';
import { generateKeywordData } from '../../src/sandbox/families/keywords_data/data.js';
import { generateMerchant } from '../../src/sandbox/families/merchant/data.js';
import { GROUP_NAMES } from '../../src/sandbox/families/domain_analytics/technologies.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ completion_delay_ms: 0, rate_limit_calls: 100000, keywords_per_site_task: 50, suggestions_per_keyword: 4, merchant_items: 12 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());
beforeEach(() => s.sandbox.controls.reset());

async function postGet(postId: string, getId: string, task: Record<string, unknown>) {
  const id = (await api.post(pathOf(postId), [task])).json.tasks[0].id;
  return (await api.get(pathOf(getId, id))).json.tasks[0];
}

describe('keyword data', () => {
  it('same parameters give the same result, in any key order; other parameters give another', async () => {
    const a = await postGet('keywords_for_site.task_post', 'keywords_for_site.task_get', { target: 'shop.example.com', location_code: 2840, language_code: 'en' });
    const b = await postGet('keywords_for_site.task_post', 'keywords_for_site.task_get', { language_code: 'en', location_code: 2840, target: 'shop.example.com' });
    const c = await postGet('keywords_for_site.task_post', 'keywords_for_site.task_get', { target: 'other.example.com', location_code: 2840, language_code: 'en' });
    expect(a.id).not.toBe(b.id);
    expect(a.result).toEqual(b.result);
    expect(a.result).not.toEqual(c.result);
  });
  it('items have every field; monthly_searches hold 12 months, newest first; nulls occur where allowed', async () => {
    const t = await postGet('keywords_for_site.task_post', 'keywords_for_site.task_get', { target: 'shop.example.com', location_code: 2840, search_partners: true });
    expect(t.result).toHaveLength(50);
    const keys = ['keyword', 'location_code', 'language_code', 'search_partners', 'competition', 'cpc', 'search_volume', 'categories', 'monthly_searches'];
    for (const k of t.result) {
      expect(Object.keys(k)).toEqual(keys);
      expect([k.location_code, k.language_code, k.search_partners]).toEqual([2840, 'en', true]);
      if (k.competition !== null) expect(k.competition).toBeGreaterThanOrEqual(0);
      if (k.competition !== null) expect(k.competition).toBeLessThanOrEqual(1);
      if (k.monthly_searches) {
        expect(k.monthly_searches).toHaveLength(12);
        const [y, m] = [k.monthly_searches[0].year, k.monthly_searches[0].month];
        expect(y * 12 + m).toBe(k.monthly_searches[11].year * 12 + k.monthly_searches[11].month + 11);
      }
    }
    expect(new Set(t.result.map((k: any) => k.keyword)).size).toBe(50);
    const many = generateKeywordData({ target: 'big.example.com' }, 700, 7);
    for (const f of ['competition', 'cpc', 'search_volume', 'categories', 'monthly_searches'] as const) {
      expect(many.some((k) => k[f] === null), f).toBe(true);
      expect(many.some((k) => k[f] !== null), f).toBe(true);
    }
  });
  it('keywords_for_keywords: suggestions per input keyword, and sort_by orders them', async () => {
    const t = await postGet('keywords_for_keywords.task_post', 'keywords_for_keywords.task_get', { keywords: ['running shoes', 'trail shoes'], sort_by: 'search_volume' });
    expect(t.data.keywords).toEqual(['running shoes', 'trail shoes']);
    expect(t.result).toHaveLength(8);
    const volumes = t.result.map((k: any) => k.search_volume ?? -1);
    expect(volumes).toEqual([...volumes].sort((a: number, b: number) => b - a));
  });
  it('generates 100k rows quickly enough for the benchmark and deterministically', () => {
    const rows = generateKeywordData({ keywords: Array.from({ length: 200 }, (_, i) => `kw ${i}`) }, 500, 1);
    expect(rows.length).toBe(700); // capped at 700 per task
    expect(generateKeywordData({ target: 'x.com' }, 20, 99)).toEqual(generateKeywordData({ target: 'x.com' }, 20, 99));
  });
});

describe('merchant', () => {
  const TYPES = ['alpha_shopping_sponsored_carousel', 'alpha_shopping_paid', 'alpha_shopping_serp', 'alpha_shopping_carousel', 'related_searches'];
  it('the all-zero id returns every item type and optional shape, at no charge, without a posted task', async () => {
    const r = await api.get(pathOf('merchant.google.products.task_get.advanced', ZERO));
    const t = r.json.tasks[0];
    expect([t.status_code, t.cost, r.json.cost]).toEqual([20000, 0, 0]);
    expect(t.data).toMatchObject({ api: 'merchant', function: 'products', se: 'alpha', se_type: 'shopping', keyword: expect.any(String), location_code: 2840, language_code: 'en' });
    const res = t.result[0];
    expect(Object.keys(res)).toEqual(['keyword', 'type', 'se_domain', 'location_code', 'language_code', 'check_url', 'datetime', 'spell', 'item_types', 'items_count', 'items']);
    expect(res.item_types).toEqual(TYPES);
    expect(res.datetime).toMatch(TIMESTAMP);
    expect(res.items_count).toBe(res.items.length);
    const carousel = res.items.find((i: any) => i.type === TYPES[0]);
    expect(carousel.items[0].type).toBe('alpha_shopping_sponsored_carousel_element');
    const elements = carousel.items;
    expect(elements.some((e: any) => e.special_offer_info !== null)).toBe(true);
    expect(Object.keys(elements.find((e: any) => e.special_offer_info).special_offer_info)).toEqual(['title', 'sub_title', 'fixed_discount', 'fixed_discount_currency', 'percentage_discount', 'coupon_code', 'coupon_info', 'url', 'domain']);
    const serp = res.items.filter((i: any) => i.type === TYPES[2]);
    const deliveries = [...elements, ...serp].map((i: any) => i.delivery_info.delivery_price);
    expect(deliveries.some((d: any) => d === null)).toBe(true);
    expect(deliveries.find((d: any) => d !== null)).toEqual({ current: expect.any(Number), regular: expect.any(Number), max_value: expect.any(Number), currency: expect.any(String), is_price_range: expect.any(Boolean), displayed_price: expect.any(String) });
    // Live shape: stores_count_info on the item with a numeric count; delivery dates in delivery_info.
    expect(serp[0].stores_count_info).toEqual({ count: expect.any(Number), displayed_text: expect.any(String), count_from_text: expect.any(Boolean) });
    expect(serp[0].delivery_info.stores_count_info).toBeUndefined();
    expect(serp[0].delivery_info.delivery_date_from).toMatch(TIMESTAMP);
    expect(serp[0].gid).toMatch(/^\d+$/);
    const organic = res.items.find((i: any) => i.type === 'alpha_shopping_carousel');
    expect(organic.items[0]).toMatchObject({ type: 'alpha_shopping_carousel_element', shopping_url: expect.any(String), product_id: expect.any(String), data_docid: expect.any(String), gid: expect.any(String), price: expect.any(Number) });
    expect(elements.find((e: any) => e.special_offer_info).special_offer_info.url).toBeNull();
    const ratingTypes = new Set([...elements, ...serp].map((i: any) => i.product_rating.rating_type));
    expect([...ratingTypes].sort()).toEqual(['CustomMax', 'Max5', 'Percents']);
    expect(serp[0].product_rating).toEqual({ type: 'rating_element', position: 'left', rating_type: expect.any(String), value: expect.any(Number), votes_count: expect.any(Number), rating_max: expect.any(Number) });
    expect(serp[0].old_price).toEqual(expect.any(Number));
    const related = res.items.find((i: any) => i.type === 'related_searches');
    expect(related.items.length).toBeGreaterThan(0);
    // rank_group counts within a type, rank_absolute across all.
    expect(res.items.map((i: any) => i.rank_absolute)).toEqual(res.items.map((_: any, k: number) => k + 1));
    expect(serp.map((i: any) => i.rank_group)).toEqual(serp.map((_: any, k: number) => k + 1));
  });
  it('a posted task: keyword decoded, locale resolved from the name, configured item prefix, n items', async () => {
    const t = await postGet('merchant.google.products.task_post', 'merchant.google.products.task_get.advanced', { keyword: 'red%20shoes+sale', location_name: 'Germany', language_name: 'German', price_min: 10 });
    const res = t.result[0];
    expect([res.keyword, res.location_code, res.language_code]).toEqual(['red shoes sale', 2276, 'de']);
    expect(res.items_count).toBe(12);
    for (const i of res.items) expect(i.type === 'related_searches' || i.type.startsWith('alpha_shopping_')).toBe(true);
    for (const i of res.items.filter((x: any) => x.type === 'alpha_shopping_serp')) expect(i.price).toBeGreaterThanOrEqual(10);
  });
  it('varied across keywords: nulls where the reference allows them', () => {
    const results = Array.from({ length: 40 }, (_, k) => generateMerchant({ keyword: `kw${k}` }, 'alpha', 12, k));
    const serp = results.flatMap((r: any) => r.items.filter((i: any) => i.type === 'alpha_shopping_serp'));
    for (const f of ['product_id', 'reviews_count', 'is_best_match', 'shop_rating', 'old_price']) expect(serp.some((i: any) => i[f] === null), f).toBe(true);
    expect(results.some((r: any) => r.spell !== null)).toBe(true);
    expect(results.some((r: any) => r.items.some((i: any) => i.type === 'related_searches' && i.items === null))).toBe(true);
  });
});

describe('events results (designed)', () => {
  it('advanced has event items with dates, location and tickets; regular leaves images and tickets out; html gives pages', async () => {
    const id = (await api.post(pathOf('serp.events.task_post'), [{ keyword: 'jazz', location_code: 2840, depth: 25, date_range: 'week' }])).json.tasks[0].id;
    const adv = (await api.get(pathOf('serp.events.task_get.advanced', id))).json.tasks[0].result[0];
    const reg = (await api.get(pathOf('serp.events.task_get.regular', id))).json.tasks[0].result[0];
    const html = (await api.get(pathOf('serp.events.task_get.html', id))).json.tasks[0].result[0];
    expect(adv.items.length).toBeLessThanOrEqual(25);
    expect(adv.items_count).toBe(adv.items.length);
    expect(Object.keys(adv.items[0])).toEqual(['type', 'rank_group', 'rank_absolute', 'position', 'xpath', 'title', 'description', 'url', 'event_dates', 'location_info', 'image_url', 'information_and_tickets']);
    expect(Object.keys(reg.items[0])).toEqual(['type', 'rank_group', 'rank_absolute', 'position', 'xpath', 'title', 'description', 'url', 'event_dates', 'location_info']);
    expect(reg.items.map((i: any) => i.title)).toEqual(adv.items.map((i: any) => i.title));
    // Live format: ISO with +00:00 when the event names a zone, local wall time without one otherwise.
    for (const i of adv.items) expect(i.event_dates.start_datetime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\+00:00)?$/);
    const start = Date.parse(adv.items[0].event_dates.start_datetime.replace(/(\d{2})$/, '$1Z').replace('+00:00Z', '+00:00'));
    expect(adv.refinement_chips.items[0]).toMatchObject({ type: 'refinement_chips_element', title: expect.any(String), url: expect.any(String) });
    expect(start - s.clock.now()).toBeLessThan(8 * 86_400_000);
    expect(html.items.map((p: any) => p.page)).toEqual([1, 2, 3]);
    expect(html.items[0].html).toContain('<html>');
  });
});

describe('on-page resources', () => {
  const PATH = pathOf('on_page.resources');
  const ID = '00000000-0000-0000-0000-000000002000';
  const run = async (task: Record<string, unknown>) => {
    const r = await api.post(PATH, [{ id: ID, ...task }]);
    expect(r.json.tasks[0].status_code, r.json.tasks[0].status_message).toBe(20000);
    return r.json.tasks[0].result[0];
  };
  it('every resource type, check key, error and warning code appears in a crawl', async () => {
    const res = await run({ limit: 1000 });
    expect(res.total_items_count).toBe(2000);
    // The generator's fields, then what the client's model declares beyond them (null: the sandbox has no value).
    expect(Object.keys(res)).toEqual(['crawl_progress', 'crawl_status', 'search_after_token', 'total_items_count', 'items_count', 'items', 'current_offset']);
    expect(res.current_offset).toBeNull();
    const items = res.items;
    expect(new Set(items.map((i: any) => i.resource_type))).toEqual(new Set(['script', 'image', 'stylesheet', 'broken']));
    expect(new Set(items.flatMap((i: any) => i.resource_errors.errors.map((e: any) => e.status_code)))).toEqual(new Set([0, 501, 1501, 2501, 3501, 3502, 3503, 3504]));
    expect(new Set(items.flatMap((i: any) => i.resource_errors.warnings.map((e: any) => e.status_code)))).toEqual(new Set([0, 1, 2, 3]));
    const image = items.find((i: any) => i.resource_type === 'image');
    expect(Object.keys(image.meta).slice(0, 6)).toEqual(['alternative_text', 'title', 'original_width', 'original_height', 'width', 'height']);
    expect(image.checks).toHaveProperty('original_size_displayed');
    expect(items.find((i: any) => i.resource_type === 'script').checks).toHaveProperty('is_minified');
    expect(items.some((i: any) => i.last_modified === null)).toBe(true);
    expect(items.some((i: any) => i.content_encoding === null)).toBe(true);
    expect(image.fetch_time).toMatch(TIMESTAMP);
  });
  it('filters with every operator, and/or and nesting, agree with the same predicate applied locally', async () => {
    const all = (await run({ limit: 1000 })).items.concat((await run({ limit: 1000, offset: 1000 })).items);
    const cases: [unknown, (i: any) => boolean][] = [
      [['resource_type', '=', 'image'], (i) => i.resource_type === 'image'],
      [['resource_type', '<>', 'image'], (i) => i.resource_type !== 'image'],
      [['size', '<', 1000], (i) => i.size < 1000],
      [['size', '<=', 5000], (i) => i.size <= 5000],
      [['fetch_timing.duration_time', '>', 3000], (i) => i.fetch_timing.duration_time > 3000],
      [['size', '>=', 800000], (i) => i.size >= 800000],
      [['resource_type', 'in', ['script', 'broken']], (i) => ['script', 'broken'].includes(i.resource_type)],
      [['resource_type', 'not_in', ['script', 'broken']], (i) => !['script', 'broken'].includes(i.resource_type)],
      [['url', 'like', '%.css'], (i) => i.url.endsWith('.css')],
      [['url', 'not_like', 'https://%'], (i) => !i.url.startsWith('https://')],
      [['url', 'regex', 'shoes-\\d+\\.'], (i) => /shoes-\d+\./.test(i.url)],
      [['url', 'not_regex', '^https'], (i) => !/^https/.test(i.url)],
      [['checks.is_https', '=', false], (i) => i.checks.is_https === false],
      [[['resource_type', '=', 'image'], 'and', ['size', '>', 500000]], (i) => i.resource_type === 'image' && i.size > 500000],
      [[['resource_type', '=', 'image'], 'or', ['resource_type', '=', 'broken'], 'and', ['status_code', '=', 404]], (i) => i.resource_type === 'image' || (i.resource_type === 'broken' && i.status_code === 404)],
      [[['status_code', '=', 200], 'and', [['resource_type', '=', 'script'], 'or', ['resource_type', '=', 'stylesheet']]], (i) => i.status_code === 200 && ['script', 'stylesheet'].includes(i.resource_type)],
    ];
    for (const [filters, pred] of cases) {
      const res = await run({ filters, limit: 1000, order_by: ['url,asc'] });
      const want = all.filter(pred);
      expect(res.total_items_count, JSON.stringify(filters)).toBe(want.length);
      expect(want.length, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(res.items.map((i: any) => i.url)).toEqual(want.map((i: any) => i.url).sort((a: string, b: string) => a.localeCompare(b)).slice(0, 1000));
    }
  });
  it('an unknown filter field, a bad regex and a non-array `in` are 40501 naming them', async () => {
    const msg = async (filters: unknown) => (await api.post(PATH, [{ id: ID, filters }])).json.tasks[0].status_message;
    expect(await msg([['colour', '=', 'red']])).toContain("field 'colour' is not a filter field");
    expect(await msg([['url', 'regex', '(']])).toContain('not a valid regular expression');
    expect(await msg([['size', 'in', 5]])).toContain('with in the value must be a non-empty array');
  });
  it('order_by with two rules, and search_after_token pages through everything exactly once', async () => {
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const task: Record<string, unknown> = { limit: 700, order_by: ['resource_type,asc', 'size,desc'] };
      if (token) task.search_after_token = token;
      const res = await run(task);
      seen.push(...res.items.map((i: any) => i.url));
      if (pages === 0) {
        const sizes = res.items.filter((i: any) => i.resource_type === res.items[0].resource_type).map((i: any) => i.size);
        expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
      }
      token = res.search_after_token;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(2000);
    expect(seen).toHaveLength(2000);
  });
  it('a search_after_token with changed parameters is refused naming the rule', async () => {
    const first = await run({ limit: 10 });
    const r = await api.post(PATH, [{ id: ID, limit: 20, search_after_token: first.search_after_token }]);
    expect(r.json.tasks[0].status_code).toBe(40501);
    expect(r.json.tasks[0].status_message).toContain('every other parameter must be identical');
  });
  it('with url, meta comes from that page and only its resources are listed', async () => {
    const res = await run({ url: 'https://example.com/page-1', limit: 1000 });
    expect(res.total_items_count).toBeGreaterThan(0);
    expect(res.total_items_count).toBeLessThan(2000);
    const img = res.items.find((i: any) => i.resource_type === 'image');
    expect(img.meta.alternative_text === '' || img.meta.alternative_text.includes('https://example.com/page-1')).toBe(true);
  });
});

describe('domains by HTML terms', () => {
  const PATH = pathOf('domain_analytics.technologies.domains_by_html_terms.live');
  const run = async (task: Record<string, unknown>) => {
    const r = await api.post(PATH, [task]);
    expect(r.json.tasks[0].status_code, r.json.tasks[0].status_message).toBe(20000);
    return r.json.tasks[0].result[0];
  };
  it('items have every field; a page shows every technology group; nulls where allowed; default order domain_rank desc', async () => {
    const res = await run({ search_terms: ['sandbox:total=500'], limit: 500 });
    expect(Object.keys(res)).toEqual(['total_count', 'items_count', 'offset', 'offset_token', 'items']);
    expect(res.total_count).toBe(500);
    const it0 = res.items[0];
    expect(Object.keys(it0)).toEqual(['type', 'domain', 'title', 'description', 'meta_keywords', 'domain_rank', 'last_visited', 'country_iso_code', 'language_code', 'content_language_code', 'phone_numbers', 'emails', 'social_graph_urls', 'technologies']);
    expect(it0.type).toBe('domain_technology_item');
    // Every group the generator fills appears; the client's model names further groups, present as null.
    const groups = new Set(res.items.flatMap((i: any) => Object.entries(i.technologies).filter(([, v]) => v !== null).map(([k]) => k)));
    expect(groups).toEqual(new Set(GROUP_NAMES));
    expect(res.items.every((i: any) => Object.keys(i.technologies).length === Object.keys(res.items[0].technologies).length)).toBe(true);
    for (const f of ['description', 'meta_keywords', 'phone_numbers', 'emails', 'social_graph_urls', 'country_iso_code', 'domain_rank']) expect(res.items.some((i: any) => i[f] === null), f).toBe(true);
    const ranks = res.items.map((i: any) => i.domain_rank).filter((r: any) => r !== null);
    expect(ranks).toEqual([...ranks].sort((a: number, b: number) => b - a));
    expect(res.items.at(-1).domain_rank).toBeNull();
  });
  it('limit/offset, then offset_token past 10000, cover the set without gaps or repeats', async () => {
    const base = { search_terms: ['sandbox:total=23000'], limit: 10000 };
    const first = await run(base);
    expect([first.total_count, first.items_count, first.offset]).toEqual([23000, 10000, 0]);
    const second = await run({ ...base, offset_token: first.offset_token });
    expect(second.offset).toBe(10000);
    const third = await run({ ...base, offset_token: second.offset_token });
    expect([third.offset, third.items_count]).toEqual([20000, 3000]);
    const domains = [...first.items, ...second.items, ...third.items].map((i: any) => i.domain);
    expect(new Set(domains).size).toBe(23000);
    const mid = await run({ search_terms: ['sandbox:total=23000'], limit: 5, offset: 9995 });
    expect(mid.items.map((i: any) => i.domain)).toEqual(domains.slice(9995, 10000));
    const changed = await api.post(PATH, [{ ...base, mode: 'strict_entry', offset_token: first.offset_token }]);
    expect(changed.json.tasks[0].status_message).toContain("'offset_token'");
  });
  it('filters and order_by on the virtual set agree with the items themselves', async () => {
    const all = (await run({ search_terms: ['sandbox:total=3000'], limit: 3000 })).items;
    const filters = [['country_iso_code', 'in', ['US', 'DE']], 'and', [['domain_rank', '>', 200], 'or', ['domain', 'like', 'acme-%']]];
    const res = await run({ search_terms: ['sandbox:total=3000'], limit: 3000, filters, order_by: ['domain,asc'] });
    const want = all.filter((i: any) => ['US', 'DE'].includes(i.country_iso_code) && (i.domain_rank > 200 || i.domain.startsWith('acme-'))).map((i: any) => i.domain).sort((a: string, b: string) => a.localeCompare(b));
    expect(res.total_count).toBe(want.length);
    expect(res.items.map((i: any) => i.domain)).toEqual(want);
    const withNulls = await run({ search_terms: ['sandbox:total=3000'], limit: 3000, filters: [['emails', '=', null]] });
    expect(withNulls.total_count).toBe(all.filter((i: any) => i.emails === null).length);
  });
  it('billed per request, same query same items', async () => {
    const a = await run({ search_terms: ['<script'], keywords: ['shop'], limit: 3 });
    const b = await run({ keywords: ['shop'], search_terms: ['<script'], limit: 3 });
    expect(a.items).toEqual(b.items);
    expect(s.sandbox.controls.billed()).toBe(0.02);
  });
});

describe('lists', () => {
  it('E10 locations: countries and states with parents, no Russia or Belarus', async () => {
    const r = await api.get(pathOf('serp.events.locations'));
    const items = r.json.tasks[0].result;
    expect(items.find((l: any) => l.location_code === 2840)).toEqual({ location_code: 2840, location_name: 'United States', location_code_parent: null, country_iso_code: 'US', location_type: 'Country' });
    expect(items.find((l: any) => l.location_name === 'California,United States')).toMatchObject({ location_code_parent: 2840, location_type: 'State' });
    expect(items.some((l: any) => ['RU', 'BY'].includes(l.country_iso_code))).toBe(false);
  });
  it('paraphrase counts tokens and changes words more with a higher creativity_index', async () => {
    const text = 'This is a good and fast way to help people make new things, very quickly.';
    const low = (await api.post(pathOf('content_generation.paraphrase.live'), [{ text, creativity_index: 0 }])).json.tasks[0].result[0];
    const high = (await api.post(pathOf('content_generation.paraphrase.live'), [{ text, creativity_index: 1 }])).json.tasks[0].result[0];
    expect(low.input_tokens).toBe(17);
    expect(high.new_tokens).toBeGreaterThan(low.new_tokens);
    expect(high.generated_text).not.toBe(text);
    expect(high.output_tokens).toBe(high.generated_text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu).length);
  });
});
