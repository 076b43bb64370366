/** The ads-based keyword API's request rules at their edges (validateTask with an injected clock). */
import { describe, expect, test } from 'vitest';
import { endpoint } from '../../src/api/catalog.js';
import { parseDate, validateTask } from '../../src/api/validate.js';

const now = new Date('2026-11-23T10:00:00Z');
const rules = (id: string, task: Record<string, unknown>) => validateTask(endpoint(id), task, { now }).map((i) => `${i.field}: ${i.rule}`);

describe('ads keyword API rules', () => {
  test('a past window: yesterday and 4 years back are the edges', () => {
    const sv = 'keywords_data.google_ads.search_volume.task_post';
    expect(rules(sv, { keywords: ['a'], date_from: '2022-11-23', date_to: '2026-11-22' })).toEqual([]);
    expect(rules(sv, { keywords: ['a'], date_from: '2022-11-22', date_to: '2026-11-23' })).toEqual(['date_from: must be at most 4 years ago', 'date_to: must be yesterday or earlier']);
    expect(rules(sv, { keywords: ['a'], date_from: '2026-05-01', date_to: '2026-04-30' })).toEqual(['date_from: must not be after date_to']);
    expect(rules(sv, { keywords: ['a'], date_from: '2026-02-30' })).toEqual(['date_from: must be a date "yyyy-mm-dd"']);
  });

  test('a forecast window: from tomorrow, to after it and within a year; both ends or neither', () => {
    const at = 'keywords_data.google_ads.ad_traffic_by_keywords.live';
    const base = { keywords: ['a'], bid: 1, match: 'broad' };
    expect(rules(at, { ...base, date_from: '2026-11-24', date_to: '2027-11-23' })).toEqual([]);
    expect(rules(at, { ...base, date_from: '2026-11-23', date_to: '2027-11-24' })).toEqual(['date_from: must be tomorrow or later (a forecast window)', 'date_to: must be at most a year from today']);
    expect(rules(at, { ...base, date_from: '2026-12-10', date_to: '2026-12-10' })).toEqual(['date_to: must be after date_from']);
    expect(rules(at, { ...base, date_from: '2026-12-10' })).toEqual(['date_to: is required with date_from']);
    expect(rules(at, { ...base, date_interval: 'next_week' })).toEqual([]);
  });

  test('keywords: count, characters and words per function; coordinates without a radius; no postback_data', () => {
    const ten = 'a b c d e f g h i j';
    expect(rules('keywords_data.google_ads.search_volume.task_post', { keywords: [ten, `${ten} k`, 'x'.repeat(80), 'x'.repeat(81)] })).toEqual(['keywords[1]: must be at most 10 words', 'keywords[3]: must be at most 80 characters']);
    expect(rules('keywords_data.google_ads.keywords_for_keywords.task_post', { keywords: [`${ten} k`] })).toEqual([]);
    expect(rules('keywords_data.google_ads.keywords_for_keywords.task_post', { keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) })).toEqual(['keywords: must hold at most 20 items']);
    expect(rules('keywords_data.google_ads.search_volume.live', { keywords: ['a'], location_coordinate: '52.6178549,-155.352142' })).toEqual([]);
    expect(rules('keywords_data.google_ads.search_volume.live', { keywords: ['a'], location_coordinate: '95,10' })).toEqual(['location_coordinate: latitude must be a number from -90 to 90']);
    expect(rules('keywords_data.google_ads.search_volume.task_post', { keywords: ['a'], postback_data: 'advanced' })).toEqual(['postback_data: is not a field of keywords_data.google_ads.search_volume.task_post']);
    expect(rules('keywords_data.google_ads.keywords_for_site.task_post', { target: 'example.com', target_type: 'page', sort_by: 'competition_index', include_adult_keywords: true })).toEqual([]);
  });

  test('dates are real calendar days', () => {
    expect(parseDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDate('2025-02-29')).toBeNull();
    expect(parseDate('2025-1-05')).toBeNull();
  });
});
