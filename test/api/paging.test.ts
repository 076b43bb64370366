import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ApiClient, type TaskOutcome } from '../../src/api/client.js';
import { pageHtmlTerms, pageResources, pageTokenOf, type LiveClient } from '../../src/api/paging.js';
import type { ApiTask } from '../../src/api/envelope.js';
import { RateLimiter } from '../../src/queue/index.js';
import { createLogger } from '../../src/log/logger.js';
import { ROOT } from '../helpers/project.js';

const ok = (o: TaskOutcome) => { if (!o.ok) throw new Error(`expected success, got ${o.error.code} ${o.error.message}`); return o; };
const itemsOf = (o: TaskOutcome) => ((ok(o).task.result![0] as { items: unknown[] }).items);

async function collect(gen: AsyncGenerator<TaskOutcome>): Promise<TaskOutcome[]> {
  const out: TaskOutcome[] = [];
  for await (const page of gen) out.push(page);
  return out;
}

/** A client that serves a virtual result set of `total` items and records every request it gets. */
function fakeClient(total: number, tokenField: 'offset_token' | 'search_after_token', where: 'result' | 'task' = 'result') {
  const requests: Record<string, unknown>[] = [];
  const client: LiveClient = {
    live: async (_endpointId: string, task: Record<string, unknown>) => {
      requests.push(structuredClone(task));
      const limit = (task.limit as number) ?? 100;
      const position = typeof task[tokenField] === 'string' ? Number(String(task[tokenField]).slice(4)) : ((task.offset as number) ?? 0);
      const items = Array.from({ length: Math.max(0, Math.min(limit, total - position)) }, (_, i) => ({ n: position + i }));
      const next = position + items.length < total ? `tok:${position + items.length}` : null;
      const result: Record<string, unknown> = { total_count: total, total_items_count: total, offset: position, items_count: items.length, items };
      const apiTask = { id: 'x', status_code: 20000, status_message: 'Ok.', time: '0', cost: 0, result_count: 1, path: [], data: task, result: [result] } as ApiTask & Record<string, unknown>;
      if (where === 'result') result[tokenField] = next;
      else apiTask[tokenField] = next;
      return { ok: true, task: apiTask, cost: 0 };
    },
  };
  return { client, requests };
}

const without = (r: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k)));

describe('paging helpers hold every other parameter identical (unit, fake client)', () => {
  it('html terms: limit/offset while limit + offset <= 10000, then offset_token on the last offset request', async () => {
    const { client, requests } = fakeClient(25_000, 'offset_token');
    const task = { search_terms: ['<meta'], keywords: ['shop'], order_by: ['domain,asc'], tag: 'run-1' };
    const pages = await collect(pageHtmlTerms(client, task, { pageSize: 4000 }));
    const seen = pages.flatMap((p) => itemsOf(p).map((i) => (i as { n: number }).n));
    expect(seen).toEqual(Array.from({ length: 25_000 }, (_, i) => i));
    // Offsets 0, 4000 (4000+4000 fits), then 8000+4000 would not: tokens from the 4000 request on.
    expect(requests.map((r) => [r.offset, r.offset_token ?? null])).toEqual([
      [0, null], [4000, null], [4000, 'tok:8000'], [4000, 'tok:12000'], [4000, 'tok:16000'], [4000, 'tok:20000'], [4000, 'tok:24000'],
    ]);
    for (const r of requests) expect(without(r, ['offset', 'offset_token'])).toEqual({ ...task, limit: 4000 });
    // A token request repeats the request that returned the token, apart from the token.
    for (let i = 3; i < requests.length; i++) expect(without(requests[i], ['offset_token'])).toEqual(without(requests[i - 1], ['offset_token']));
  });

  it('html terms: stops at the reported total, at maxItems, and after an error page', async () => {
    const small = fakeClient(250, 'offset_token');
    expect((await collect(pageHtmlTerms(small.client, { search_terms: ['a'] }, { pageSize: 100 }))).length).toBe(3);
    const exact = fakeClient(300, 'offset_token');
    await collect(pageHtmlTerms(exact.client, { search_terms: ['a'] }, { pageSize: 100 }));
    expect(exact.requests).toHaveLength(3);
    const capped = fakeClient(10_000, 'offset_token');
    const pages = await collect(pageHtmlTerms(capped.client, { search_terms: ['a'] }, { pageSize: 100, maxItems: 250 }));
    expect(pages).toHaveLength(3);
    const failing: LiveClient = { live: async () => ({ ok: false, error: { code: 40501, message: 'bad', path: [], data: null, local: false } }) };
    const errs = await collect(pageHtmlTerms(failing, { search_terms: ['a'] }));
    expect(errs).toHaveLength(1);
    expect(errs[0].ok).toBe(false);
  });

  it('on-page resources: the first request is the task with limit, each next one adds only the new token', async () => {
    const { client, requests } = fakeClient(950, 'search_after_token');
    const task = { id: '11111111-2222-3333-4444-555555555555', filters: ['resource_type', '=', 'image'], order_by: ['size,desc'] };
    const pages = await collect(pageResources(client, task, { pageSize: 300 }));
    expect(pages.map((p) => itemsOf(p).length)).toEqual([300, 300, 300, 50]);
    expect(requests.map((r) => r.search_after_token ?? null)).toEqual([null, 'tok:300', 'tok:600', 'tok:900']);
    for (const r of requests) expect(without(r, ['search_after_token'])).toEqual({ ...task, limit: 300 });
  });

  it('reads a token from the result element, or from the task when a service puts it there', () => {
    const base = { id: 'x', status_code: 20000, status_message: '', time: '', cost: 0, result_count: 1, path: [], data: {} };
    expect(pageTokenOf({ ...base, result: [{ search_after_token: 'a' }] } as ApiTask, 'search_after_token')).toBe('a');
    expect(pageTokenOf({ ...base, result: [{ search_after_token: null }], search_after_token: 'b' } as unknown as ApiTask, 'search_after_token')).toBe('b');
    expect(pageTokenOf({ ...base, result: [{}] } as ApiTask, 'offset_token')).toBeUndefined();
  });

  it('follows a token placed on the task object as well', async () => {
    const { client, requests } = fakeClient(250, 'search_after_token', 'task');
    const pages = await collect(pageResources(client, { id: '11111111-2222-3333-4444-555555555555' }, { pageSize: 100 }));
    expect(pages).toHaveLength(3);
    expect(requests[2].search_after_token).toBe('tok:200');
  });
});

describe('paging against the sandbox, which refuses a token used with changed parameters', () => {
  let config: Config;
  let sandbox: Sandbox;
  let client: ApiClient;
  beforeAll(async () => {
    config = loadConfig({ root: ROOT, env: {} });
    sandbox = await startSandbox({ config, port: 0 });
    client = new ApiClient({
      baseUrl: sandbox.url, credentials: { login: config.sandbox.login, password: config.sandbox.password }, engines: config.paths,
      limiter: new RateLimiter({ calls: 1000, windowMs: 1000, concurrency: 4 }), timeoutMs: 10_000, retries: 1, retryBaseMs: 5, tasksPerPost: 100,
      logger: createLogger({ level: 'silent' }),
    });
  });
  afterAll(async () => { await sandbox?.close(); });

  it('domains by HTML terms: past the 10000 cap with offset_token, every domain once', async () => {
    // Starting at offset 8400 keeps the test light: 8400 and 9200 fit the cap, 10000 + 800 does not.
    const pages = await collect(pageHtmlTerms(client, { search_terms: ['sandbox:total=11000'], order_by: ['domain_rank,desc'], offset: 8400 }, { pageSize: 800 }));
    const domains = pages.flatMap((p) => itemsOf(p).map((i) => (i as { domain: string }).domain));
    expect(domains).toHaveLength(2600);
    expect(new Set(domains).size).toBe(2600);
    expect(pages.map((p) => (ok(p).task.data as Record<string, unknown>).offset_token === undefined)).toEqual([true, true, false, false]);
    expect(pages.map((p) => (ok(p).task.result![0] as { offset: number }).offset)).toEqual([8400, 9200, 10000, 10800]);
    const whole = await collect(pageHtmlTerms(client, { search_terms: ['sandbox:total=11000'], order_by: ['domain_rank,desc'] }, { pageSize: 1000, maxItems: 1000 }));
    const firstDomains = whole.flatMap((p) => itemsOf(p).map((i) => (i as { domain: string }).domain));
    expect(new Set([...firstDomains, ...domains]).size).toBe(3600);
  });

  it('the sandbox does refuse a token with a changed parameter (so the test above could fail)', async () => {
    const first = ok(await client.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['sandbox:total=500'], limit: 100 }));
    const token = pageTokenOf(first.task, 'offset_token')!;
    const changed = await client.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['sandbox:total=500'], limit: 200, offset_token: token });
    expect(changed.ok).toBe(false);
  });

  it('on-page resources: every resource of a crawl once, through search_after_token', async () => {
    const id = '00000000-0000-0000-0000-000000002345';
    const pages = await collect(pageResources(client, { id }, { pageSize: 1000 }));
    const urls = pages.flatMap((p) => itemsOf(p).map((i) => JSON.stringify(i)));
    expect(pages).toHaveLength(3);
    expect(urls).toHaveLength(2345);
    expect(new Set(urls).size).toBe(2345);
    const last = ok(pages[2]).task.result![0] as { search_after_token: unknown; total_items_count: number };
    expect(last).toMatchObject({ search_after_token: null, total_items_count: 2345 });
  });
});
