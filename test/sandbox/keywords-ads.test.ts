/** The sandbox's ads-based keyword API: limits, a restricted keyword's batch, determinism and the lists. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, pathOf, start, type Started } from './helpers.js';

let s: Started;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start();
  c = client(s.sandbox);
});
afterAll(async () => s?.sandbox.close());

const tick = (ms: number) => s.clock.advance(ms);

async function postAndGet(fn: string, task: Record<string, unknown>) {
  const posted = await c.post(pathOf(`keywords_data.google_ads.${fn}.task_post`), [task]);
  expect(posted.json.tasks[0].status_code, posted.json.tasks[0].status_message).toBe(20100);
  tick(2000);
  return (await c.get(pathOf(`keywords_data.google_ads.${fn}.task_get`, posted.json.tasks[0].id))).json.tasks[0];
}

describe('sandbox: ads-based keyword API', () => {
  it('takes 100 tasks in one POST and answers 40006 to the rest', async () => {
    const tasks = Array.from({ length: 101 }, (_, i) => ({ keywords: [`kw ${i}`], location_code: 2840 }));
    const r = await c.post(pathOf('keywords_data.google_ads.search_volume.task_post'), tasks);
    const codes = r.json.tasks.map((t: any) => t.status_code);
    expect(codes.slice(0, 100).every((x: number) => x === 20100)).toBe(true);
    expect(codes[100]).toBe(40006);
  });

  it('allows 12 live calls a minute, then 40202 until the minute has passed', async () => {
    const live = () => c.post(pathOf('keywords_data.google_ads.keywords_for_keywords.live'), [{ keywords: ['tea'], language_code: 'en' }]);
    for (let i = 0; i < 12; i++) expect((await live()).json.tasks[0].status_code, `call ${i + 1}`).toBe(20000);
    const over = await live();
    expect([over.json.status_code, over.json.tasks]).toEqual([40202, []]);
    // Other endpoints of the family are not held back by the live limit.
    expect((await c.get(pathOf('keywords_data.google_ads.status'))).json.status_code).toBe(20000);
    tick(60_000);
    expect((await live()).json.tasks[0].status_code).toBe(20000);
  });

  it('answers a batch holding a restricted keyword with no data at all, and still charges it', async () => {
    const task = await postAndGet('search_volume', { keywords: ['laptop', 'rolex replica'], location_code: 2840 });
    expect([task.status_code, task.result_count, task.result]).toEqual([20000, 0, []]);
    const clean = await postAndGet('search_volume', { keywords: ['laptop', 'rolex watch'], location_code: 2840 });
    expect(clean.result.map((r: any) => r.keyword)).toEqual(['laptop', 'rolex watch']);
    const traffic = await postAndGet('ad_traffic_by_keywords', { keywords: ['casino bonus', 'tea'], bid: 3, match: 'broad' });
    expect(traffic.result).toEqual([]);
  });

  it('gives the same rows for the same task, in the live shapes', async () => {
    const task = { target: 'shop.example', target_type: 'site', location_code: 2840, language_code: 'en', sort_by: 'high_top_of_page_bid' };
    const a = await postAndGet('keywords_for_site', { ...task, tag: 'a' });
    const b = await postAndGet('keywords_for_site', { ...task, tag: 'b' });
    expect(a.result).toEqual(b.result);
    expect(a.result.length).toBe(s.config.sandbox.keywords_per_site_task);
    const bids = a.result.map((r: any) => r.high_top_of_page_bid ?? -1);
    expect(bids).toEqual([...bids].sort((x: number, y: number) => y - x));
    for (const r of a.result) {
      expect(Object.keys(r)).toEqual(['keyword', 'spell', 'location_code', 'language_code', 'search_partners', 'competition', 'competition_index', 'search_volume', 'low_top_of_page_bid', 'high_top_of_page_bid', 'cpc', 'monthly_searches']);
      if (r.competition_index !== null) expect(r.competition).toBe(r.competition_index < 34 ? 'LOW' : r.competition_index < 67 ? 'MEDIUM' : 'HIGH');
      if (r.cpc !== null) expect(r.low_top_of_page_bid).toBeLessThanOrEqual(r.high_top_of_page_bid);
    }
    const ranged = await postAndGet('search_volume', { keywords: ['kettle'], date_from: '2026-01-01', date_to: '2026-06-30' });
    const months = ranged.result[0].monthly_searches;
    expect(months.map((m: any) => `${m.year}-${m.month}`)).toEqual(['2026-6', '2026-5', '2026-4', '2026-3', '2026-2', '2026-1']);
  });

  it('answers an ad traffic forecast per keyword, with the deprecated metrics null', async () => {
    const t = await postAndGet('ad_traffic_by_keywords', { keywords: ['tea', 'green tea'], bid: 4, match: 'phrase', date_interval: 'next_quarter' });
    expect(t.result.map((r: any) => [r.keyword, r.bid, r.match, r.date_interval, r.impressions, r.ctr])).toEqual([
      ['tea', 4, 'phrase', 'next_quarter', null, null], ['green tea', 4, 'phrase', 'next_quarter', null, null],
    ]);
    expect(t.data).toMatchObject({ api: 'keywords_data', function: 'ad_traffic_by_keywords', se: 'alpha_ads' });
  });

  it('lists locations (all, or one country) and languages for free', async () => {
    const all = (await c.get(pathOf('keywords_data.google_ads.locations'))).json.tasks[0];
    const gb = (await c.get(pathOf('keywords_data.google_ads.locations.country', 'gb'))).json.tasks[0];
    expect(all.result.length).toBeGreaterThan(gb.result.length);
    expect(gb.result.length).toBeGreaterThan(0);
    expect(gb.result.every((l: any) => l.country_iso_code === 'GB')).toBe(true);
    const langs = (await c.get(pathOf('keywords_data.google_ads.languages'))).json.tasks[0];
    expect(langs.result).toContainEqual({ language_name: 'English', language_code: 'en' });
    expect([all.cost, gb.cost, langs.cost]).toEqual([0, 0, 0]);
  });
});
