/**
 * Issue 47, point 6: a generated family's answer is the request's (its keyword, target and location echoed where
 * the result names them; competitors other sites than the target) and moves slowly from day to day (metrics within
 * 3% a day; a list keeps most of its items), so views and alerts over several sandbox nights show trends. The
 * sandbox's clock is a manual one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, start, type Started } from './helpers.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ generated_items: 20, completion_delay_ms: 0 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());

const DAY = 86_400_000;
async function live(path: string, body: Record<string, unknown>): Promise<any> {
  const r = await api.post(path, [body]);
  expect(r.json.tasks[0].status_code, r.text.slice(0, 300)).toBe(20000);
  return r.json.tasks[0].result[0];
}

describe('the request echoed', () => {
  it('a reviews task answers for its own keyword and the location it named', async () => {
    for (const keyword of ['trailhub store denver', 'trailhub outlet boulder', 'trailhub repair shop', 'best tents near me', 'ski rental aspen']) {
      const posted = await api.post('/v3/business_data/google/reviews/task_post', [{ keyword, location_name: 'Denver,Colorado,United States', language_name: 'English' }]);
      const id = posted.json.tasks[0].id;
      s.clock.advance(1000);
      const got = await api.get(`/v3/business_data/google/reviews/task_get/${id}`);
      const result = got.json.tasks[0].result[0];
      expect(result.keyword).toBe(keyword);
      // The city is unknown to the sandbox; its country is not.
      expect(result.location_code).toBe(2840);
      expect(result.language_code).toBe('en');
    }
  });

  it('a keyword overview answers one item per keyword asked, in order; bulk ranks one per target', async () => {
    const keywords = ['trail running shoes', 'tent', 'hiking poles'];
    const overview = await live('/v3/dataforseo_labs/google/keyword_overview/live', { keywords, location_code: 2826, language_code: 'en' });
    expect(overview.items.map((i: any) => i.keyword)).toEqual(keywords);
    expect(overview.location_code).toBe(2826);
    const ranks = await live('/v3/backlinks/bulk_ranks/live', { targets: ['trailhub.com', 'peakgear.com'] });
    expect(ranks.items.map((i: any) => i.target)).toEqual(['trailhub.com', 'peakgear.com']);
  });

  it('a domain is never its own competitor; its ranked keywords are its own pages', async () => {
    for (const target of ['trailhub.com', 'acme.io', 'globex.com', 'wayne.de']) {
      const c = await live('/v3/dataforseo_labs/google/competitors_domain/live', { target, location_code: 2840, language_code: 'en', limit: 20 });
      expect(c.target).toBe(target);
      expect(c.items.length).toBeGreaterThan(5);
      for (const i of c.items) expect(i.domain).not.toBe(target);
      const r = await live('/v3/dataforseo_labs/google/ranked_keywords/live', { target, location_code: 2840, language_code: 'en', limit: 20 });
      const own = r.items.map((i: any) => i.ranked_serp_element?.serp_item).filter((x: any) => x?.domain);
      expect(own.length).toBeGreaterThan(0);
      for (const item of own) expect(item.domain).toBe(target);
      const referring = await live('/v3/backlinks/referring_domains/live', { target, limit: 20 });
      for (const i of referring.items) expect(i.domain).not.toBe(target);
    }
  });
});

describe('day to day', () => {
  it('backlinks, referring domains and traffic drift within 3% a day; the parts stay under their whole', async () => {
    const days: { backlinks: number; domains: number; main: number; etv: number }[] = [];
    for (let d = 0; d < 21; d++) {
      if (d) s.clock.advance(DAY);
      const b = await live('/v3/backlinks/summary/live', { target: 'trailhub.com' });
      const r = await live('/v3/dataforseo_labs/google/ranked_keywords/live', { target: 'trailhub.com', location_code: 2840, language_code: 'en', limit: 5 });
      days.push({ backlinks: b.backlinks, domains: b.referring_domains, main: b.referring_main_domains, etv: r.metrics.organic.etv });
      expect(b.referring_domains).toBeLessThanOrEqual(b.backlinks);
      expect(b.referring_main_domains).toBeLessThanOrEqual(b.referring_domains);
    }
    for (let d = 1; d < days.length; d++) {
      for (const k of ['backlinks', 'domains', 'main'] as const) {
        expect(Math.abs(days[d][k] / days[d - 1][k] - 1), `${k} day ${d}`).toBeLessThanOrEqual(0.03);
      }
      expect(Math.abs(days[d].etv - days[d - 1].etv), `etv day ${d}`).toBeLessThanOrEqual(0.03 * days[d - 1].etv + 0.01);
    }
    // It moves: three weeks are not one figure.
    expect(new Set(days.map((x) => x.backlinks)).size).toBeGreaterThan(5);
  });

  it('referring domains mostly stay from one night to the next, and some come and go over a month', async () => {
    const nights: string[][] = [];
    for (let d = 0; d < 30; d++) {
      if (d) s.clock.advance(DAY);
      nights.push((await live('/v3/backlinks/referring_domains/live', { target: 'peakgear.com', limit: 20 })).items.map((i: any) => i.domain));
    }
    for (let d = 1; d < nights.length; d++) {
      const kept = nights[d].filter((x) => nights[d - 1].includes(x)).length;
      expect(kept, `night ${d}`).toBeGreaterThanOrEqual(nights[d].length - 5);
    }
    expect(nights[29]).not.toEqual(nights[0]);
  });
});
