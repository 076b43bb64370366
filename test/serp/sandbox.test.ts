/** The sandbox answers every SERP type and variant of the catalog within the task lifecycle, billed as plan prices it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, client, pathOf, TIMESTAMP, type Started } from '../sandbox/helpers.js';
import { SERP_ENDPOINTS } from '../../src/families/serp/endpoints.js';
import { endpoint } from '../../src/api/catalog.js';
import { taskPrice } from '../../src/api/pricing.js';
import { DAY_MS } from '../../src/sandbox/clock.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start({ completion_delay_ms: 1000, reparse_share: 0, rate_limit_calls: 100000 });
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());

const taskFor = (id: string, extra: Record<string, unknown> = {}) => ({ keyword: 'running shoes', location_code: 2840, ...(id.startsWith('serp.baidu') ? {} : { language_code: 'en' }), ...extra });
// As the catalog completes them: a task_post's tasks_ready and task_get are derived, not declared.
const POSTS = SERP_ENDPOINTS.filter((e) => e.kind === 'task_post').map((e) => endpoint(e.id));
const LIVES = SERP_ENDPOINTS.filter((e) => e.kind === 'live');

describe('SERP task endpoints', () => {
  it('every type: task_post 20100 billed by the price table, tasks_ready points at each variant, each variant answers', async () => {
    const posted = new Map<string, string>();
    for (const def of POSTS) {
      const t = taskFor(def.id, { ...(def.fields?.depth ? { depth: 20 } : {}), tag: def.id });
      const r = await api.post(pathOf(def.id), [t]);
      const task = r.json.tasks[0];
      expect(task.status_code, `${def.id}: ${task.status_message}`).toBe(20100);
      expect(task.cost).toBe(taskPrice(def, t, s.config.prices));
      expect(task.data).toMatchObject({ api: 'serp', function: 'task_post', se_type: def.seType, device: 'desktop' });
      posted.set(def.id, task.id);
    }
    s.clock.advance(1000);
    for (const def of POSTS) {
      const id = posted.get(def.id)!;
      const [item] = (await api.get(pathOf(def.readyId!))).json.tasks[0].result;
      expect(item).toMatchObject({ id, se_type: def.seType, date_posted: expect.stringMatching(TIMESTAMP), tag: def.id });
      for (const variant of ['regular', 'advanced', 'html'] as const) {
        const getId = `${def.id.replace(/task_post$/, 'task_get')}.${variant}`;
        const exists = SERP_ENDPOINTS.some((e) => e.id === getId);
        expect(item[`endpoint_${variant}`], `${def.id} ${variant}`).toBe(exists ? pathOf(getId, id) : null);
        if (!exists) continue;
        const got = (await api.get(item[`endpoint_${variant}`])).json.tasks[0];
        expect(got.status_code, `${getId}: ${got.status_message}`).toBe(20000);
        const [result] = got.result;
        expect(result).toMatchObject({ keyword: 'running shoes', type: def.seType, location_code: 2840, datetime: expect.stringMatching(TIMESTAMP) });
        expect(result.items.length).toBeGreaterThan(0);
        if (variant === 'html') expect(result.items[0].html).toContain('<html>');
        else {
          expect(result.items_count).toBe(result.items.length);
          expect(result.items.map((i: any) => i.rank_absolute)).toEqual(result.items.map((_: unknown, k: number) => k + 1));
          expect(result.item_types).toEqual([...new Set(result.items.map((i: any) => i.type))]);
        }
      }
    }
  });

  it('a result is the same on the same day and moves on the next; desktop and mobile differ', async () => {
    const def = endpoint('serp.google.organic.task_post');
    const post = async (extra: Record<string, unknown> = {}) => (await api.post(pathOf(def.id), [taskFor(def.id, { depth: 30, ...extra })])).json.tasks[0].id;
    const organic = async (id: string) => {
      const r = (await api.get(pathOf('serp.google.organic.task_get.regular', id))).json.tasks[0].result[0];
      return r.items.filter((i: any) => i.type === 'organic').map((i: any) => i.domain);
    };
    const a = await post();
    const b = await post({ tag: 'again' });
    const m = await post({ device: 'mobile' });
    s.clock.advance(1000);
    const dayOne = await organic(a);
    expect(await organic(b)).toEqual(dayOne);
    expect(await organic(m)).not.toEqual(dayOne);
    s.clock.advance(DAY_MS);
    const c = await post();
    s.clock.advance(1000);
    const dayTwo = await organic(c);
    expect(dayTwo).not.toEqual(dayOne);
    expect(new Set(dayTwo).size).toBe(30);
  });
});

describe('SERP tasks_fixed, locations and languages', () => {
  it('a re-parsed task of every type is listed with date_posted and its variants, until collected again', async () => {
    for (const def of POSTS) {
      const id = (await api.post(pathOf(def.id), [taskFor(def.id, { tag: `fix-${def.id}` })])).json.tasks[0].id;
      s.clock.advance(1000);
      await api.get(pathOf(def.getId!, id));
      const FIXED = pathOf(def.id.replace(/task_post$/, 'tasks_fixed'));
      expect((await api.get(FIXED)).json.tasks[0].result).toEqual([]);
      expect(s.sandbox.controls.reparse([id])).toEqual([id]);
      const [item] = (await api.get(FIXED)).json.tasks[0].result;
      expect(item).toMatchObject({ id, se_type: def.seType, date_posted: expect.stringMatching(TIMESTAMP), tag: `fix-${def.id}`, endpoint_advanced: pathOf(def.getId!.replace(/\.(regular|html)$/, '.advanced'), id) });
      expect(item).not.toHaveProperty('date_fixed');
      await api.get(item.endpoint_advanced);
      expect((await api.get(FIXED)).json.tasks[0].result).toEqual([]);
    }
  });

  it('each engine lists its locations (one country by ISO code) and languages', async () => {
    for (const e of ['google', 'bing', 'yahoo', 'baidu']) {
      const all = (await api.get(pathOf(`serp.${e}.locations`))).json.tasks[0];
      expect(all.status_code).toBe(20000);
      expect(all.result.some((l: any) => l.location_code === 2840)).toBe(true);
      const gb = (await api.get(pathOf(`serp.${e}.locations.country`, 'gb'))).json.tasks[0].result;
      expect(gb.length).toBeGreaterThan(0);
      expect(gb.every((l: any) => l.country_iso_code === 'GB')).toBe(true);
      expect((await api.get(pathOf(`serp.${e}.languages`))).json.tasks[0].result).toContainEqual({ language_name: 'English', language_code: 'en' });
    }
  });
});

describe('SERP live endpoints', () => {
  it('every live endpoint answers its variant in the response, billed per request and page', async () => {
    for (const def of LIVES) {
      const t = taskFor(def.id, def.fields?.depth ? { depth: 20 } : {});
      const r = await api.post(pathOf(def.id), [t]);
      const task = r.json.tasks[0];
      expect(task.status_code, `${def.id}: ${task.status_message}`).toBe(20000);
      expect(task.cost).toBe(taskPrice(def, t, s.config.prices));
      expect(task.cost).toBeGreaterThan(0);
      expect(task.result[0].type).toBe(def.seType);
      if (def.result === 'serp_html') expect(typeof task.result[0].items[0].html).toBe('string');
      else expect(task.result[0].items[0]).toHaveProperty('rank_absolute', 1);
      const two = await api.post(pathOf(def.id), [t, t]);
      expect(two.json.tasks[1].status_code).toBe(40000);
    }
  });
});
