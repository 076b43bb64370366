import { describe, expect, test } from 'vitest';
import { declaredEcho, postbackMismatch as mismatch, type PostedEcho } from '../../src/collect/vouch.js';
import type { ApiTask } from '../../src/api/envelope.js';
import { loadConfig } from '../../src/config/index.js';
import { ROOT } from '../helpers/project.js';

const engines = loadConfig({ root: ROOT, env: {} }).paths;
const postbackMismatch = (p: PostedEcho, t: ApiTask) => mismatch(p, t, engines);

// A postback's echoed task data against the ledger's posted task (src/collect/vouch.ts).
const posted = { endpointId: 'merchant.google.products.task_post', tag: 'seo-etl/p/products/abc', params: { keyword: 'Camping Tent', location_code: 2840, language_code: 'en', postback_url: 'http://h/cb/<secret>/postback?id=$id', postback_data: 'advanced' } };
const task = (data: Record<string, unknown>) => ({ id: 'x', status_code: 20000, data }) as unknown as ApiTask;
const echo = { api: 'merchant', function: 'products', se: 'google', se_type: 'shopping', tag: posted.tag, keyword: 'camping tent', location_code: '2840', language_code: 'en', postback_url: 'http://h/cb/real-secret/postback?id=$id', postback_data: 'advanced', device: 'desktop' };

describe('postbackMismatch', () => {
  test('the echo of the task posted matches (case and number-as-text aside, callback addresses and extra fields ignored)', () => {
    expect(postbackMismatch(posted, task(echo))).toBeUndefined();
  });
  test('another tag, no tag, or another echoed parameter does not', () => {
    expect(postbackMismatch(posted, task({ ...echo, tag: 'seo-etl/p/products/other' }))).toMatch(/tag/);
    expect(postbackMismatch(posted, task({}))).toMatch(/^api null/);
    expect(postbackMismatch(posted, task({ ...echo, keyword: 'FORGED' }))).toMatch(/keyword/);
    expect(postbackMismatch(posted, task({ ...echo, location_code: 2826 }))).toMatch(/location_code/);
  });
  test('each forgery of issue 31: no tag, wrong tag, wrong keyword, tag only; a full copy cannot be told apart', () => {
    const { tag: _tag, ...noTag } = echo;
    expect(postbackMismatch(posted, task(noTag))).toMatch(/^tag null/);
    expect(postbackMismatch(posted, task({ ...echo, tag: 'seo-etl/p/products/other' }))).toMatch(/^tag /);
    expect(postbackMismatch(posted, task({ ...echo, keyword: 'sleeping bag' }))).toMatch(/^keyword /);
    // What the service always echoes is required: the endpoint's names and every parameter posted.
    expect(postbackMismatch(posted, task({ api: 'merchant', function: 'products', se: 'google', tag: posted.tag }))).toMatch(/^se_type null/);
    expect(postbackMismatch(posted, task({ api: 'merchant', function: 'products', se: 'google', se_type: 'shopping', tag: posted.tag }))).toMatch(/^keyword is missing/);
    expect(postbackMismatch(posted, task({ tag: posted.tag, keyword: 'camping tent', location_code: 2840, language_code: 'en', postback_data: 'advanced' }))).toMatch(/^api null/);
    expect(postbackMismatch(posted, task({ ...echo, function: 'tasks_ready' }))).toMatch(/^function /);
    expect(postbackMismatch(posted, task({ ...echo, se: 'bing' }))).toMatch(/^se /);
    const { location_code: _l, ...noLocation } = echo;
    expect(postbackMismatch(posted, task(noLocation))).toMatch(/^location_code is missing/);
    // A full copy of the real echo (the secret and the posted parameters known) is the service's own as far as
    // anything in the body can tell: a stated limit (docs/reliability.md).
    expect(postbackMismatch(posted, task({ ...echo }))).toBeUndefined();
  });
  test("the names come from the endpoint's declarations, getters' functions included", () => {
    expect(declaredEcho('merchant.google.products.task_post', engines)).toEqual({ api: 'merchant', functions: ['products'], se: 'google', se_type: 'shopping' });
    expect(declaredEcho('keywords_for_site.task_post', engines)).toEqual({ api: 'keywords_data', functions: ['keywords_for_site'], se: engines.keywords_data_legacy });
    expect(declaredEcho('serp.events.task_post', engines)).toMatchObject({ api: 'serp', functions: ['task_post', 'task_get'], se_type: 'events' });
    expect(postbackMismatch({ ...posted, endpointId: 'no.such.endpoint' }, task(echo))).toMatch(/not an endpoint/);
  });
  test('a list comes back as the same set (deduplicated, reordered, another case); a nested filter is not compared', () => {
    const withList = { endpointId: 'keywords_for_keywords.task_post', tag: null, params: { keywords: ['Tent', 'stove', 'tent'], filters: [['keyword_info.search_volume', '>', 10]] } };
    const names = { api: 'keywords_data', function: 'keywords_for_keywords', se: engines.keywords_data_legacy };
    expect(postbackMismatch(withList, task({ ...names, keywords: ['stove', 'tent'], filters: [['keyword_info.search_volume', '>', '10']] }))).toBeUndefined();
    expect(postbackMismatch(withList, task({ ...names, keywords: ['stove', 'FORGED'], filters: [] }))).toMatch(/keywords/);
    expect(postbackMismatch(withList, task({ ...names, keywords: 'tent', filters: [] }))).toMatch(/keywords/);
    expect(postbackMismatch(withList, task({ ...names, keywords: ['stove', 'tent'] }))).toMatch(/filters is missing/);
  });
  test('a task posted without a tag is checked by its parameters alone', () => {
    const { tag: _tag, ...untagged } = echo;
    expect(postbackMismatch({ ...posted, tag: null }, task(untagged))).toBeUndefined();
    expect(postbackMismatch({ ...posted, tag: null }, task({ ...untagged, keyword: 'sleeping bag' }))).toMatch(/keyword/);
  });
});

describe('a collector with vouch', () => {
  test('a forged postback for an awaited task neither loads nor gives it a false id; the genuine one adopts it', async () => {
    const { Collector } = await import('../../src/collect/index.js');
    const { loadConfig } = await import('../../src/config/index.js');
    const { createLogger } = await import('../../src/log/logger.js');
    const { ROOT } = await import('../helpers/project.js');
    const { channelOf } = await import('../helpers/channel.js');
    const load = channelOf(async (b) => { loaded.push(...b.map((r) => r.task.id)); }, { quietMs: 1 });
    const adopted: string[] = [];
    const loaded: string[] = [];
    const c = new Collector({
      client: {} as never, engines: loadConfig({ root: ROOT, env: {} }).paths, logger: createLogger({ level: 'silent' }),
      load,
      onAdopt: async (_a, id) => { adopted.push(id); },
      vouch: async (_t, t) => postbackMismatch(posted, t),
    });
    c.awaitTags([{ key: 'k1', tag: posted.tag, postId: 'merchant.google.products.task_post', mode: 'postback' }]);
    const envelope = (id: string, data: Record<string, unknown>) => ({ version: '0.1', tasks: [{ id, status_code: 20000, status_message: 'Ok.', data, result: [] }] }) as never;
    expect(await c.onPostback(envelope('fake-id', { ...echo, keyword: 'FORGED' }))).toBe(false);
    expect(adopted).toEqual([]);
    expect(c.stats.postbacksRefused).toBe(1);
    expect(await c.onPostback(envelope('real-id', echo))).toBe(true);
    await load.flush();
    expect({ adopted, loaded }).toEqual({ adopted: ['real-id'], loaded: ['real-id'] });
  });
});
