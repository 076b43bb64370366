import { describe, expect, test } from 'vitest';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import type { Envelope } from '../../src/api/envelope.js';
import { basicAuthHeader, startSandbox } from '../../src/sandbox/index.js';
import { budgetAllows, batchCost, estimatePlan, formatDuration, formatPlan, formatPlanJson, formatUsd, planPipeline, runIdFor, tasksPerPost } from '../../src/pipeline/index.js';
import { load, testConfig } from './helpers.js';

const RUN = runIdFor('mixed', '2024-05-01');
const keywords = (n: number, prefix = 'kw') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n');

const MIXED = `name: mixed
budget_usd: 1.2
steps:
  - name: events
    endpoint: serp.events.task_post
    params: { depth: 30, language_code: en }
    for_each:
      keyword: { file: events.txt }
      location_code: [2840, 2826]
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840 }
    collect: postback
    for_each:
      keywords: { file: ideas.txt }
  - name: shop
    endpoint: merchant.google.products.task_post
    params: { location_code: 2840, language_code: en, priority: 2 }
    collect: pingback
    for_each:
      keyword: [tent, stove, lantern]
  - name: domains
    endpoint: domain_analytics.technologies.domains_by_html_terms.live
    params: { search_terms: ["shop.js"], limit: 50 }
    paging: { max_pages: 3 }
  - name: serp_endpoints
    endpoint: serp.endpoints
`;
const INPUTS = { 'events.txt': keywords(250), 'ideas.txt': keywords(450, 'idea') };

describe('plan estimate', () => {
  test('tasks, calls, cost and shortest duration per step and in total, exactly', async () => {
    // The account limit of accounts before the live service's 10,000 (the default since 2026-10-19).
    const config = testConfig({ rate_limit: { calls: 2000, window_ms: 60_000 } });
    const p = load(MIXED, INPUTS, config).pipeline();
    const e = estimatePlan(await planPipeline(p, { runId: RUN }), config);
    const row = (name: string) => e.steps.find((s) => s.step === name)!;
    // 250 keywords x 2 locations; 100 per POST; one tasks_ready call per 1000 ready; a task_get each.
    // depth 30 = 3 SERPs of 10: 0.0006 + 2 x 0.0006 = 0.0018 per task.
    expect(row('events')).toMatchObject({ tasks: 500, perPost: 100, calls: { posts: 5, readyPolls: 1, taskGets: 500, live: 0, list: 0, total: 506 }, costUsd: 0.9 });
    // 450 keywords in chunks of 200: 3 tasks, one POST; postback needs no further call.
    expect(row('ideas')).toMatchObject({ tasks: 3, calls: { posts: 1, readyPolls: 0, taskGets: 0, total: 1 }, costUsd: 0.225 });
    // priority 2 doubles 0.002 (the default depth 40 is one page); a pingback still needs a task_get per task.
    expect(row('shop')).toMatchObject({ tasks: 3, calls: { posts: 1, readyPolls: 0, taskGets: 3, total: 4 }, costUsd: 0.012 });
    // a live call per page, each billed.
    expect(row('domains')).toMatchObject({ tasks: 1, pages: 3, calls: { live: 3, total: 3 }, costUsd: 0.03 });
    expect(row('serp_endpoints')).toMatchObject({ tasks: 1, calls: { list: 1, total: 1 }, costUsd: 0 });
    expect(e.totals).toEqual({
      tasks: 508,
      calls: { posts: 7, readyPolls: 1, taskGets: 503, live: 3, list: 1, total: 515 },
      costUsd: 1.167,
      withinBudget: true,
      // 515 calls at 2000 per 60 s.
      shortestSeconds: 15.45,
      // The task steps wait once in the queue: here the sandbox's completion delay (200 ms).
      queueSeconds: 0.2,
      queueFrom: 'sandbox.completion_delay_ms',
      expectedSeconds: 15.65,
      deferredSteps: 0,
    });
  });

  test('the batch size follows config (never above the endpoint cap) and the budget verdict follows the pipeline', async () => {
    const config = testConfig({ api: { tasks_per_post: 40 }, rate_limit: { calls: 100, window_ms: 60_000 } });
    expect(tasksPerPost('serp.events.task_post', config)).toBe(40);
    expect(tasksPerPost('content_generation.paraphrase.live', config)).toBe(1);
    const p = load(MIXED.replace('budget_usd: 1.2', 'budget_usd: 1.166999'), INPUTS, config).pipeline();
    const e = estimatePlan(await planPipeline(p, { runId: RUN }), config);
    expect(e.steps[0].calls.posts).toBe(13);
    expect(e.totals.calls.total).toBe(523);
    expect(e.totals.withinBudget).toBe(false);
    expect(e.totals.shortestSeconds).toBe(313.8);
  });

  test('a sub-limit slower than the account limit sets the shortest duration (tasks_fixed: 20 per minute)', async () => {
    const config = testConfig();
    const p = load(`name: fixed
budget_usd: 0
steps:
  - { name: a, endpoint: serp.events.tasks_fixed }
  - { name: b, endpoint: serp.endpoints }
  - { name: c, endpoint: serp.events.tasks_fixed }
`, {}, config).pipeline();
    const plan = await planPipeline(p, { runId: RUN });
    // Step c asks for exactly what step a asks for: planned once, by a.
    expect(plan.steps.map((s) => [s.tasks.length, s.duplicates])).toEqual([[1, 0], [1, 0], [0, 1]]);
    const e = estimatePlan(plan, config);
    expect(e.totals.calls.total).toBe(2);
    // 1 call of an endpoint allowed 20 per minute takes 3 s; the account limit alone would allow 0.06 s.
    expect(e.totals.shortestSeconds).toBe(3);
  });

  test('issue 47.2: a task two targets\' steps ask for is planned once and shown as shared, with both targets', async () => {
    const config = testConfig();
    const p = load(`name: clients
budget_usd: 1
targets:
  - { name: trailhub, domains: [trailhub.com] }
  - { name: fitlab, domains: [fitlab.io] }
steps:
  - name: ranks
    endpoint: serp.google.organic.task_post
    target: trailhub
    params: { language_code: en, location_code: 2840 }
    for_each: { keyword: [running shoes, hiking boots], device: [desktop, mobile] }
  - name: fitlab-ranks
    endpoint: serp.google.organic.task_post
    target: fitlab
    params: { language_code: en, location_code: 2840, device: desktop }
    for_each: { keyword: [running shoes, yoga mat] }
`, {}, config).pipeline();
    const e = estimatePlan(await planPipeline(p, { runId: RUN }), config);
    expect(e.steps.map((s) => [s.step, s.tasks])).toEqual([['ranks', 4], ['fitlab-ranks', 1]]);
    expect(e.steps[0].shared).toBeUndefined();
    expect(e.steps[1].shared).toEqual([{ step: 'ranks', target: 'trailhub', tasks: 1 }]);
    expect(formatPlan(e)).toContain('Step fitlab-ranks: 1 task shared with step ranks: posted and paid once, by ranks; its results are tracked for targets trailhub and fitlab.');
    expect(JSON.parse(formatPlanJson(e)).steps[1].shared).toEqual([{ step: 'ranks', target: 'trailhub', tasks: 1 }]);
  });

  test('a SQL-fed step is marked deferred, or counted from the warehouse as it is now', async () => {
    const config = testConfig();
    const yaml = `name: chain
budget_usd: 1
steps:
  - name: site
    endpoint: keywords_for_site.task_post
    params: { location_code: 2840 }
    for_each:
      target: { sql: "SELECT domain FROM found" }
`;
    const p = load(yaml, {}, config).pipeline();
    const deferred = estimatePlan(await planPipeline(p, { runId: RUN }), config);
    expect(deferred.steps[0]).toMatchObject({ tasks: 0, deferred: true, calls: { total: 0 } });
    expect(deferred.totals.deferredSteps).toBe(1);
    expect(formatPlan(deferred)).toContain('expanded at run time');
    const failing = estimatePlan(await planPipeline(p, { runId: RUN, query: async () => { throw new Error('Catalog Error: Table with name found does not exist!'); } }), config);
    expect(failing.steps[0].deferredNote).toContain('does not exist');
    const counted = estimatePlan(await planPipeline(p, { runId: RUN, query: async () => [{ domain: 'a.example' }, { domain: 'b.example' }] }), config);
    expect(counted.steps[0]).toMatchObject({ tasks: 2, deferred: true, costUsd: 0.15 });
  });

  test('the table and the JSON form', async () => {
    const config = testConfig({ rate_limit: { calls: 2000, window_ms: 60_000 } });
    const e = estimatePlan(await planPipeline(load(MIXED, INPUTS, config).pipeline(), { runId: RUN }), config);
    const text = formatPlan(e);
    const lines = text.split('\n');
    expect(lines[0]).toContain('Plan for mixed');
    expect(lines.find((l) => l.startsWith('events'))).toMatch(/^events\s+serp\.events\.task_post\s+tasks_ready\s+500\s+5\s+1\s+500\s+0\s+506\s+\$0\.90$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+508\s+7\s+1\s+503\s+4\s+515\s+\$1\.167$/);
    expect(text).toContain('Estimated cost $1.167 of budget $1.20: within budget');
    expect(text).toContain('15.5 s (515 calls)');
    expect(text).toContain('domains 3 pages');
    expect(JSON.parse(formatPlanJson(e))).toEqual(JSON.parse(JSON.stringify(e)));
  });
});

describe('budget', () => {
  test('budgetAllows compares in micro-dollars', () => {
    expect(0.1 + 0.2 > 0.3).toBe(true); // the float drift the helper must not trip on
    expect(budgetAllows(0.1, 0.2, 0.3)).toBe(true);
    expect(budgetAllows(0.3, 0.000001, 0.3)).toBe(false);
    expect(budgetAllows(0, 0, 0)).toBe(true);
    expect(budgetAllows(0.9, 0.1, 1)).toBe(true);
    expect(budgetAllows(0.9, 0.100001, 1)).toBe(false);
    expect(batchCost([{ price: 0.0006 }, { price: 0.0018 }, { price: 0.1 }])).toBe(0.1024);
  });

  test('money and durations as the plan prints them', () => {
    expect([0, 1, 0.9, 0.0018, 1.167, 0.000001].map(formatUsd)).toEqual(['$0.00', '$1.00', '$0.90', '$0.0018', '$1.167', '$0.000001']);
    expect([0.03, 15.45, 60, 313.8, 3725].map(formatDuration)).toEqual(['0 s', '15.5 s', '1 min', '5 min 14 s', '1 h 2 min']);
  });
});

describe('the estimate equals what the sandbox bills for the same tasks', () => {
  test('task posts and live calls', async () => {
    const config = testConfig();
    const p = load(`name: billing
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    params: { location_code: 2840 }
    for_each:
      keyword: [concerts, opera, jazz]
      depth: [10, 11, 700]
      priority: [1, 2]
  - name: shop
    endpoint: merchant.google.products.task_post
    params: { location_code: 2840, language_code: en, priority: 2 }
    for_each:
      keyword: [tent, stove]
      depth: [40, 41, 120]
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840 }
    for_each:
      keywords: { values: [a, b, c], chunk: 2 }
  - name: site
    endpoint: keywords_for_site.task_post
    params: { location_code: 2840 }
    for_each:
      target: [a.example, b.example]
  - name: rewrite
    endpoint: content_generation.paraphrase.live
    params: { creativity_index: 0.5 }
    for_each:
      text: ["One sentence to rewrite.", "Another one."]
  - name: domains
    endpoint: domain_analytics.technologies.domains_by_html_terms.live
    params: { search_terms: ["<script"] }
`, {}, config).pipeline();
    const plan = await planPipeline(p, { runId: RUN });
    const e = estimatePlan(plan, config);
    const sandbox = await startSandbox({ config, port: 0 });
    try {
      const auth = basicAuthHeader(config.sandbox.login, config.sandbox.password);
      let reported = 0;
      for (const step of plan.steps) {
        const def = endpoint(step.endpointId);
        const per = def.kind === 'task_post' ? tasksPerPost(def.id, config) : 1;
        for (let i = 0; i < step.tasks.length; i += per) {
          const body = step.tasks.slice(i, i + per).map((t) => t.params);
          const res = await fetch(`${sandbox.url}${resolvePath(def, config.paths)}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const env = (await res.json()) as Envelope;
          expect(env.tasks.map((t) => t.status_code).every((c) => c < 40000)).toBe(true);
          reported += Math.round(env.cost * 1e6);
        }
      }
      expect(e.totals.costUsd).toBeGreaterThan(0);
      expect(sandbox.controls.billed()).toBe(e.totals.costUsd);
      expect(reported / 1e6).toBe(e.totals.costUsd);
    } finally {
      await sandbox.close();
    }
  });
});
