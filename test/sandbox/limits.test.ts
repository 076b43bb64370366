/** The reference's Limits table and endpoint parameter tables, each rule with the task-level error it gets. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../src/api/envelope.js';
import { start, client, pathOf, type Started } from './helpers.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ rate_limit_calls: 1000, rate_limit_window_ms: 1000 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());
beforeEach(() => s.sandbox.controls.reset());

const EVENTS = pathOf('serp.events.task_post');
const ev = (over: Record<string, unknown> = {}) => ({ keyword: 'jazz', location_code: 2840, ...over });

/** Posts one task and returns its status code and message. */
async function one(path: string, task: unknown): Promise<{ code: number; message: string; task: any }> {
  const r = await api.post(path, [task]);
  expect(r.status).toBe(200);
  const t = r.json.tasks[0];
  return { code: t.status_code, message: t.status_message, task: t };
}

describe('events task_post', () => {
  it('100 tasks per POST; the 101st gets 40006 and is not created or billed', async () => {
    const tasks = Array.from({ length: 101 }, (_, i) => ev({ tag: `t${i}` }));
    const r = await api.post(EVENTS, tasks);
    expect(r.json.tasks.slice(0, 100).every((t: any) => t.status_code === 20100)).toBe(true);
    expect(r.json.tasks[100].status_code).toBe(40006);
    expect(r.json.tasks[100].status_message).toContain('101');
    expect(r.json.tasks_error).toBe(1);
    expect(s.sandbox.controls.postings()).toHaveLength(100);
    expect(s.sandbox.controls.billed()).toBeCloseTo(100 * 0.0006, 6);
  });
  it.each([
    ['keyword over 700 characters', { keyword: 'k'.repeat(701) }, 'keyword', 'at most 700'],
    ['tag over 255 characters', { tag: 't'.repeat(256) }, 'tag', 'at most 255'],
    ['depth over 700', { depth: 701 }, 'depth', 'at most 700'],
    ['max_crawl_pages over 100', { max_crawl_pages: 101 }, 'max_crawl_pages', 'at most 100'],
    ['radius under 199.9', { location_code: undefined, location_coordinate: '52.52,13.40,199.8' }, 'location_coordinate', '199.9 to 199999'],
    ['radius over 199999', { location_code: undefined, location_coordinate: '52.52,13.40,200000' }, 'location_coordinate', '199.9 to 199999'],
    ['8 decimal digits', { location_code: undefined, location_coordinate: '52.123456789,13.4,500' }, 'location_coordinate', '7 decimal'],
    ['no location parameter', { location_code: undefined }, 'location_code|location_name|location_coordinate', 'one of'],
    ['postback_url without postback_data', { postback_url: 'http://127.0.0.1:9/x?id=$id' }, 'postback_data', 'required when postback_url'],
    ['priority 3', { priority: 3 }, 'priority', 'one of 1, 2'],
    ['os linux', { os: 'linux' }, 'os', 'windows, macos'],
    ['date_range yesterday', { date_range: 'yesterday' }, 'date_range', 'one of'],
    ['a location code E10 does not list', { location_code: 12345 }, 'location_code', 'events/locations'],
    ['a language other than English', { language_code: 'de' }, 'language_code', 'English only'],
  ])('%s: 40501 naming the field and the rule', async (_name, over, field, rule) => {
    const { code, message, task } = await one(EVENTS, ev(over));
    expect(code).toBe(40501);
    expect(message).toContain(`'${field}'`);
    expect(message).toContain(rule);
    expect(task.cost).toBe(0);
    expect(s.sandbox.controls.postings()).toHaveLength(0);
  });
  it('the limits themselves are accepted: keyword 700, tag 255, depth 700, radius 199.9 and 199999, 7 decimals', async () => {
    const r = await api.post(EVENTS, [
      ev({ keyword: 'k'.repeat(700), tag: 't'.repeat(255), depth: 700, max_crawl_pages: 100 }),
      ev({ location_code: undefined, location_coordinate: '52.1234567,13.4,199.9' }),
      ev({ location_code: undefined, location_coordinate: '40.7,-74.0,199999' }),
    ]);
    expect(r.json.tasks.map((t: any) => t.status_code)).toEqual([20100, 20100, 20100]);
  });
  it('an unknown field is 40506 naming it', async () => {
    const { code, message } = await one(EVENTS, ev({ colour: 'red' }));
    expect(code).toBe(40506);
    expect(message).toContain("'colour'");
  });
});

describe('keywords data and merchant task_post (designed)', () => {
  it('keywords_for_keywords: at most 200 keywords', async () => {
    const path = pathOf('keywords_for_keywords.task_post');
    expect((await one(path, { keywords: Array.from({ length: 201 }, (_, i) => `k${i}`) })).message).toContain('at most 200');
    expect((await one(path, { keywords: Array.from({ length: 200 }, (_, i) => `k${i}`) })).code).toBe(20100);
  });
  it('keywords_for_site needs a domain target; 100 tasks per POST then 40006', async () => {
    const path = pathOf('keywords_for_site.task_post');
    expect((await one(path, { target: 'not a domain' })).message).toContain("'target' must be a domain");
    const r = await api.post(path, Array.from({ length: 102 }, (_, i) => ({ target: `s${i}.example.com` })));
    expect(r.json.tasks.filter((t: any) => t.status_code === 40006)).toHaveLength(2);
  });
  it('merchant: keyword required, postback_data enum', async () => {
    const path = pathOf('merchant.google.products.task_post');
    expect((await one(path, { location_code: 2840 })).message).toContain("'keyword' is required");
    expect((await one(path, { keyword: 'x', location_code: 2840, postback_url: 'http://127.0.0.1/x', postback_data: 'regular' })).message).toContain("'postback_data' must be one of advanced, html");
  });
});

describe('live endpoints: one task per call', () => {
  it('a second task in one call gets 40000 and is not billed', async () => {
    const r = await api.post(pathOf('content_generation.paraphrase.live'), [{ text: 'hello world', creativity_index: 0.5 }, { text: 'again', creativity_index: 0.5 }]);
    expect(r.json.tasks.map((t: any) => t.status_code)).toEqual([20000, 40000]);
    expect(s.sandbox.controls.billed()).toBe(0.0001);
  });
  it('paraphrase: 1 to 500 tokens, creativity_index 0 to 1 and required', async () => {
    const path = pathOf('content_generation.paraphrase.live');
    expect((await one(path, { text: 'a '.repeat(501), creativity_index: 0.5 })).message).toContain('1 to 500 tokens (has 501)');
    expect((await one(path, { text: 'a '.repeat(500), creativity_index: 0.5 })).code).toBe(20000);
    expect((await one(path, { text: '   ', creativity_index: 0.5 })).message).toContain('(has 0)');
    expect((await one(path, { text: 'hi', creativity_index: 1.1 })).message).toContain("'creativity_index' must be at most 1");
    expect((await one(path, { text: 'hi' })).message).toContain("'creativity_index' is required");
  });
  it('on-page resources: limit 1000, offset 2000000, 8 filter conditions, 3 order_by rules', async () => {
    const path = pathOf('on_page.resources');
    const id = '11111111-2222-3333-4444-555555555555';
    const c = ['size', '>', 1];
    expect((await one(path, { id, limit: 1001 })).message).toContain("'limit' must be at most 1000");
    expect((await one(path, { id, offset: 2_000_001 })).message).toContain("'offset' must be at most 2000000");
    expect((await one(path, { id, filters: Array.from({ length: 17 }, (_, i) => (i % 2 ? 'and' : c)) })).message).toContain('at most 8 conditions');
    expect((await one(path, { id, filters: Array.from({ length: 15 }, (_, i) => (i % 2 ? 'and' : c)) })).code).toBe(20000);
    expect((await one(path, { id, order_by: ['size,asc', 'url,asc', 'status_code,desc', 'server,asc'] })).message).toContain('at most 3 rules');
    expect((await one(path, { id: 'nope' })).message).toContain("'id' must be a task id in UUID format");
  });
  it('domains by HTML terms: 10 terms, 10 keywords, limit 10000, offset 9999, limit + offset 10000, order fields', async () => {
    const path = pathOf('domain_analytics.technologies.domains_by_html_terms.live');
    const t = (over: Record<string, unknown>) => ({ search_terms: ['<b>'], ...over });
    expect((await one(path, t({ search_terms: Array.from({ length: 11 }, (_, i) => `t${i}`) }))).message).toContain('at most 10 items');
    expect((await one(path, t({ keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) }))).message).toContain('at most 10 items');
    expect((await one(path, t({ limit: 10_001 }))).message).toContain('at most 10000');
    expect((await one(path, t({ offset: 10_000 }))).message).toContain('at most 9999');
    expect((await one(path, t({ limit: 5000, offset: 5001 }))).message).toContain('limit plus offset must not exceed 10000');
    expect((await one(path, t({ limit: 5000, offset: 5000 }))).code).toBe(20000);
    expect((await one(path, t({ order_by: ['title,asc'] }))).message).toContain('field must be one of');
    expect((await one(path, t({ filters: [['size', '>', 1]] }))).message).toContain("field 'size' is not a filter field");
    expect((await one(path, t({ filters: [['domain', 'regex', 'x']] }))).message).toContain('operator must be one of');
  });
  it('E13: limit 1000 and timestamps within the last 7 days', async () => {
    const path = pathOf('domain_analytics.errors');
    const now = s.clock.now();
    expect((await one(path, { limit: 1001 })).message).toContain('at most 1000');
    expect((await one(path, { datetime_from: formatTimestamp(new Date(now - 8 * 86_400_000)) })).message).toContain("'datetime_from' must be within the last 7 days");
    expect((await one(path, { datetime_to: 'yesterday' })).message).toContain('yyyy-mm-dd hh:mm:ss +00:00');
    expect((await one(path, { datetime_from: formatTimestamp(new Date(now - 6 * 86_400_000)) })).code).toBe(20000);
  });
});

describe('rate limits', () => {
  it('the account limit counts every authenticated call over a sliding window and answers 40202 past it', async () => {
    const small = await start({ rate_limit_calls: 5, rate_limit_window_ms: 1000 });
    try {
      const c = client(small.sandbox);
      await c.get('/v3/nowhere'); // t=0; a refused path still counts
      for (let i = 0; i < 4; i++) {
        small.clock.advance(100); // t=100..400
        expect((await c.get('/v3/serp/endpoints')).json.status_code).toBe(20000);
      }
      small.clock.advance(100); // t=500
      const over = await c.get('/v3/serp/endpoints');
      expect([over.status, over.json.status_code, over.json.tasks]).toEqual([200, 40202, []]);
      expect(over.json.status_message).toContain('more than 5 calls in 1000 ms');
      small.clock.advance(499); // t=999: the call at t=0 is still in the window
      expect((await c.get('/v3/serp/endpoints')).json.status_code).toBe(40202);
      small.clock.advance(1); // t=1000: it has left, so exactly one more call fits
      expect((await c.get('/v3/serp/endpoints')).json.status_code).toBe(20000);
      expect((await c.get('/v3/serp/endpoints')).json.status_code).toBe(40202);
      expect(small.sandbox.controls.rateLimitAnswers()).toBe(3);
    } finally {
      await small.sandbox.close();
    }
  });
  it('tasks_fixed allows 20 calls per window on top of the account limit', async () => {
    const path = pathOf('serp.events.tasks_fixed');
    for (let i = 0; i < 20; i++) expect((await api.get(path)).json.status_code).toBe(20000);
    const over = await api.get(path);
    expect(over.json.status_code).toBe(40202);
    expect(over.json.status_message).toContain('20 calls');
    expect((await api.get('/v3/serp/endpoints')).json.status_code).toBe(20000);
    s.clock.advance(1000);
    expect((await api.get(path)).json.status_code).toBe(20000);
  });
});
