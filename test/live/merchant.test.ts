/** docs/api-live.md `## Merchant`: each live rule and shape, against the sandbox (tags name the fact). */
import { describe, expect, it } from 'vitest';
import { useSandbox, pathOf, TIMESTAMP } from '../sandbox/helpers.js';
import { endpoint } from '../../src/api/catalog.js';
import { taskPrice } from '../../src/api/pricing.js';
import { validateTask } from '../../src/api/validate.js';

const box = useSandbox({ completion_delay_ms: 0, rate_limit_calls: 100000 }, { reset: true });

const BASE = { keyword: 'camping tent', location_code: 2840, language_code: 'en' };
const post = async (task: Record<string, unknown>) => (await box.api.post(pathOf('merchant.google.products.task_post'), [task])).json.tasks[0];

describe('merchant task_post rules', () => {
  it('[merchant.language] a language (code or name) is required as well as a location; the client refuses before posting, the sandbox answers 40501', async () => {
    const noLanguage = { keyword: 'tent', location_code: 2840 };
    const local = validateTask(endpoint('merchant.google.products.task_post'), noLanguage);
    expect(local.map((i) => [i.field, i.code])).toEqual([['language_code|language_name', 40501]]);
    const t = await post(noLanguage);
    expect(t.status_code).toBe(40501);
    expect(t.status_message).toContain('language_code');
    expect((await post({ ...noLanguage, language_name: 'English' })).status_code).toBe(20100);
    expect(box.sandbox.controls.postings()).toHaveLength(1);
  });

  it('[merchant.depth] depth defaults to 40 and may be at most 120; 121 is refused and costs nothing', async () => {
    expect((await post({ ...BASE, depth: 121 })).status_code).toBe(40501);
    expect(validateTask(endpoint('merchant.google.products.task_post'), { ...BASE, depth: 121 })[0]).toMatchObject({ field: 'depth', rule: 'must be at most 120' });
    expect((await post({ ...BASE, depth: 120 })).status_code).toBe(20100);
    expect(box.sandbox.controls.billed()).toBeGreaterThan(0);
    expect(box.sandbox.controls.postings()).toHaveLength(1);
  });

  it('[merchant.billing] billed per SERP page of up to 40 results: the plan prices what the sandbox bills', async () => {
    const def = endpoint('merchant.google.products.task_post');
    const prices = box.config.prices;
    const one = taskPrice(def, BASE, prices);
    expect(taskPrice(def, { ...BASE, depth: 40 }, prices)).toBe(one);
    expect(taskPrice(def, { ...BASE, depth: 41 }, prices)).toBeCloseTo(2 * one, 9);
    expect(taskPrice(def, { ...BASE, depth: 120 }, prices)).toBeCloseTo(3 * one, 9);
    const costs = [];
    for (const depth of [undefined, 40, 41, 80, 81, 120]) costs.push((await post(depth === undefined ? BASE : { ...BASE, depth })).cost);
    expect(costs).toEqual([one, one, 2 * one, 2 * one, 3 * one, 3 * one].map((c) => Math.round(c * 1e6) / 1e6));
  });

  it('[merchant.fields] max_crawl_pages (at most 7), search_param, url, prices, sort_by, priority, se_domain and postback_data advanced|html are accepted', async () => {
    const full = { ...BASE, max_crawl_pages: 7, search_param: '&tbs=p_ord:rv', price_min: 5, price_max: 100, sort_by: 'review_score', priority: 2, se_domain: 'google.co.uk', tag: 't', postback_url: 'https://example.com/pb?id=$id', postback_data: 'html' };
    expect(validateTask(endpoint('merchant.google.products.task_post'), full)).toEqual([]);
    expect((await post(full)).status_code).toBe(20100);
    expect((await post({ ...BASE, url: 'https://www.google.com/search?q=tent&tbm=shop&hl=en&gl=US' })).status_code).toBe(20100);
    expect((await post({ ...BASE, max_crawl_pages: 8 })).status_code).toBe(40501);
    expect((await post({ ...BASE, sort_by: 'relevance' })).status_code).toBe(40501);
    expect((await post({ ...BASE, postback_url: 'https://example.com/pb', postback_data: 'regular' })).status_code).toBe(40501);
  });

  it('[merchant.unknown] a field the live service does not know (device, os) is refused before posting, 40506', async () => {
    for (const extra of [{ device: 'desktop' }, { os: 'windows' }, { colour: 'red' }]) {
      const issues = validateTask(endpoint('merchant.google.products.task_post'), { ...BASE, ...extra });
      expect(issues[0]).toMatchObject({ field: Object.keys(extra)[0], code: 40506 });
      expect((await post({ ...BASE, ...extra })).status_code).toBe(40506);
    }
    expect(box.sandbox.controls.postings()).toHaveLength(0);
  });
});

describe('merchant results', () => {
  it('[merchant.tasks_ready] tasks_ready items carry endpoint_advanced and endpoint_html, and task_get/html serves the pages', async () => {
    const id = (await post({ ...BASE, depth: 81, max_crawl_pages: 2 })).id;
    const ready = (await box.api.get(pathOf('merchant.google.products.tasks_ready'))).json.tasks[0].result;
    expect(ready).toEqual([{ id, se: 'alpha', se_type: 'shopping', date_posted: expect.stringMatching(TIMESTAMP), tag: null, endpoint_advanced: pathOf('merchant.google.products.task_get.advanced', id), endpoint_html: pathOf('merchant.google.products.task_get.html', id) }]);
    const html = (await box.api.get(ready[0].endpoint_html)).json.tasks[0];
    expect(html.status_code).toBe(20000);
    expect(html.result[0]).toMatchObject({ keyword: 'camping tent', type: 'shopping', items_count: 2 });
    expect(html.result[0].items.map((p: any) => p.page)).toEqual([1, 2]);
    expect(html.result[0].items[0].html).toContain('<html');
  });

  it('[merchant.shapes] items: the product carousel type, stores_count_info on the item with a numeric count, gid, delivery dates, numeric rating values', async () => {
    const id = (await post(BASE)).id;
    const seen = new Set<string>();
    let n = 0;
    for (let k = 0; k < 30 && seen.size < 5; k++) {
      const t = (await box.api.get(pathOf('merchant.google.products.task_get.advanced', k === 0 ? id : (await post({ ...BASE, keyword: `kw ${k}` })).id))).json.tasks[0];
      for (const item of t.result[0].items) {
        seen.add(item.type);
        if (item.type === 'alpha_shopping_serp') {
          n++;
          expect(typeof item.stores_count_info.count).toBe('number');
          expect(typeof item.product_rating.value).toBe('number');
          expect(item.gid).toMatch(/^\d+$/);
          expect(item.delivery_info.delivery_date_to).toMatch(TIMESTAMP);
          expect(item.delivery_info).not.toHaveProperty('stores_count_info');
        }
        if (item.type === 'alpha_shopping_carousel') for (const e of item.items) expect(e).toMatchObject({ type: 'alpha_shopping_carousel_element', gid: expect.any(String), product_id: expect.any(String), price: expect.any(Number) });
      }
    }
    expect(n).toBeGreaterThan(0);
    expect(seen.has('alpha_shopping_carousel')).toBe(true);
  });
});
