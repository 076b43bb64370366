/** The reference's States table, row by row, on an injected clock. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { start, client, pathOf, TIMESTAMP, type Started } from './helpers.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ completion_delay_ms: 1000, reparse_share: 0, rate_limit_calls: 100000 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());
beforeEach(() => {
  s.sandbox.controls.reset();
  s.sandbox.controls.setCompletionDelay(1000);
});

const DAY = 86_400_000;
const SITE_POST = pathOf('keywords_for_site.task_post');
const SITE_READY = pathOf('keywords_for_site.tasks_ready');
const siteGet = (id: string) => pathOf('keywords_for_site.task_get', id);
const readyIds = async (path = SITE_READY) => (await api.get(path)).json.tasks[0].result.map((r: any) => r.id);

describe('(none) -> Created', () => {
  it('POST creates the task: 20100, result null, charged at posting, recorded once', async () => {
    const r = await api.post(SITE_POST, [{ target: 'example.com', location_code: 2840, tag: 'site-1' }]);
    const t = r.json.tasks[0];
    expect([t.status_code, t.result, t.cost]).toEqual([20100, null, 0.075]);
    expect(s.sandbox.controls.billed()).toBe(0.075);
    const [posting] = s.sandbox.controls.postings();
    expect(posting).toMatchObject({ id: t.id, endpointId: 'keywords_for_site.task_post', tag: 'site-1', cost: 0.075, postedAt: s.clock.now() });
  });
});

describe('Created -> Completed (no callback) -> Collected', () => {
  it('task_get before completion is 40602; the ready list is empty until the delay passes', async () => {
    const id = (await api.post(SITE_POST, [{ target: 'example.com', location_code: 2840 }])).json.tasks[0].id;
    const early = await api.get(siteGet(id));
    expect([early.json.status_code, early.json.tasks[0].status_code, early.json.tasks[0].result]).toEqual([20000, 40602, null]);
    expect(await readyIds()).toEqual([]);
    s.clock.advance(999);
    expect(await readyIds()).toEqual([]);
    s.clock.advance(1);
    expect(await readyIds()).toEqual([id]);
  });
  it('the ready item carries id, se, date_posted, tag and an endpoint usable directly in a GET', async () => {
    const id = (await api.post(SITE_POST, [{ target: 'example.com', location_code: 2840, tag: 'x' }])).json.tasks[0].id;
    s.clock.advance(1000);
    const item = (await api.get(SITE_READY)).json.tasks[0].result[0];
    expect(item).toEqual({ id, se: 'alpha', date_posted: expect.stringMatching(TIMESTAMP), tag: 'x', endpoint: siteGet(id) });
    const got = await api.get(item.endpoint);
    expect(got.json.tasks[0].status_code).toBe(20000);
  });
  it('task_get collects: the task leaves the ready list and stays retrievable with the same data until 30 days', async () => {
    const ids = (await api.post(SITE_POST, [{ target: 'a.example.com', location_code: 2840 }, { target: 'b.example.com', location_code: 2840 }])).json.tasks.map((t: any) => t.id);
    s.clock.advance(1000);
    expect(await readyIds()).toEqual(ids);
    const first = await api.get(siteGet(ids[0]));
    expect(first.json.tasks[0]).toMatchObject({ status_code: 20000, result_count: 20, cost: 0 });
    expect(first.json.tasks[0].data).toMatchObject({ api: 'keywords_data', function: 'keywords_for_site', se: 'alpha', target: 'a.example.com' });
    expect(await readyIds()).toEqual([ids[1]]);
    s.clock.advance(30 * DAY - 1000);
    const again = await api.get(siteGet(ids[0]));
    expect(again.json.tasks[0].result).toEqual(first.json.tasks[0].result);
    s.clock.advance(1001);
    const expired = await api.get(siteGet(ids[0]));
    expect(expired.json.tasks[0].status_code).toBe(40403);
    expect(expired.json.tasks[0].status_message).toContain('30 days');
    expect(await readyIds()).toEqual([]); // an uncollected task past retention is no longer listed either
  });
  it('unknown ids are 40401, ids of another function 40004, ids that are not UUIDs 40501', async () => {
    const unknown = await api.get(siteGet('aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee'));
    expect(unknown.json.tasks[0].status_code).toBe(40401);
    const kfk = (await api.post(pathOf('keywords_for_keywords.task_post'), [{ keywords: ['shoes'] }])).json.tasks[0].id;
    s.clock.advance(1000);
    expect((await api.get(siteGet(kfk))).json.tasks[0].status_code).toBe(40004);
    expect((await api.get(pathOf('merchant.google.products.task_get.advanced', kfk))).json.tasks[0].status_code).toBe(40401);
    const bad = await api.get(siteGet('12345'));
    expect(bad.json.tasks[0].status_code).toBe(40501);
    expect(bad.json.tasks[0].status_message).toContain("'id'");
  });
  it('tasks_ready lists at most 1000 per call, oldest first', async () => {
    for (let b = 0; b < 11; b++) {
      await api.post(SITE_POST, Array.from({ length: 100 }, (_, i) => ({ target: `s${b}-${i}.example.com` })));
    }
    s.clock.advance(1000);
    const first = await readyIds();
    expect(first).toHaveLength(1000);
    expect(first[0]).toBe(s.sandbox.controls.postings()[0].id);
  });
  it('every family lists its own ready items with the reference fields', async () => {
    const m = (await api.post(pathOf('merchant.google.products.task_post'), [{ keyword: 'shoes', location_code: 2840, language_code: 'en', tag: 'm' }])).json.tasks[0].id;
    const e = (await api.post(pathOf('serp.events.task_post'), [{ keyword: 'jazz', location_code: 2840, tag: 'e' }])).json.tasks[0].id;
    s.clock.advance(1000);
    const mi = (await api.get(pathOf('merchant.google.products.tasks_ready'))).json.tasks[0].result;
    expect(mi).toEqual([{ id: m, se: 'alpha', se_type: 'shopping', date_posted: expect.stringMatching(TIMESTAMP), tag: 'm', endpoint_advanced: pathOf('merchant.google.products.task_get.advanced', m), endpoint_html: pathOf('merchant.google.products.task_get.html', m) }]);
    const ei = (await api.get(pathOf('serp.events.tasks_ready'))).json.tasks[0].result;
    expect(ei).toEqual([{ id: e, se: 'alpha', se_type: 'events', date_posted: expect.stringMatching(TIMESTAMP), tag: 'e',
      endpoint_regular: pathOf('serp.events.task_get.regular', e), endpoint_advanced: pathOf('serp.events.task_get.advanced', e), endpoint_html: pathOf('serp.events.task_get.html', e) }]);
    for (const variant of ['regular', 'advanced', 'html']) {
      expect((await api.get(ei[0][`endpoint_${variant}`])).json.tasks[0].status_code).toBe(20000);
    }
    expect((await api.get(pathOf('serp.events.tasks_ready'))).json.tasks[0].result).toEqual([]);
  });
});

describe('Completed, re-parsed -> tasks_fixed', () => {
  const FIXED = pathOf('serp.events.tasks_fixed');
  it('a re-parsed task is listed until collected, with date_fixed and the three endpoints', async () => {
    const id = (await api.post(pathOf('serp.events.task_post'), [{ keyword: 'jazz', location_code: 2840, tag: 'f' }])).json.tasks[0].id;
    s.clock.advance(1000);
    await api.get(pathOf('serp.events.task_get.advanced', id));
    expect((await api.get(FIXED)).json.tasks[0].result).toEqual([]);
    expect(s.sandbox.controls.reparse([id])).toEqual([id]);
    const [item] = (await api.get(FIXED)).json.tasks[0].result;
    expect(item).toEqual({ id, se: 'alpha', se_type: 'events', date_fixed: expect.stringMatching(TIMESTAMP), tag: 'f',
      endpoint_regular: pathOf('serp.events.task_get.regular', id), endpoint_advanced: pathOf('serp.events.task_get.advanced', id), endpoint_html: pathOf('serp.events.task_get.html', id) });
    await api.get(item.endpoint_regular);
    expect((await api.get(FIXED)).json.tasks[0].result).toEqual([]);
  });
  it('tasks not collected within 24 hours after the re-parse drop out', async () => {
    const id = (await api.post(pathOf('serp.events.task_post'), [{ keyword: 'jazz', location_code: 2840 }])).json.tasks[0].id;
    s.clock.advance(1000);
    s.sandbox.controls.reparse([id]);
    s.clock.advance(23 * 3_600_000);
    expect((await api.get(FIXED)).json.tasks[0].result.map((r: any) => r.id)).toEqual([id]);
    s.clock.advance(2 * 3_600_000);
    expect((await api.get(FIXED)).json.tasks[0].result).toEqual([]);
  });
  it('reparse_share of the configured value re-parses that share by itself, about one shortly after completion', async () => {
    const all = await start({ completion_delay_ms: 100, reparse_share: 1 });
    const half = await start({ completion_delay_ms: 100, reparse_share: 0.5 });
    try {
      const tasks = Array.from({ length: 100 }, (_, i) => ({ keyword: `event ${i}`, location_code: 2840 }));
      await client(all.sandbox).post(pathOf('serp.events.task_post'), tasks);
      await client(half.sandbox).post(pathOf('serp.events.task_post'), tasks);
      all.clock.advance(150);
      expect((await client(all.sandbox).get(FIXED)).json.tasks[0].result).toEqual([]); // completed, not yet re-parsed
      all.clock.advance(100);
      half.clock.advance(250);
      expect((await client(all.sandbox).get(FIXED)).json.tasks[0].result).toHaveLength(100);
      const n = (await client(half.sandbox).get(FIXED)).json.tasks[0].result.length;
      expect(n).toBeGreaterThan(30);
      expect(n).toBeLessThan(70);
    } finally {
      await all.sandbox.close();
      await half.sandbox.close();
    }
  });
});
