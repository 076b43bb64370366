import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ApiClient, ApiError, type BatchEntry, type RawResponse, type TaskOutcome } from '../../src/api/client.js';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import { taskPrice } from '../../src/api/pricing.js';
import { formatTimestamp } from '../../src/api/envelope.js';
import { sandboxClient } from '../helpers/api-client.js';
import { ROOT } from '../helpers/project.js';

let config: Config;
let sandbox: Sandbox;
let raws: RawResponse[];

function client(over: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  return sandboxClient(sandbox, config, { onResponse: (r) => { raws.push(r); }, ...over });
}

function ok(o: TaskOutcome) {
  if (!o.ok) throw new Error(`expected success, got ${o.error.code} ${o.error.message}`);
  return o;
}
function err(o: TaskOutcome) {
  if (o.ok) throw new Error(`expected an error, got task ${o.task.id} ${o.task.status_code}`);
  return o.error;
}

const site = (i: number) => ({ target: `site${i}.example.com`, location_code: 2840, language_code: 'en', tag: `t${i}` });
const event = (i: number) => ({ keyword: `concerts ${i}`, location_name: 'United States', language_code: 'en', tag: `e${i}` });
const product = (i: number) => ({ keyword: `shoes ${i}`, location_code: 2840, language_code: 'en', tag: `p${i}` });
const kwds = (i: number) => ({ keywords: [`coffee ${i}`, `tea ${i}`], location_code: 2840, tag: `k${i}` });

beforeAll(async () => {
  config = loadConfig({ root: ROOT, env: {}, overrides: { sandbox: { completion_delay_ms: 0, password: 'Zq8-client-test-pw' } } });
  sandbox = await startSandbox({ config, port: 0 });
});
afterAll(async () => { await sandbox?.close(); });
beforeEach(() => { sandbox.controls.reset(); sandbox.controls.setCompletionDelay(0); raws = []; });

describe('task families against the sandbox: post, ready, get', () => {
  const families = [
    { post: 'keywords_for_site.task_post', make: site },
    { post: 'keywords_for_keywords.task_post', make: kwds },
    { post: 'serp.events.task_post', make: event },
    { post: 'merchant.google.products.task_post', make: product },
  ];
  for (const fam of families) {
    it(`${fam.post}: every task is created once, priced from the config, listed ready and collected by id`, async () => {
      const c = client();
      const def = endpoint(fam.post);
      const tasks = [fam.make(1), fam.make(2), fam.make(3)];
      const outcomes = await c.postTasks(fam.post, tasks);
      expect(outcomes.map((o) => ok(o).task.status_code)).toEqual([20100, 20100, 20100]);
      const postings = sandbox.controls.postings();
      expect(postings.map((p) => p.id)).toEqual(outcomes.map((o) => ok(o).task.id));
      outcomes.forEach((o, i) => expect(ok(o).cost).toBe(taskPrice(def, tasks[i], config.prices)));
      expect(outcomes.map((o) => ok(o).task.data.tag)).toEqual(['t1', 't2', 't3'].map((t) => t.replace('t', tasks[0].tag[0])));

      const ready = await c.tasksReady(def.readyId!);
      expect(ready.map((r) => r.id).sort()).toEqual(postings.map((p) => p.id).sort());
      const got = await c.taskGet(def.getId!, ready[0].id);
      const task = ok(got).task;
      expect(task.id).toBe(ready[0].id);
      expect(Array.isArray(task.result)).toBe(true);
      expect(task.path[task.path.length - 1]).toBe(ready[0].id);
    });
  }

  it('tasks_fixed lists re-parsed events tasks and the listed path collects them', async () => {
    const c = client();
    const outcomes = await c.postTasks('serp.events.task_post', [event(1), event(2)]);
    for (const o of outcomes) ok(await c.taskGet('serp.events.task_get.advanced', ok(o).task.id));
    const reparsed = sandbox.controls.reparse();
    expect(reparsed.length).toBe(2);
    const fixed = await c.tasksFixed('serp.events.tasks_fixed');
    expect(fixed.map((f) => f.id).sort()).toEqual(outcomes.map((o) => ok(o).task.id).sort());
    expect(fixed[0].endpoint_advanced).toBe(resolvePath(endpoint('serp.events.task_get.advanced'), config.paths, { id: fixed[0].id }));
  });

  it('list endpoints answer through list() and get()', async () => {
    const c = client();
    const serp = ok(await c.list('serp.endpoints'));
    expect((serp.task.result as string[][])[0].some((p) => p.startsWith('v3/serp/'))).toBe(true);
    const locations = ok(await c.list('serp.events.locations'));
    expect(locations.task.result!.length).toBeGreaterThan(10);
    const env = await c.get('serp.events.locations');
    expect(env.tasks[0].result_count).toBe(locations.task.result!.length);
  });
});

describe('live and list endpoints against the sandbox', () => {
  it('paraphrase: one task, answered in the same call and billed per request', async () => {
    const c = client();
    const task = ok(await c.live('content_generation.paraphrase.live', { text: 'The quick brown fox jumps over the lazy dog.', creativity_index: 0.5, tag: 'p' }));
    const r = task.task.result![0] as { generated_text: string; input_tokens: number };
    expect(typeof r.generated_text).toBe('string');
    expect(r.input_tokens).toBeGreaterThan(0);
    expect(task.cost).toBe(taskPrice(endpoint('content_generation.paraphrase.live'), {}, config.prices));
    expect(sandbox.controls.billed()).toBe(task.cost);
  });

  it('domains by HTML terms and on-page resources answer pages; a filter only the service can judge fails as a task error and shows in E13', async () => {
    const c = client();
    const terms = ok(await c.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['sandbox:total=40'], limit: 10 }));
    expect((terms.task.result![0] as { items: unknown[]; total_count: number })).toMatchObject({ total_count: 40, items_count: 10 });
    const resources = ok(await c.live('on_page.resources', { id: '00000000-0000-0000-0000-000000000120', limit: 50 }));
    expect((resources.task.result![0] as { items: unknown[] }).items).toHaveLength(50);
    // Well-formed for the catalog, but no such field: the service rejects it, locally it passes.
    const bad = err(await c.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['x'], filters: ['no_such_field', '=', 1] }));
    expect(bad).toMatchObject({ code: 40501, local: false });
    const errors = ok(await c.list('domain_analytics.errors', { limit: 10 }));
    expect((errors.task.result as Array<{ id: string; error_code: number }>).map((e) => e.id)).toContain(bad.id);
  });

  it('merchant: the all-zero id returns every item type; events: each task_get variant collects a posted task', async () => {
    const c = client();
    const zero = ok(await c.taskGet('merchant.google.products.task_get.advanced', '00000000-0000-0000-0000-000000000000'));
    const types = new Set(((zero.task.result![0] as { items: Array<{ type: string }> }).items).map((i) => i.type));
    expect(types.size).toBeGreaterThanOrEqual(3);
    const [posted] = await c.postTasks('serp.events.task_post', [event(1)]);
    for (const variant of ['regular', 'advanced', 'html']) {
      const got = ok(await c.taskGet(`serp.events.task_get.${variant}`, ok(posted).task.id));
      expect(got.task.id).toBe(ok(posted).task.id);
    }
  });
});

describe('task-level errors beside successful siblings', () => {
  it('a task the service rejects fails alone; its siblings are created', async () => {
    const c = client();
    // Valid by the catalog's rules, but not a location the events search knows: only the service can tell.
    const tasks = [event(1), { keyword: 'jazz', location_name: 'Atlantis', language_code: 'en' }, event(3)];
    const outcomes = await c.postTasks('serp.events.task_post', tasks);
    ok(outcomes[0]);
    ok(outcomes[2]);
    const e = err(outcomes[1]);
    expect(e).toMatchObject({ code: 40501, local: false, path: ['v3', 'serp', config.paths.engine_a, 'events', 'task_post'] });
    expect(e.message).toContain('location_name');
    expect((e.data as Record<string, unknown>).location_name).toBe('Atlantis');
    expect(sandbox.controls.postings()).toHaveLength(2);
  });

  it('task_get of an unknown id and of a task not yet finished are task errors, not exceptions', async () => {
    const c = client();
    const missing = err(await c.taskGet('keywords_for_site.task_get', '11111111-2222-3333-4444-555555555555'));
    expect(missing.code).toBe(40401);
    sandbox.controls.setCompletionDelay(60_000);
    const [posted] = await c.postTasks('keywords_for_site.task_post', [site(1)]);
    const early = err(await c.taskGet('keywords_for_site.task_get', ok(posted).task.id));
    expect(early).toMatchObject({ code: 40602, id: ok(posted).task.id });
  });
});

describe('local validation: a task that breaks a rule is never sent, costs nothing, and names field, rule and value', () => {
  const since = (days: number) => formatTimestamp(new Date(Date.now() - days * 86_400_000));
  const cases: Array<{ endpointId: string; task: Record<string, unknown>; field: string; rule: RegExp; code?: number }> = [
    { endpointId: 'keywords_for_site.task_post', task: { location_code: 2840 }, field: 'target', rule: /required/ },
    { endpointId: 'keywords_for_site.task_post', task: { ...site(1), target: 'not a domain!' }, field: 'target', rule: /domain/ },
    { endpointId: 'keywords_for_site.task_post', task: { ...site(1), sort_by: 'alphabet' }, field: 'sort_by', rule: /one of/ },
    { endpointId: 'keywords_for_site.task_post', task: { ...site(1), search_partners: 'yes' }, field: 'search_partners', rule: /true or false/ },
    { endpointId: 'keywords_for_site.task_post', task: { ...site(1), colour: 'red' }, field: 'colour', rule: /not a field/, code: 40506 },
    { endpointId: 'keywords_for_keywords.task_post', task: { keywords: Array.from({ length: 201 }, (_, i) => `k${i}`) }, field: 'keywords', rule: /at most 200/ },
    { endpointId: 'keywords_for_keywords.task_post', task: { keywords: ['ok', ''] }, field: 'keywords[1]', rule: /non-empty/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x'.repeat(701), location_code: 2840 }, field: 'keyword', rule: /at most 700/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_code: 2840, depth: 701 }, field: 'depth', rule: /at most 700/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_code: 2840, depth: 1.5 }, field: 'depth', rule: /integer/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_code: 2840, tag: 't'.repeat(256) }, field: 'tag', rule: /at most 255/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x' }, field: 'location_code|location_name|location_coordinate', rule: /one of/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_code: 2840, postback_url: 'https://h.example/p?id=$id' }, field: 'postback_data', rule: /required when postback_url/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_coordinate: '40.1,-73.2,50' }, field: 'location_coordinate', rule: /radius/ },
    { endpointId: 'serp.events.task_post', task: { keyword: 'x', location_code: 2840, pingback_url: 'ftp://x' }, field: 'pingback_url', rule: /http/ },
    { endpointId: 'merchant.google.products.task_post', task: { keyword: 'x', location_code: 2840, priority: 3 }, field: 'priority', rule: /one of 1, 2/ },
    { endpointId: 'merchant.google.products.task_post', task: { keyword: 'x', location_code: 0 }, field: 'location_code', rule: /at least 1/ },
  ];
  for (const tc of cases) {
    it(`${tc.endpointId}: ${tc.field} ${tc.rule.source}`, async () => {
      const c = client();
      const good = tc.endpointId.startsWith('keywords_for_site') ? site(9) : tc.endpointId.startsWith('keywords_for_keywords') ? kwds(9) : tc.endpointId.startsWith('serp') ? event(9) : product(9);
      const outcomes = await c.postTasks(tc.endpointId, [tc.task, good]);
      const e = err(outcomes[0]);
      expect(e.local).toBe(true);
      expect(e.field).toBe(tc.field);
      expect(e.rule).toMatch(tc.rule);
      expect(e.code).toBe(tc.code ?? 40501);
      expect(e.message).toContain(tc.field);
      expect(e.message).toMatch(/\(got .+\)/);
      ok(outcomes[1]);
      // Only the valid sibling went out, in one POST.
      expect(raws).toHaveLength(1);
      expect(raws[0].requestBody).toEqual([good]);
      expect(sandbox.controls.charges().map((ch) => ch.taskId)).toEqual([ok(outcomes[1]).task.id]);
    });
  }

  it('live and list calls are validated too and never sent when invalid', async () => {
    const c = client();
    const paraphrase = err(await c.live('content_generation.paraphrase.live', { text: 'hello', creativity_index: 1.5 }));
    expect(paraphrase).toMatchObject({ local: true, field: 'creativity_index' });
    const terms = err(await c.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['<b>'], limit: 9000, offset: 2000 }));
    expect(terms).toMatchObject({ local: true, field: 'limit+offset' });
    const filters = err(await c.live('on_page.resources', { id: '11111111-2222-3333-4444-555555555555', filters: Array.from({ length: 17 }, (_, i) => (i % 2 ? 'and' : ['size', '>', i])) }));
    expect(filters).toMatchObject({ local: true, field: 'filters' });
    expect(filters.rule).toMatch(/at most 8 conditions/);
    const order = err(await c.live('domain_analytics.technologies.domains_by_html_terms.live', { search_terms: ['<b>'], order_by: ['size,asc'] }));
    expect(order).toMatchObject({ local: true, field: 'order_by[0]' });
    const errors = err(await c.list('domain_analytics.errors', { datetime_from: since(9) }));
    expect(errors).toMatchObject({ local: true, field: 'datetime_from' });
    expect(errors.rule).toMatch(/last 7 days/);
    const tokens = err(await c.live('content_generation.paraphrase.live', { text: 'word '.repeat(501), creativity_index: 0.5 }));
    expect(tokens.rule).toMatch(/tokens/);
    expect(sandbox.controls.calls()).toHaveLength(0);
  });
});

describe('batching', () => {
  it('posts 250 tasks as 100 + 100 + 50, and reports each batch before the next is sent', async () => {
    const c = client();
    const tasks = Array.from({ length: 250 }, (_, i) => event(i));
    const seen: Array<{ entries: number; callsAtCallback: number; firstIndex: number }> = [];
    const outcomes = await c.postTasks('serp.events.task_post', tasks, {
      onBatchPosted: (entries: BatchEntry[]) => { seen.push({ entries: entries.length, callsAtCallback: sandbox.controls.calls().length, firstIndex: entries[0].index }); },
    });
    expect(raws.map((r) => (r.requestBody as unknown[]).length)).toEqual([100, 100, 50]);
    expect(seen).toEqual([
      { entries: 100, callsAtCallback: 1, firstIndex: 0 },
      { entries: 100, callsAtCallback: 2, firstIndex: 100 },
      { entries: 50, callsAtCallback: 3, firstIndex: 200 },
    ]);
    expect(outcomes).toHaveLength(250);
    expect(outcomes.map((o) => ok(o).task.data.tag)).toEqual(tasks.map((t) => t.tag));
    expect(new Set(sandbox.controls.postings().map((p) => p.tag)).size).toBe(250);
  });

  it('takes the smaller of the endpoint cap and config.api.tasks_per_post', async () => {
    const c = client({ tasksPerPost: 40 });
    await c.postTasks('merchant.google.products.task_post', Array.from({ length: 90 }, (_, i) => product(i)));
    expect(raws.map((r) => (r.requestBody as unknown[]).length)).toEqual([40, 40, 10]);
  });

  it('reports local failures to onBatchPosted first, and keeps input order around them', async () => {
    const c = client();
    const tasks = [site(1), { target: '' }, site(3)];
    const calls: number[][] = [];
    const outcomes = await c.postTasks('keywords_for_site.task_post', tasks, { onBatchPosted: (e) => { calls.push(e.map((x) => x.index)); } });
    expect(calls).toEqual([[1], [0, 2]]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
  });
});

describe('refusals', () => {
  it('wrong credentials throw ApiError (40100, HTTP 401, exit code 5) after one attempt', async () => {
    const c = client({ credentials: { login: config.sandbox.login, password: 'wrong-password' } });
    const e = await c.tasksReady('keywords_for_site.tasks_ready').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: 40100, httpStatus: 401, exitCode: 5 });
    expect(sandbox.controls.calls()).toHaveLength(1);
    await expect(c.postTasks('keywords_for_site.task_post', [site(1)])).rejects.toMatchObject({ code: 40100 });
  });

  it('calls an endpoint of the wrong kind with a clear error before sending anything', async () => {
    const c = client();
    await expect(c.postTasks('keywords_for_site.task_get', [site(1)])).rejects.toThrow(/GET task_get endpoint; this call takes task_post/);
    expect(sandbox.controls.calls()).toHaveLength(0);
  });

  it('fromConfig needs the sandbox url when base_url is "sandbox"', () => {
    expect(() => ApiClient.fromConfig(config)).toThrow(/pass its url as baseUrl/);
    expect(ApiClient.fromConfig(config, { baseUrl: sandbox.url })).toBeInstanceOf(ApiClient);
  });
});
