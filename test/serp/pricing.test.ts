/**
 * The price of every SERP option as the live service bills it: plan (the price table), the sandbox's charge at
 * posting and its bill once the task is done agree for every combination; the refunds (pages crawl control did not
 * crawl, an async AI Overview that did not come, PAA clicks not made) go back to the balance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, client, pathOf, type Started } from '../sandbox/helpers.js';
import { endpoint } from '../../src/api/catalog.js';
import { billedPrice, taskPrice, taskPriceRange } from '../../src/api/pricing.js';
import { loadConfig } from '../../src/config/index.js';
import { ROOT } from '../helpers/project.js';

const prices = loadConfig({ root: ROOT }).prices;
const price = (id: string, task: Record<string, unknown>) => taskPrice(endpoint(id), task, prices);
const base = { keyword: 'running shoes', location_code: 2840, language_code: 'en' };

describe('option prices by the live rules', () => {
  it('each option alone and all together, queued, priority and live', () => {
    const post = 'serp.google.organic.task_post';
    expect(price(post, base)).toBe(0.0006);
    expect(price(post, { ...base, calculate_rectangles: true })).toBe(0.0012);
    expect(price(post, { ...base, load_async_ai_overview: true })).toBe(0.0012);
    expect(price(post, { ...base, people_also_ask_click_depth: 1 })).toBe(0.00075);
    expect(price(post, { ...base, people_also_ask_click_depth: 4 })).toBe(0.0012);
    expect(price(post, { ...base, keyword: 'site:example.com shoes' })).toBe(0.003);
    expect(price(post, { ...base, keyword: 'shoes intitle:best' })).toBe(0.003);
    expect(price(post, { ...base, keyword: 'website: shoes' })).toBe(0.0006);
    // The task with every option: base + rectangles + async AI Overview + 4 clicks.
    expect(price(post, { ...base, calculate_rectangles: true, load_async_ai_overview: true, people_also_ask_click_depth: 4 })).toBe(0.0024);
    // Priority doubles the base and the rectangles' base price, not the flat extras.
    expect(price(post, { ...base, priority: 2, calculate_rectangles: true, load_async_ai_overview: true, people_also_ask_click_depth: 4 })).toBe(0.0036);
    // Operators multiply the crawl (pages and rectangles), not the flat extras.
    expect(price(post, { ...base, keyword: 'site:x.com shoes', depth: 20, calculate_rectangles: true, load_async_ai_overview: true })).toBe(0.00885);
    expect(price('serp.google.organic.live.advanced', { ...base, calculate_rectangles: true, people_also_ask_click_depth: 2 })).toBe(0.0043);
    expect(price('serp.bing.organic.task_post', { ...base, calculate_rectangles: true })).toBe(0.0012);
    expect(price('serp.bing.organic.task_post', { ...base, keyword: 'site:x.com shoes' })).toBe(0.0006);
    expect(price('serp.baidu.organic.task_post', { keyword: 'k', location_code: 2156, get_website_url: true })).toBe(0.006);
  });

  it('crawl control is a range from the first page to the full depth; the bill follows the pages crawled', () => {
    const def = endpoint('serp.google.organic.task_post');
    const task = { ...base, depth: 100, stop_crawl_on_match: [{ match_value: 'trailhub.com', match_type: 'with_subdomains' }], load_async_ai_overview: true, people_also_ask_click_depth: 2 };
    expect(taskPriceRange(def, task, prices)).toEqual({ min: 0.0006, max: 0.00555 });
    expect(taskPriceRange(def, { ...base, depth: 30 }, prices)).toEqual({ min: 0.0015, max: 0.0015 });
    expect(billedPrice(def, task, prices, { pages: 3, asyncAiOverview: true, paaClicks: 1 })).toBe(0.00225);
    expect(billedPrice(def, task, prices, { pages: 50, asyncAiOverview: false, paaClicks: 9 })).toBe(0.00495);
  });
});

describe('plan and the sandbox agree for every combination of options', () => {
  let s: Started;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await start({ completion_delay_ms: 1000, reparse_share: 0, rate_limit_calls: 100000 });
    api = client(s.sandbox);
  });
  afterAll(() => s.sandbox.close());

  const OPTIONS = {
    calculate_rectangles: [undefined, true],
    load_async_ai_overview: [undefined, true],
    people_also_ask_click_depth: [undefined, 1, 4],
    keyword: ['trail shoes', 'site:trailhub.com trail shoes'],
    priority: [undefined, 2],
    depth: [10, 40],
    stop_crawl_on_match: [undefined, [{ match_value: 'trailhub.com', match_type: 'with_subdomains' }]],
  } as const;
  const combos = (): Record<string, unknown>[] => {
    let out: Record<string, unknown>[] = [{}];
    for (const [k, values] of Object.entries(OPTIONS)) out = out.flatMap((o) => values.map((v) => (v === undefined ? o : { ...o, [k]: v })));
    return out;
  };

  /** What the result shows the service did: pages crawled, an async AI Overview returned, PAA present to click. */
  const outcomeOf = (result: any, task: Record<string, unknown>) => ({
    pages: result.pages_count,
    asyncAiOverview: result.items.some((i: any) => i.type === 'ai_overview' && i.asynchronous_ai_overview === true),
    paaClicks: result.items.some((i: any) => i.type === 'people_also_ask') ? Number(task.people_also_ask_click_depth ?? 0) : 0,
  });

  it(`google organic task_post, ${combos().length} combinations: charge at posting = plan's maximum; bill = the live rules on the result; the rest refunded`, async () => {
    const def = endpoint('serp.google.organic.task_post');
    const SUFFIX = ['', ' men', ' women', ' kids', ' sale', ' review', ' waterproof'];
    const tasks: Record<string, unknown>[] = combos().map((o, i) => ({ ...base, location_code: [2840, 2826, 2276][i % 3], ...o, keyword: `${o.keyword}${SUFFIX[i % SUFFIX.length]}`, tag: `c${i}` }));
    const balance0 = (await api.get('/v3/appendix/user_data')).json.tasks[0].result[0].money.balance;
    const ids: string[] = [];
    for (let i = 0; i < tasks.length; i += 100) {
      const r = await api.post(pathOf(def.id), tasks.slice(i, i + 100));
      for (const [k, t] of r.json.tasks.entries()) {
        expect(t.status_code, t.status_message).toBe(20100);
        expect(t.cost).toBe(taskPrice(def, tasks[i + k], prices));
        ids.push(t.id);
      }
    }
    s.clock.advance(1000);
    let billedMicros = 0;
    const seen = { refunded: 0, crawlStopped: 0, asyncKept: 0 };
    for (const [i, id] of ids.entries()) {
      const got = (await api.get(pathOf('serp.google.organic.task_get.advanced', id))).json.tasks[0];
      const outcome = outcomeOf(got.result[0], tasks[i]);
      expect(got.cost, JSON.stringify(tasks[i])).toBe(billedPrice(def, tasks[i], prices, outcome));
      const range = taskPriceRange(def, tasks[i], prices);
      expect(got.cost).toBeGreaterThanOrEqual(range.min);
      expect(got.cost).toBeLessThanOrEqual(range.max);
      if (got.cost < range.max) seen.refunded++;
      if (tasks[i].stop_crawl_on_match && outcome.pages < Math.ceil(Number(tasks[i].depth) / 10)) seen.crawlStopped++;
      if (outcome.asyncAiOverview) seen.asyncKept++;
      // The same answer again reports the same bill and refunds nothing more.
      expect((await api.get(pathOf('serp.google.organic.task_get.regular', id))).json.tasks[0].cost).toBe(got.cost);
      billedMicros += Math.round(got.cost * 1e6);
    }
    expect(seen.refunded).toBeGreaterThan(50);
    expect(seen.crawlStopped).toBeGreaterThan(5);
    expect(seen.asyncKept).toBeGreaterThan(0);
    const balance1 = (await api.get('/v3/appendix/user_data')).json.tasks[0].result[0].money.balance;
    expect(Math.round((balance0 - balance1) * 1e6)).toBe(billedMicros);
  });

  it('live advanced: the answer bills what was crawled and used', async () => {
    const def = endpoint('serp.google.organic.live.advanced');
    for (const o of combos().filter((c) => c.priority === undefined).slice(0, 48)) {
      const task = { ...base, ...o };
      const t = (await api.post(pathOf(def.id), [task])).json.tasks[0];
      expect(t.status_code, t.status_message).toBe(20000);
      expect(t.cost).toBe(billedPrice(def, task, prices, outcomeOf(t.result[0], task)));
    }
  });
});
