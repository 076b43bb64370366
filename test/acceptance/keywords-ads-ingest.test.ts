/**
 * Answers in the live service's shapes for every function of the ads-based keyword API (task_get and live),
 * written as a user would save them and fed through `seo-etl ingest`, land in typed columns with no `extra`;
 * a legacy answer in the same files keeps its 0-1 competition in its own column.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { KEYWORD_VIEWS } from '../../src/families/keywords_data/views.js';
import { useIngestProject } from '../helpers/ingest-project.js';

const { root, ingest, rows } = useIngestProject('ads-ingest');

const months = [{ year: 2026, month: 10, search_volume: 1300 }, { year: 2026, month: 9, search_volume: 1000 }];
const metrics = (keyword: string, extra: Record<string, unknown> = {}) => ({
  keyword, spell: null, location_code: 2840, language_code: 'en', search_partners: false, competition: 'HIGH', competition_index: 87,
  search_volume: 1300, low_top_of_page_bid: 0.61, high_top_of_page_bid: 2.93, cpc: 1.42, monthly_searches: months, ...extra,
});
const traffic = (keyword: string) => ({
  keyword, location_code: 2840, language_code: 'en', date_interval: 'next_month', search_partners: false, bid: 999, match: 'exact',
  impressions: null, ctr: null, average_cpc: 1.73, cost: 421.55, clicks: 243.68,
});

/** One envelope as the live service sends it; `data` echoes the request with api, function and se. */
function envelope(fn: string, method: 'task_get' | 'live', data: Record<string, unknown>, result: unknown[], id: string) {
  const path = ['v3', 'keywords_data', 'google_ads', fn, ...(method === 'task_get' ? ['task_get', id] : ['live'])];
  return {
    version: '0.1.20260911', status_code: 20000, status_message: 'Ok.', time: '0.6 sec.', cost: method === 'live' ? 0.075 : 0, tasks_count: 1, tasks_error: 0,
    tasks: [{ id, status_code: 20000, status_message: 'Ok.', time: '0.5 sec.', cost: method === 'live' ? 0.075 : 0, result_count: result.length, path, data: { api: 'keywords_data', function: fn, se: 'google_ads', ...data }, result }],
  };
}

const FILES: Record<string, unknown[]> = {
  'search-volume.json': [envelope('search_volume', 'task_get', { keywords: ['buy laptop', 'cheap laptops'], location_code: 2840, language_code: 'en', date_from: '2025-11-01', sort_by: 'search_volume', include_adult_keywords: false, tag: 'sv' }, [metrics('buy laptop'), metrics('cheap laptops', { spell: 'cheap laptop', competition: 'LOW', competition_index: 12 })], '11231201-0001-0110-0000-000000000001')],
  'site.json': [envelope('keywords_for_site', 'task_get', { target: 'dataforseo.com', target_type: 'site', location_code: 2840, language_code: 'en', search_partners: true }, [metrics('seo api', { competition: 'MEDIUM', competition_index: 50, search_partners: true })], '11231201-0001-0110-0000-000000000002')],
  'ideas.json': [envelope('keywords_for_keywords', 'task_get', { keywords: ['phone'], target: 'example.com', location_name: 'United States', language_name: 'English', date_to: '2026-10-31' }, [metrics('phone case'), metrics('cell phone', { competition: null, competition_index: null, low_top_of_page_bid: null, high_top_of_page_bid: null, cpc: null, search_volume: null, monthly_searches: null })], '11231201-0001-0110-0000-000000000003')],
  'traffic.json': [envelope('ad_traffic_by_keywords', 'task_get', { keywords: ['seo marketing'], bid: 999, match: 'exact', date_interval: 'next_month', location_code: 2840, language_code: 'en' }, [traffic('seo marketing')], '11231201-0001-0110-0000-000000000004')],
  'live.ndjson': [
    envelope('search_volume', 'live', { keywords: ['laptop'], location_coordinate: '52.6178549,-155.352142' }, [metrics('laptop')], '11231201-0001-0110-0000-000000000005'),
    envelope('keywords_for_site', 'live', { target: 'example.com/page', target_type: 'page' }, [metrics('page keyword')], '11231201-0001-0110-0000-000000000006'),
    envelope('keywords_for_keywords', 'live', { keywords: ['tea'] }, [metrics('green tea')], '11231201-0001-0110-0000-000000000007'),
    envelope('ad_traffic_by_keywords', 'live', { keywords: ['tea', 'coffee'], bid: 2.5, match: 'phrase', date_from: '2026-12-01', date_to: '2026-12-31' }, [{ ...traffic('tea'), date_interval: null, bid: 2.5, match: 'phrase' }, { ...traffic('coffee'), date_interval: null, bid: 2.5, match: 'phrase' }], '11231201-0001-0110-0000-000000000008'),
    // The legacy family, as the sandbox still serves it: competition 0-1.
    { version: '0.1.20221214', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [{ id: '11231201-0001-0110-0000-000000000009', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, result_count: 1, path: ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', '11231201-0001-0110-0000-000000000009'], data: { api: 'keywords_data', function: 'keywords_for_site', se: 'google', target: 'old.example' }, result: [{ keyword: 'legacy kw', location_code: 2840, language_code: 'en', search_partners: false, competition: 0.42, cpc: 1.1, search_volume: 90, categories: [10021], monthly_searches: months }] }] },
  ],
};

describe('ingest of the ads-based keyword API in the live shapes', () => {
  it('lands every function in typed columns with an empty extra', async () => {
    const files = Object.entries(FILES).map(([name, envs]) => {
      const file = path.join(root, name);
      writeFileSync(file, name.endsWith('.ndjson') ? envs.map((e) => JSON.stringify(e)).join('\n') : JSON.stringify(envs[0]));
      return file;
    });
    expect(await ingest(files)).not.toMatch(/unknown fields|values that could not be typed/);

    const kw = await rows(`SELECT endpoint_id, function, api_version, keyword, spell, competition, competition_level, competition_index, low_top_of_page_bid, high_top_of_page_bid, cpc, search_volume, search_partners, extra FROM keyword_data ORDER BY endpoint_id, keyword`);
    expect(kw.map((r) => r.endpoint_id)).toEqual([
      'keywords_data.google_ads.keywords_for_keywords.live', 'keywords_data.google_ads.keywords_for_keywords.task_get', 'keywords_data.google_ads.keywords_for_keywords.task_get',
      'keywords_data.google_ads.keywords_for_site.live', 'keywords_data.google_ads.keywords_for_site.task_get',
      'keywords_data.google_ads.search_volume.live', 'keywords_data.google_ads.search_volume.task_get', 'keywords_data.google_ads.search_volume.task_get', 'keywords_for_site.task_get',
    ]);
    expect(kw.every((r) => r.extra === null)).toBe(true);
    const cheap = kw.find((r) => r.keyword === 'cheap laptops')!;
    expect(cheap).toMatchObject({ function: 'search_volume', api_version: '0.1.20260911', spell: 'cheap laptop', competition: null, competition_level: 'LOW', competition_index: 12, low_top_of_page_bid: 0.61, high_top_of_page_bid: 2.93, cpc: 1.42, search_volume: 1300n, search_partners: false });
    expect(kw.find((r) => r.keyword === 'cell phone')).toMatchObject({ competition_level: null, competition_index: null, cpc: null, search_volume: null });
    expect(kw.find((r) => r.keyword === 'legacy kw')).toMatchObject({ endpoint_id: 'keywords_for_site.task_get', competition: 0.42, competition_level: null, competition_index: null, api_version: '0.1.20221214' });

    const months = await rows(`SELECT count(*)::INT n, count(extra)::INT e FROM keyword_data__monthly_searches`);
    expect(months).toEqual([{ n: 16, e: 0 }]);
    const ads = await rows(`SELECT endpoint_id, function, api_version, keyword, date_interval, bid, match, impressions, ctr, average_cpc, cost, clicks, extra FROM keyword_ad_traffic ORDER BY endpoint_id, keyword`);
    expect(ads).toEqual([
      { endpoint_id: 'keywords_data.google_ads.ad_traffic_by_keywords.live', function: 'ad_traffic_by_keywords', api_version: '0.1.20260911', keyword: 'coffee', date_interval: null, bid: 2.5, match: 'phrase', impressions: null, ctr: null, average_cpc: 1.73, cost: 421.55, clicks: 243.68, extra: null },
      { endpoint_id: 'keywords_data.google_ads.ad_traffic_by_keywords.live', function: 'ad_traffic_by_keywords', api_version: '0.1.20260911', keyword: 'tea', date_interval: null, bid: 2.5, match: 'phrase', impressions: null, ctr: null, average_cpc: 1.73, cost: 421.55, clicks: 243.68, extra: null },
      { endpoint_id: 'keywords_data.google_ads.ad_traffic_by_keywords.task_get', function: 'ad_traffic_by_keywords', api_version: '0.1.20260911', keyword: 'seo marketing', date_interval: 'next_month', bid: 999, match: 'exact', impressions: null, ctr: null, average_cpc: 1.73, cost: 421.55, clicks: 243.68, extra: null },
    ]);
    const tasks = await rows(`SELECT endpoint_id, target_type, date_from, date_to, date_interval, bid, match, include_adult_keywords, location_coordinate, extra FROM tasks WHERE endpoint_id LIKE 'keywords_data.google_ads.%' ORDER BY endpoint_id`);
    expect(tasks.length).toBe(8);
    expect(tasks.every((t) => t.extra === null)).toBe(true);
    expect(tasks.find((t) => t.endpoint_id === 'keywords_data.google_ads.ad_traffic_by_keywords.live')).toMatchObject({ date_from: '2026-12-01', date_to: '2026-12-31', bid: 2.5, match: 'phrase' });
    expect(tasks.find((t) => t.endpoint_id === 'keywords_data.google_ads.keywords_for_site.task_get')).toMatchObject({ target_type: 'site' });
    // The analysts' view (published warehouses only), over these rows: one 0-1 figure and the API each came from.
    const view = KEYWORD_VIEWS.find((v) => v.name === 'v_keyword_competition')!;
    expect(await rows(`SELECT keyword, source_api, function, competition, competition_level, legacy_competition FROM (${view.select}) WHERE keyword IN ('buy laptop', 'legacy kw') ORDER BY keyword`)).toEqual([
      { keyword: 'buy laptop', source_api: 'google_ads', function: 'search_volume', competition: 0.87, competition_level: 'HIGH', legacy_competition: null },
      { keyword: 'legacy kw', source_api: 'legacy', function: 'keywords_for_site', competition: 0.42, competition_level: null, legacy_competition: 0.42 },
    ]);
  });
});
