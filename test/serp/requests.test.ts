/** SERP requests as the live service takes them: the client's request models' fields, their rules and caps per mode. */
import { describe, expect, it } from 'vitest';
import { endpoint } from '../../src/api/catalog.js';
import { validateTask } from '../../src/api/validate.js';
import { SERP_ENDPOINTS } from '../../src/families/serp/endpoints.js';
import { SERP_REQUEST_MODELS } from '../../src/families/serp/models.generated.js';

const base = { keyword: 'running shoes', location_code: 2840, language_code: 'en' };
const problems = (id: string, task: Record<string, unknown>) => validateTask(endpoint(id), task).map((i) => `${i.field}: ${i.rule}`);

describe('SERP request rules', () => {
  it('every endpoint with a client model takes exactly its fields (tag on every one)', () => {
    const organic = endpoint('serp.google.organic.task_post');
    expect(Object.keys(organic.fields!).sort()).toEqual(Object.keys(SERP_REQUEST_MODELS.SerpGoogleOrganicTaskPostRequestInfo.fields).sort());
    expect(Object.keys(endpoint('serp.google.organic.live.advanced').fields!)).toContain('target');
    expect(Object.keys(endpoint('serp.google.organic.task_post').fields!)).not.toContain('target');
    expect(Object.keys(endpoint('serp.google.news.live.advanced').fields!)).toContain('tag');
    expect(Object.keys(endpoint('serp.google.news.task_post').fields!)).not.toContain('device');
    for (const def of SERP_ENDPOINTS.filter((e) => e.fields)) expect(def.fields!.keyword, def.id).toMatchObject({ required: true });
  });

  it('a field sent as null is absent, as the official client sends every unset field', () => {
    const nulls = Object.fromEntries(Object.keys(SERP_REQUEST_MODELS.SerpGoogleOrganicTaskPostRequestInfo.fields).map((f) => [f, null]));
    expect(problems('serp.google.organic.task_post', { ...nulls, ...base })).toEqual([]);
    expect(problems('serp.google.news.task_post', { ...base, device: null })).toEqual([]);
    expect(problems('serp.google.news.task_post', { ...base, device: 'mobile' })).toEqual(["device: is not a field of serp.google.news.task_post"]);
  });

  it('live calls cap depth at 200 where the live models do; queued tasks at 700; maps live at 700', () => {
    for (const id of ['serp.google.organic.live.regular', 'serp.google.organic.live.advanced', 'serp.google.images.live.advanced', 'serp.bing.organic.live.advanced', 'serp.yahoo.organic.live.regular', 'serp.google.news.live.html']) {
      expect(problems(id, { ...base, depth: 200 }), id).toEqual([]);
      expect(problems(id, { ...base, depth: 300 }), id).toEqual(['depth: must be at most 200']);
    }
    expect(problems('serp.google.organic.task_post', { ...base, depth: 700 })).toEqual([]);
    expect(problems('serp.google.organic.task_post', { ...base, depth: 701 })).toEqual(['depth: must be at most 700']);
    expect(problems('serp.google.maps.live.advanced', { ...base, depth: 700 })).toEqual([]);
  });

  it('crawl control: targets with match type and value, search mode, element lists that need a target and do not overlap', () => {
    const post = 'serp.google.organic.task_post';
    const stop = [{ match_value: 'example.com', match_type: 'with_subdomains' }];
    expect(problems(post, { ...base, stop_crawl_on_match: stop, target_search_mode: 'all', find_targets_in: ['organic', 'featured_snippet'], ignore_targets_in: ['paid'] })).toEqual([]);
    expect(problems(post, { ...base, stop_crawl_on_match: [{ match_value: 'example.com', match_type: 'exact' }] })).toEqual(['stop_crawl_on_match[0].match_type: must be one of domain, with_subdomains, wildcard']);
    expect(problems(post, { ...base, stop_crawl_on_match: [{ match_type: 'domain' }] })).toEqual(['stop_crawl_on_match[0].match_value: is required']);
    expect(problems(post, { ...base, stop_crawl_on_match: [{ match_value: 'a.com', match_type: 'domain', weight: 2 }] })).toEqual(['stop_crawl_on_match[0].weight: is not a field of stop_crawl_on_match[0]']);
    expect(problems(post, { ...base, stop_crawl_on_match: Array.from({ length: 11 }, () => stop[0]) })).toEqual(['stop_crawl_on_match: must hold at most 10 items']);
    expect(problems(post, { ...base, find_targets_in: ['organic'] })).toEqual(['find_targets_in: works only with stop_crawl_on_match set']);
    expect(problems(post, { ...base, stop_crawl_on_match: stop, find_targets_in: ['organic', 'paid'], ignore_targets_in: ['paid'] })).toEqual(['ignore_targets_in: must not repeat a value of find_targets_in (paid)']);
    expect(problems(post, { ...base, stop_crawl_on_match: stop, find_targets_in: ['sitelinks'] })).toEqual([expect.stringMatching(/^find_targets_in\[0\]: must be one of organic, paid/)]);
    expect(problems('serp.google.organic.live.advanced', { ...base, target: '*example.com*' })).toEqual([]);
    expect(problems('serp.bing.organic.task_post', { ...base, stop_crawl_on_match: stop })).toEqual([]);
    expect(problems('serp.yahoo.organic.task_post', { ...base, stop_crawl_on_match: stop })).toEqual([]);
  });
});
