/**
 * The official API client (npm dataforseo-client), unmodified, against the sandbox in its default configuration:
 * every function of the ads-based keyword API posts, is listed ready and is collected, and every answer matches
 * the client's models field by field and type by type; the live calls and the free lists too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dfs from 'dataforseo-client';
import { loadConfig } from '../../src/config/index.js';
import { clockOnDay, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { clientHttp, type ClientHttp } from '../helpers/official-client.js';
import { model, modelProblems } from '../helpers/client-models.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let box: Sandbox;
let api: dfs.KeywordsDataApi;
let client: ClientHttp;

beforeAll(async () => {
  const config = loadConfig({ root: ROOT, env: {} });
  // A fixed day: date_from below stays within the service's four-year window whatever day the test runs.
  box = await startSandbox({ config, clock: clockOnDay('2026-06-15') });
  client = clientHttp(config.sandbox.login, config.sandbox.password);
  api = new dfs.KeywordsDataApi(box.url, client.http);
});
afterAll(async () => box?.close());

const m = dfs as unknown as Record<string, new (data: Record<string, unknown>) => unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Model name stem, the task the client posts, and how many result rows it must give at least. */
const FUNCTIONS = [
  { stem: 'SearchVolume', task: { keywords: ['Running Shoes', 'trail shoes'], location_code: 2840, language_code: 'en', sort_by: 'search_volume' }, rows: 2 },
  { stem: 'KeywordsForSite', task: { target: 'example.com', target_type: 'site', location_name: 'United States', language_name: 'English' }, rows: 5 },
  { stem: 'KeywordsForKeywords', task: { keywords: ['coffee grinder'], location_coordinate: '40.7128,-74.0060', language_code: 'en', date_from: '2025-01-01' }, rows: 2 },
  { stem: 'AdTrafficByKeywords', task: { keywords: ['coffee grinder', 'espresso machine'], bid: 5, match: 'exact', location_code: 2840, language_code: 'en', date_interval: 'next_week' }, rows: 2 },
] as const;

/** The client parsed the answer into `value`; the raw answer and the parsed one both match the model. */
function expectModel(name: string, value: unknown): void {
  expect(value).toBeTruthy();
  expect(modelProblems(name, client.lastRaw())).toEqual([]);
  expect(modelProblems(name, value)).toEqual([]);
}

describe('the model check', () => {
  it('reads the declared fields and catches a missing field, an undeclared one and a wrong type', () => {
    const name = 'KeywordsDataGoogleAdsSearchVolumeTaskGetResultInfo';
    expect([...model(name).fields.keys()].sort()).toEqual(['competition', 'competition_index', 'cpc', 'high_top_of_page_bid', 'keyword', 'language_code', 'location_code', 'low_top_of_page_bid', 'monthly_searches', 'search_partners', 'search_volume', 'spell']);
    const ok = { keyword: 'k', spell: null, location_code: 2840, language_code: 'en', search_partners: false, competition: 'LOW', competition_index: 3, search_volume: 10, low_top_of_page_bid: 0.1, high_top_of_page_bid: 0.5, cpc: 0.2, monthly_searches: [{ year: 2026, month: 1, search_volume: 9 }] };
    expect(modelProblems(name, ok)).toEqual([]);
    const { spell: _spell, ...missing } = ok;
    expect(modelProblems(name, { ...missing, competition: 0.5, categories: [1], monthly_searches: [{ year: '2026', month: 1, search_volume: 9 }] })).toEqual([
      `${name}.categories: not a field of ${name}`, `${name}.spell: missing`, `${name}.competition: expected string, got 0.5`,
      `${name}.monthly_searches[0].year: expected number, got "2026"`,
    ]);
  });
});

describe('the official client against the sandbox (default configuration)', () => {
  for (const f of FUNCTIONS) {
    it(`${f.stem}: task_post, tasks_ready and task_get succeed and match the client's models`, async () => {
      const call = (suffix: string, ...args: unknown[]) => (api as any)[`googleAds${f.stem}${suffix}`](...args);
      const request = new m[`KeywordsDataGoogleAds${f.stem}TaskPostRequestInfo`]({ ...f.task, tag: `acc-${f.stem}` });
      const posted = await call('TaskPost', [request]);
      expectModel(`KeywordsDataGoogleAds${f.stem}TaskPostResponseInfo`, posted);
      expect(posted.tasks[0].status_code).toBe(20100);
      const id: string = posted.tasks[0].id;

      let ready: any;
      for (let i = 0; i < 50; i++) {
        ready = await call('TasksReady');
        if (ready.tasks[0].result?.some((r: any) => r.id === id)) break;
        await sleep(50);
      }
      expectModel(`KeywordsDataGoogleAds${f.stem}TasksReadyResponseInfo`, ready);
      const item = ready.tasks[0].result.find((r: any) => r.id === id);
      expect(item.endpoint).toContain(`/v3/keywords_data/google_ads/`);
      expect(item.tag).toBe(`acc-${f.stem}`);

      const got = await call('TaskGet', id);
      expectModel(`KeywordsDataGoogleAds${f.stem}TaskGetResponseInfo`, got);
      const task = got.tasks[0];
      expect(task.status_code).toBe(20000);
      expect(task.path.slice(0, 3)).toEqual(['v3', 'keywords_data', 'google_ads']);
      expect(task.result.length).toBeGreaterThanOrEqual(f.rows);
      if (f.stem === 'AdTrafficByKeywords') {
        expect(task.result.every((r: any) => r.impressions === null && r.ctr === null && r.match === 'exact' && r.bid === 5)).toBe(true);
        expect(task.result.some((r: any) => typeof r.clicks === 'number' && typeof r.cost === 'number')).toBe(true);
      } else {
        expect(task.result.some((r: any) => ['LOW', 'MEDIUM', 'HIGH'].includes(r.competition) && Number.isInteger(r.competition_index))).toBe(true);
        expect(task.result.every((r: any) => r.competition_index === null || (r.competition_index >= 0 && r.competition_index <= 100))).toBe(true);
      }
      if (f.stem === 'SearchVolume') {
        expect(task.result.map((r: any) => r.keyword).sort()).toEqual(['running shoes', 'trail shoes']);
        const volumes = task.result.map((r: any) => r.search_volume ?? -1);
        expect(volumes).toEqual([...volumes].sort((a: number, b: number) => b - a));
      }
    });
  }

  it('the live method of every function answers in the live models', async () => {
    for (const f of FUNCTIONS) {
      const request = new m[`KeywordsDataGoogleAds${f.stem}LiveRequestInfo`]({ ...f.task });
      const live = await (api as any)[`googleAds${f.stem}Live`]([request]);
      expectModel(`KeywordsDataGoogleAds${f.stem}LiveResponseInfo`, live);
      expect(live.tasks[0].status_code, f.stem).toBe(20000);
      expect(live.tasks[0].result.length).toBeGreaterThanOrEqual(f.rows);
    }
  });

  it('status, locations, locations/{country} and languages match their models', async () => {
    expectModel('KeywordsDataGoogleAdsStatusResponseInfo', await api.googleAdsStatus());
    const locations = await api.googleAdsLocations();
    expectModel('KeywordsDataGoogleAdsLocationsResponseInfo', locations);
    const us = await api.googleAdsLocationsCountry('us');
    expectModel('KeywordsDataGoogleAdsLocationsCountryResponseInfo', us);
    expect(us!.tasks![0].result!.length).toBeGreaterThan(0);
    expect(us!.tasks![0].result!.every((l: any) => l.country_iso_code === 'US')).toBe(true);
    expectModel('KeywordsDataGoogleAdsLanguagesResponseInfo', await api.googleAdsLanguages());
  });

  it('a task breaking a rule is refused with its field named, and nothing is charged', async () => {
    const posted: any = await api.googleAdsSearchVolumeTaskPost([
      new m.KeywordsDataGoogleAdsSearchVolumeTaskPostRequestInfo({ keywords: ['one two three four five six seven eight nine ten eleven'], location_code: 2840 }) as any,
    ]);
    expect(posted.tasks[0].status_code).toBe(40501);
    expect(posted.tasks[0].status_message).toContain("'keywords[0]' must be at most 10 words");
    expect(posted.tasks[0].cost).toBe(0);
  });
});
