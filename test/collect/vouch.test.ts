import { describe, expect, test } from 'vitest';
import { postbackMismatch } from '../../src/collect/vouch.js';
import type { ApiTask } from '../../src/api/envelope.js';

// A postback's echoed task data against the ledger's posted task (src/collect/vouch.ts).
const posted = { tag: 'seo-etl/p/products/abc', params: { keyword: 'Camping Tent', location_code: 2840, language_code: 'en', postback_url: 'http://h/cb/<secret>/postback?id=$id', postback_data: 'advanced' } };
const task = (data: Record<string, unknown>) => ({ id: 'x', status_code: 20000, data }) as unknown as ApiTask;
const echo = { api: 'merchant', function: 'products', se: 'google', tag: posted.tag, keyword: 'camping tent', location_code: '2840', language_code: 'en', postback_url: 'http://h/cb/real-secret/postback?id=$id', postback_data: 'advanced', device: 'desktop' };

describe('postbackMismatch', () => {
  test('the echo of the task posted matches (case and number-as-text aside, callback addresses and extra fields ignored)', () => {
    expect(postbackMismatch(posted, task(echo))).toBeUndefined();
  });
  test('another tag, no tag, or another echoed parameter does not', () => {
    expect(postbackMismatch(posted, task({ ...echo, tag: 'seo-etl/p/products/other' }))).toMatch(/tag/);
    expect(postbackMismatch(posted, task({}))).toMatch(/tag/);
    expect(postbackMismatch(posted, task({ ...echo, keyword: 'FORGED' }))).toMatch(/keyword/);
    expect(postbackMismatch(posted, task({ ...echo, location_code: 2826 }))).toMatch(/location_code/);
  });
  test('a list comes back as the same set (deduplicated, reordered, another case); a nested filter is not compared', () => {
    const withList = { tag: null, params: { keywords: ['Tent', 'stove', 'tent'], filters: [['keyword_info.search_volume', '>', 10]] } };
    expect(postbackMismatch(withList, task({ keywords: ['stove', 'tent'], filters: [['keyword_info.search_volume', '>', '10']] }))).toBeUndefined();
    expect(postbackMismatch(withList, task({ keywords: ['stove', 'FORGED'] }))).toMatch(/keywords/);
    expect(postbackMismatch(withList, task({ keywords: 'tent' }))).toMatch(/keywords/);
  });
  test('a task posted without a tag is checked by its parameters alone', () => {
    expect(postbackMismatch({ ...posted, tag: null }, task({ keyword: 'camping tent' }))).toBeUndefined();
    expect(postbackMismatch({ ...posted, tag: null }, task({ keyword: 'sleeping bag' }))).toMatch(/keyword/);
  });
});

describe('a collector with vouch', () => {
  test('a forged postback for an awaited task neither loads nor gives it a false id; the genuine one adopts it', async () => {
    const { Collector } = await import('../../src/collect/index.js');
    const { loadConfig } = await import('../../src/config/index.js');
    const { createLogger } = await import('../../src/api/logger.js');
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
    c.awaitTags([{ key: 'k1', tag: posted.tag, postId: 'merchant.products.task_post', mode: 'postback' }]);
    const envelope = (id: string, data: Record<string, unknown>) => ({ version: '0.1', tasks: [{ id, status_code: 20000, status_message: 'Ok.', data, result: [] }] }) as never;
    expect(await c.onPostback(envelope('fake-id', { ...echo, keyword: 'FORGED' }))).toBe(false);
    expect(adopted).toEqual([]);
    expect(c.stats.postbacksRefused).toBe(1);
    expect(await c.onPostback(envelope('real-id', echo))).toBe(true);
    await load.flush();
    expect({ adopted, loaded }).toEqual({ adopted: ['real-id'], loaded: ['real-id'] });
  });
});
