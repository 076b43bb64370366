/** Collected tasks built from the sandbox's pure data generators, plus helpers shared by the area's tests. */
import type { CollectedTask } from '../../src/normalize/extract.js';
import { generateKeywordData } from '../../src/sandbox/families/keywords_data/data.js';
import { generateMerchant } from '../../src/sandbox/families/merchant/data.js';
import { domainItem } from '../../src/sandbox/families/domain_analytics/data.js';
import { generateResources } from '../../src/sandbox/families/on_page/data.js';
import { generateEventsSerp, generateEventsHtml } from '../../src/sandbox/families/serp/events-data.js';
import { EVENTS_LOCATIONS } from '../../src/sandbox/data/locations.js';
import { generateParaphrase } from '../../src/sandbox/families/content_generation/data.js';

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

export function task(id: string, endpointId: string, result: unknown[] | null, data: Record<string, unknown> = {}, extra: Partial<CollectedTask['task']> = {}): CollectedTask {
  return {
    endpointId,
    version: '0.1.20240801',
    task: { id, status_code: 20000, status_message: 'Ok.', time: '0.0818 sec.', cost: 0, result_count: result?.length ?? 0, path: ['v3', ...endpointId.split('.')], data, result, ...extra },
  };
}

export function keywordTask(id: string, count = 5, seed = 1, fn: 'keywords_for_site' | 'keywords_for_keywords' = 'keywords_for_site'): CollectedTask {
  const params = fn === 'keywords_for_site' ? { target: `${id}.example.com`, location_code: 2840, language_code: 'en' } : { keywords: ['shoes', 'boots'], location_code: 2840, language_code: 'en' };
  const result = generateKeywordData(params, count, seed, { now: NOW });
  return task(id, `${fn}.task_get`, result as unknown[], { api: 'keywords_data', function: fn, se: 'engine_a', tag: `t-${id}`, ...params });
}

export function merchantTask(id: string, engine = 'engine_a', allTypes = true, seed = 7): CollectedTask {
  const result = generateMerchant({ keyword: 'running shoes', location_code: 2840, language_code: 'en' }, engine, 12, seed, { now: NOW, allTypes });
  return task(id, 'merchant.google.products.task_get.advanced', [result], { api: 'merchant', function: 'products', se: engine, se_type: 'shopping', keyword: 'running shoes' });
}

export function technologyTask(id: string, n = 9): CollectedTask {
  const items = Array.from({ length: n }, (_, i) => domainItem(3, i, 1000, NOW, { search_terms: ['shop'] } as never));
  return task(id, 'domain_analytics.technologies.domains_by_html_terms.live', [{ total_count: 1000, items_count: n, offset: 0, offset_token: 'tok', items }], { api: 'domain_analytics', function: 'domains_by_html_terms', search_terms: ['shop', 'cart'] });
}

export function onpageTask(id: string): CollectedTask {
  const { crawl, items } = generateResources('00000000-aaaa-bbbb-cccc-000000000001', NOW);
  const page = items.slice(0, 40);
  return task(id, 'on_page.resources', [{ crawl_progress: 'finished', crawl_status: { max_crawl_pages: 10, pages_in_queue: 0, pages_crawled: 10 }, total_items_count: crawl.total, items_count: page.length, items: page }], { api: 'on_page', function: 'resources', id: '00000000-aaaa-bbbb-cccc-000000000001' });
}

export function eventsTask(id: string, variant: 'regular' | 'advanced' = 'advanced'): CollectedTask {
  const result = generateEventsSerp({ keyword: 'jazz', location_code: 2840, depth: 10 }, 'engine_a', variant, 11, NOW);
  return task(id, `serp.events.task_get.${variant}`, [result], { api: 'serp', function: 'task_get', se: 'engine_a', se_type: 'events', keyword: 'jazz' });
}

export function eventsHtmlTask(id: string): CollectedTask {
  return task(id, 'serp.events.task_get.html', [generateEventsHtml({ keyword: 'jazz', depth: 20 }, 'engine_a', 11, NOW)], { api: 'serp', function: 'task_get', se: 'engine_a', se_type: 'events' });
}

export function listTasks(): CollectedTask[] {
  return [
    task('L-loc', 'serp.events.locations', EVENTS_LOCATIONS.slice(0, 5) as unknown[], { api: 'serp', function: 'locations', se: 'engine_a', se_type: 'events' }),
    task('L-ep', 'serp.endpoints', [['v3/serp/engine_a/organic/task_get/advanced/$id', 'v3/serp/engine_b/organic/live/html']], { api: 'serp', function: 'endpoints' }),
    task('L-para', 'content_generation.paraphrase.live', [generateParaphrase('the quick brown fox', 0.8)], { api: 'content_generation', function: 'paraphrase', text: 'the quick brown fox', creativity_index: 0.8 }),
    task('L-fixed', 'serp.events.tasks_fixed', [{ id: 'F1', se: 'engine_a', se_type: 'events', date_fixed: '2026-01-15 10:00:00 +00:00', tag: 'x', endpoint_regular: null, endpoint_advanced: '/v3/serp/engine_a/events/task_get/advanced/F1', endpoint_html: null }], { api: 'serp', function: 'tasks_fixed' }),
    task('L-ready', 'keywords_for_site.tasks_ready', [{ id: 'K1', se: 'engine_a', date_posted: '2026-01-15 09:00:00 +00:00', tag: null, endpoint: '/v3/keywords_data/engine_a/keywords_for_site/task_get/K1' }], { api: 'keywords_data', function: 'tasks_ready' }),
    task('L-err', 'domain_analytics.errors', [{ id: 'E1', datetime: '2026-01-14 08:00:00 +00:00', function: 'postback_url', error_code: 50401, error_message: 'timeout', http_url: 'https://example.com/hook', http_method: 'POST', http_code: 0, http_time: 10.02, http_response: '' }], { api: 'domain_analytics', function: 'errors' }),
  ];
}
