/**
 * sandbox.generated_items: a generated family's live answer holds the request's `limit` items of a list of at least
 * that many (a paged list's own few dozen unless set), so the bench can ask for the live maximum of 1,000; with
 * result_variants, the same answer is served again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { client, start, type Started } from './helpers.js';

const PATH = '/v3/backlinks/backlinks/live';
const started: Started[] = [];
afterEach(async () => {
  while (started.length) await started.pop()!.sandbox.close();
});

async function items(sandbox: Record<string, unknown>, limit: number): Promise<{ count: number; total: number; cache?: { hits: number; misses: number } }[]> {
  const s = await start(sandbox);
  started.push(s);
  const api = client(s.sandbox);
  const out = [];
  for (const target of ['a.example.com', 'b.example.com']) {
    const r = await api.post(PATH, [{ target, mode: 'as_is', limit }]);
    expect(r.status).toBe(200);
    expect(r.json.tasks[0].status_code).toBe(20000);
    out.push({ count: r.json.tasks[0].result[0].items.length as number, total: r.json.tasks[0].result[0].total_count as number, cache: s.sandbox.resultCache && { hits: s.sandbox.resultCache.hits, misses: s.sandbox.resultCache.misses } });
  }
  return out;
}

describe('sandbox.generated_items', () => {
  it('serves a paged list of a few dozen rows unless set, and of the setting when it is', async () => {
    for (const a of await items({}, 300)) {
      expect(a.count).toBe(a.total);
      expect(a.total).toBeGreaterThanOrEqual(11);
      expect(a.total).toBeLessThanOrEqual(24);
    }
    expect((await items({ generated_items: 1000 }, 300)).map((a) => a.count)).toEqual([300, 300]);
    expect((await items({ generated_items: 50 }, 300)).map((a) => a.count)).toEqual([50, 50]);
  });

  it('answers the same live request the same all day, dates included, and differently the next day', async () => {
    const s = await start({ generated_items: 20 });
    started.push(s);
    const api = client(s.sandbox);
    const ask = async () => {
      const r = await api.post('/v3/dataforseo_labs/google/ranked_keywords/live', [{ target: 'a.example.com', location_code: 2840, language_code: 'en', limit: 20 }]);
      expect(r.json.tasks[0].status_code).toBe(20000);
      return JSON.stringify(r.json.tasks[0].result);
    };
    const morning = await ask();
    expect(morning).toMatch(/"last_updated_time":"\d{4}-\d{2}-\d{2} /);
    s.clock.advance(3 * 3600_000 + 1234);
    expect(await ask()).toBe(morning);
    s.clock.advance(24 * 3600_000);
    expect(await ask()).not.toBe(morning);
  });

  it('serves a generated live answer again under result_variants', async () => {
    const [first, second] = await items({ generated_items: 100, result_variants: 1 }, 100);
    expect(first.cache).toEqual({ hits: 0, misses: 1 });
    expect(second.cache).toEqual({ hits: 1, misses: 1 });
  });
});
