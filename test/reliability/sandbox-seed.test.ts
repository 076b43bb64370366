/**
 * The sandbox's data must not depend on where results are sent or how a task is labelled: a resumed run (new
 * webhook address) and an uninterrupted one must load the same tables. Before the fix, pingback_url,
 * postback_url and tag were part of the data seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, client, pathOf, type Started } from '../sandbox/helpers.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ completion_delay_ms: 1000, reparse_share: 0, rate_limit_calls: 100000 }, { callbackTimeoutMs: 200 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());

const CASES = [
  { post: 'keywords_for_keywords.task_post', get: 'keywords_for_keywords.task_get', postbackData: false, task: { keywords: ['camping tent', 'headlamp'], location_code: 2840, language_code: 'en' } },
  { post: 'keywords_for_site.task_post', get: 'keywords_for_site.task_get', postbackData: false, task: { target: 'example.com', location_code: 2840, language_code: 'en' } },
  { post: 'merchant.google.products.task_post', get: 'merchant.google.products.task_get.advanced', postbackData: true, task: { keyword: 'camping tent', location_code: 2840, language_code: 'en' } },
  { post: 'serp.events.task_post', get: 'serp.events.task_get.advanced', postbackData: true, task: { keyword: 'jazz concerts', location_code: 2840, language_code: 'en' } },
];

describe('sandbox data seed', () => {
  for (const c of CASES) {
    it(`${c.post}: the same question gives the same result whatever its tag and callback addresses`, async () => {
      const variants = [
        { ...c.task, tag: 'seo-etl/a/s/1' },
        { ...c.task, tag: 'another-tag', pingback_url: 'http://127.0.0.1:9/cb/one/pingback?id=$id&tag=$tag' },
        { ...c.task, postback_url: 'http://127.0.0.1:9/cb/two/postback?id=$id', ...(c.postbackData ? { postback_data: 'advanced' } : {}) },
      ];
      const ids: string[] = [];
      for (const v of variants) {
        const r = await api.post(pathOf(c.post), [v]);
        expect(r.json.tasks[0].status_code, JSON.stringify(r.json.tasks[0].status_message)).toBe(20100);
        ids.push(r.json.tasks[0].id);
      }
      s.clock.advance(1000);
      const results = [];
      for (const id of ids) {
        const got = await api.get(pathOf(c.get, id));
        expect(got.json.tasks[0].status_code).toBe(20000);
        results.push(got.json.tasks[0].result);
      }
      expect(results[0].length).toBeGreaterThan(0);
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
      // A different question still gives different data (the seed is not constant).
      const other = await api.post(pathOf(c.post), [{ ...c.task, location_code: 2826 }]);
      s.clock.advance(1000);
      const otherResult = (await api.get(pathOf(c.get, other.json.tasks[0].id))).json.tasks[0].result;
      expect(otherResult).not.toEqual(results[0]);
    });
  }
});
