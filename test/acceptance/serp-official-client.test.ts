/**
 * The official API client (npm dataforseo-client), unmodified, against the sandbox in its default configuration:
 * task_post, tasks_ready, task_get (each variant) and live of every SERP engine and type the client has succeed,
 * and every answer matches the client's models field by field, each item resolving to the class its `type` maps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dfs from 'dataforseo-client';
import { loadConfig } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { clientHttp, type ClientHttp } from '../helpers/official-client.js';
import { modelProblems } from '../helpers/client-models.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let box: Sandbox;
let api: dfs.SerpApi;
let client: ClientHttp;

beforeAll(async () => {
  const config = loadConfig({ root: ROOT, env: {} });
  box = await startSandbox({ config });
  client = clientHttp(config.sandbox.login, config.sandbox.password);
  api = new dfs.SerpApi(box.url, client.http);
});
afterAll(async () => box?.close());

const m = dfs as unknown as Record<string, new (data: Record<string, unknown>) => unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each type of the client: its method stem, model stem, variants of task_get and live, and a task for it. */
const TYPES = [
  { stem: 'googleOrganic', model: 'SerpGoogleOrganic', get: ['Regular', 'Advanced', 'Html'], live: ['Regular', 'Advanced', 'Html'],
    task: { keyword: 'running shoes', location_code: 2840, language_code: 'en', depth: 20, load_async_ai_overview: true, calculate_rectangles: true, people_also_ask_click_depth: 2 } },
  { stem: 'googleNews', model: 'SerpGoogleNews', get: ['Advanced', 'Html'], live: ['Advanced', 'Html'], task: { keyword: 'running shoes', location_code: 2840, language_code: 'en' } },
  { stem: 'googleImages', model: 'SerpGoogleImages', get: ['Advanced', 'Html'], live: ['Advanced', 'Html'], task: { keyword: 'running shoes', location_code: 2840, language_code: 'en' } },
  { stem: 'googleAiMode', model: 'SerpGoogleAiMode', get: ['Advanced', 'Html'], live: ['Advanced', 'Html'], task: { keyword: 'best running shoes', location_code: 2840, language_code: 'en', calculate_rectangles: true } },
  { stem: 'googleMaps', model: 'SerpGoogleMaps', get: ['Advanced'], live: ['Advanced'], task: { keyword: 'coffee', location_code: 2840, language_code: 'en', depth: 20 } },
  { stem: 'bingOrganic', model: 'SerpBingOrganic', get: ['Regular', 'Advanced', 'Html'], live: ['Regular', 'Advanced', 'Html'], task: { keyword: 'running shoes', location_code: 2840, language_code: 'en' } },
  { stem: 'yahooOrganic', model: 'SerpYahooOrganic', get: ['Regular', 'Advanced', 'Html'], live: ['Regular', 'Advanced', 'Html'], task: { keyword: 'running shoes', location_code: 2840, language_code: 'en' } },
  { stem: 'baiduOrganic', model: 'SerpBaiduOrganic', get: ['Regular', 'Advanced', 'Html'], live: [], task: { keyword: 'running shoes', location_code: 2156 } },
] as const;

/** The client parsed the answer into `value`; the raw answer matches the model field by field. */
function expectModel(name: string, value: unknown): void {
  expect(value).toBeTruthy();
  expect(modelProblems(name, client.lastRaw())).toEqual([]);
}

describe('the official client against the sandbox: every SERP engine and type', () => {
  for (const t of TYPES) {
    it(`${t.stem}: task_post, tasks_ready, task_get ${t.get.join('/')} and live ${t.live.join('/') || '(none)'} match the client's models`, async () => {
      const call = (suffix: string, ...args: unknown[]) => (api as any)[`${t.stem}${suffix}`](...args);
      const posted = await call('TaskPost', [new m[`${t.model}TaskPostRequestInfo`]({ ...t.task, tag: `acc-${t.stem}` })]);
      expectModel(`${t.model}TaskPostResponseInfo`, posted);
      expect(posted.tasks[0].status_code, posted.tasks[0].status_message).toBe(20100);
      const id: string = posted.tasks[0].id;

      let ready: any;
      for (let i = 0; i < 60; i++) {
        ready = await call('TasksReady');
        if (ready.tasks[0].result?.some((r: any) => r.id === id)) break;
        await sleep(50);
      }
      expectModel(`${t.model}TasksReadyResponseInfo`, ready);
      expect(ready.tasks[0].result.find((r: any) => r.id === id)).toMatchObject({ tag: `acc-${t.stem}` });

      for (const v of t.get) {
        const got = await call(`TaskGet${v}`, id);
        expectModel(`${t.model}TaskGet${v}ResponseInfo`, got);
        expect(got.tasks[0].status_code, `${v}: ${got.tasks[0].status_message}`).toBe(20000);
        expect(got.tasks[0].result[0].items.length).toBeGreaterThan(0);
      }
      for (const v of t.live) {
        const live = await call(`Live${v}`, [new m[`${t.model}Live${v}RequestInfo`]({ ...t.task, depth: 10 })]);
        expectModel(`${t.model}Live${v}ResponseInfo`, live);
        expect(live.tasks[0].status_code, `live ${v}: ${live.tasks[0].status_message}`).toBe(20000);
      }
    });
  }

  it('locations, locations of a country, languages of every engine, and tasks_fixed of every type match their models', async () => {
    for (const e of ['google', 'bing', 'yahoo', 'baidu']) {
      const cap = e[0].toUpperCase() + e.slice(1);
      const all: any = await (api as any)[`${e}Locations`]();
      expectModel(`Serp${cap}LocationsResponseInfo`, all);
      expect(all.tasks[0].result.length).toBeGreaterThan(10);
      const us: any = await (api as any)[`${e}LocationsCountry`]('us');
      expectModel(`Serp${cap}LocationsCountryResponseInfo`, us);
      expect(us.tasks[0].result.length).toBeGreaterThan(0);
      expect(us.tasks[0].result.every((l: any) => l.country_iso_code === 'US')).toBe(true);
      const langs: any = await (api as any)[`${e}Languages`]();
      expectModel(`Serp${cap}LanguagesResponseInfo`, langs);
      expect(langs.tasks[0].result.some((l: any) => l.language_code === 'en')).toBe(true);
    }
    for (const t of TYPES) {
      const fixed: any = await (api as any)[`${t.stem}TasksFixed`]();
      expectModel(`${t.model}TasksFixedResponseInfo`, fixed);
      expect(fixed.tasks[0].status_code).toBe(20000);
    }
  });

  it('crawl control: stop_crawl_on_match with a target on live organic is taken, and a broken target named', async () => {
    const target = new (m.SerpApiStopCrawlOnMatchInfo as any)({ match_value: 'example.com', match_type: 'with_subdomains' });
    const ok: any = await api.googleOrganicLiveAdvanced([new m.SerpGoogleOrganicLiveAdvancedRequestInfo({
      keyword: 'running shoes', location_code: 2840, language_code: 'en', depth: 50, stop_crawl_on_match: [target], target_search_mode: 'any', find_targets_in: ['organic'], target: 'example.com*',
    }) as any]);
    expect(ok.tasks[0].status_code, ok.tasks[0].status_message).toBe(20000);
    const bad: any = await api.googleOrganicTaskPost([new m.SerpGoogleOrganicTaskPostRequestInfo({
      keyword: 'running shoes', location_code: 2840, language_code: 'en', target_search_mode: 'all',
    }) as any]);
    expect(bad.tasks[0].status_code).toBe(40501);
    expect(bad.tasks[0].status_message).toContain("'target_search_mode' works only with stop_crawl_on_match set");
    const deep: any = await api.googleOrganicLiveRegular([new m.SerpGoogleOrganicLiveRegularRequestInfo({ keyword: 'k', location_code: 2840, language_code: 'en', depth: 300 }) as any]);
    expect(deep.tasks[0].status_code).toBe(40501);
    expect(deep.tasks[0].status_message).toContain("'depth' must be at most 200");
    expect(deep.tasks[0].cost).toBe(0);
  });
});
