/**
 * The prices of the families beyond SERP, Labs and Backlinks (config/prices.yaml, docs/api-live.md): for a step of
 * each pricing shape, plan's figure is what the embedded sandbox bills (a flat price, an On-Page crawl reserved for
 * max_crawl_pages with its options, an instant page), or lies within the range plan states (per row; an LLM's tokens). A step whose
 * endpoint has no published price is said to be unpriced, never $0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import type { Envelope } from '../../src/api/envelope.js';
import { basicAuthHeader, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { estimatePlan, formatPlan, planPipeline, runIdFor } from '../../src/pipeline/index.js';
import type { Plan } from '../../src/pipeline/plan.js';
import { load, testConfig } from '../pipeline/helpers.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { UNPRICED_BEGIN, unpricedByFamily, withUnpricedSection } from '../../src/api/unpriced-doc.js';
import { ROOT } from '../helpers/project.js';

const config = testConfig();
const RUN = runIdFor('prices', '2026-11-02');
const PIPELINE = `name: prices
budget_usd: 5
steps:
  - name: bing_volume
    endpoint: keywords_data.bing.search_volume.live
    params: { keywords: [tent, stove], location_code: 2840, language_code: en }
  - name: lighthouse
    endpoint: on_page.lighthouse.live.json
    params: { url: "https://example.com/" }
  - name: crawl
    endpoint: on_page.task_post
    params: { target: example.com, max_crawl_pages: 40, enable_browser_rendering: true, load_resources: true, enable_javascript: true }
  - name: instant
    endpoint: on_page.instant_pages
    params: { url: "https://example.com/", enable_javascript: true }
  - name: reviews
    endpoint: business_data.google.reviews.task_post
    params: { keyword: pizza palace, location_code: 2840, language_code: en, depth: 25 }
  - name: reviews_by_cid
    endpoint: business_data.google.reviews.task_post
    params: { cid: "194604053573767737", location_code: 2840, language_code: en }
  - name: citations
    endpoint: content_analysis.search.live
    params: { keyword: trailhub, limit: 25 }
  - name: mentions
    endpoint: ai_optimization.llm_mentions.search_mentions.live
    params: { target: [{ keyword: trailhub }], platform: chat_gpt, location_code: 2840, language_code: en, limit: 5 }
  - name: chatgpt
    endpoint: ai_optimization.chat_gpt.llm_responses.live
    params: { user_prompt: "Which trail running shoes last longest?", model_name: gpt-4.1-mini, max_output_tokens: 300 }
  - name: sonar
    endpoint: ai_optimization.perplexity.llm_responses.live
    params: { user_prompt: "Best trail running shoes", model_name: sonar, max_output_tokens: 200 }
  - name: trends
    endpoint: keywords_data.google_trends.explore.live
    params: { keywords: [tent] }
`;

let plan: Plan;
let sandbox: Sandbox;
beforeAll(async () => {
  plan = await planPipeline(load(PIPELINE, {}, config).pipeline(), { runId: RUN });
  sandbox = await startSandbox({ config, port: 0 });
});
afterAll(() => sandbox?.close());

/** What the sandbox bills the step's one task. */
async function billed(step: string): Promise<number> {
  const s = plan.steps.find((x) => x.step === step)!;
  const def = endpoint(s.endpointId);
  const res = await fetch(`${sandbox.url}${resolvePath(def, config.paths)}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(config.sandbox.login, config.sandbox.password), 'content-type': 'application/json' },
    body: JSON.stringify([s.tasks[0].params]),
  });
  const env = (await res.json()) as Envelope;
  expect(env.tasks[0].status_code, `${step}: ${env.tasks[0].status_message}`).toBeLessThan(40000);
  return env.tasks[0].cost;
}

describe('plan and the sandbox bill the same', () => {
  it('flat prices and an On-Page crawl reserved for max_crawl_pages: plan = the bill', async () => {
    const e = estimatePlan(plan, config);
    const cost = (step: string) => e.steps.find((s) => s.step === step)!;
    expect(cost('bing_volume').costUsd).toBe(0.075);
    expect(cost('lighthouse').costUsd).toBe(0.00425);
    // 40 pages x $0.000125 x (1 + 33 for browser rendering, which includes resources and JavaScript); from 1 page.
    expect(cost('crawl')).toMatchObject({ costUsd: 0.17, costMinUsd: 0.00425 });
    // Instant pages, a list the service bills per page: one page x $0.000125 x (1 + 9 for JavaScript).
    expect(cost('instant')).toMatchObject({ costUsd: 0.00125 });
    expect(cost('instant').costMinUsd ?? cost('instant').costUsd).toBe(0.00125);
    // Google reviews, per 10 of the depth asked: 25 -> 3 x $0.00075; a cid doubles the default 10's $0.00075.
    expect(cost('reviews').costUsd).toBe(0.00225);
    expect(cost('reviews_by_cid').costUsd).toBe(0.0015);
    for (const step of ['bing_volume', 'lighthouse', 'crawl', 'instant', 'reviews', 'reviews_by_cid']) expect(await billed(step), step).toBe(cost(step).costUsd);
  });

  it('per-row and per-token prices: the bill lies within the range plan states', async () => {
    const e = estimatePlan(plan, config);
    const range = (step: string) => { const s = e.steps.find((x) => x.step === step)!; return [s.costMinUsd ?? s.costUsd, s.costUsd]; };
    // $0.02 + 25 rows x $0.00003; $0.01 + 5 rows x $0.0001.
    expect(range('citations')).toEqual([0.02, 0.02075]);
    expect(range('mentions')).toEqual([0.01, 0.0105]);
    // $0.0006 + 39 prompt bytes x $0.40/M + 300 output tokens x $1.60/M (gpt-4.1-mini's list prices), to the
    // micro-dollar as the service reports costs.
    expect(range('chatgpt')).toEqual([0.0006, 0.001096]);
    // Sonar: $0.0006 + its $0.012 request fee, + 24 bytes x $1/M + 200 tokens x $1/M.
    expect(range('sonar')).toEqual([0.0126, 0.012824]);
    for (const step of ['citations', 'mentions', 'chatgpt', 'sonar']) {
      const [min, max] = range(step);
      const bill = await billed(step);
      expect(bill, step).toBeGreaterThanOrEqual(min);
      expect(bill, step).toBeLessThanOrEqual(max);
    }
  });

  it('the LLM answer reports the tokens it was billed for, within what the request allows', async () => {
    const s = plan.steps.find((x) => x.step === 'chatgpt')!;
    const res = await fetch(`${sandbox.url}${resolvePath(endpoint(s.endpointId), config.paths)}`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(config.sandbox.login, config.sandbox.password), 'content-type': 'application/json' },
      body: JSON.stringify([s.tasks[0].params]),
    });
    const env = (await res.json()) as Envelope;
    const answer = (env.tasks[0].result as Record<string, number>[])[0];
    expect(answer.output_tokens).toBeGreaterThan(0);
    expect(answer.output_tokens).toBeLessThanOrEqual(300);
    expect(answer.input_tokens).toBeLessThanOrEqual(39);
    const tokens = (answer.input_tokens * 0.4 + answer.output_tokens * 1.6) / 1e6;
    expect(Math.abs(answer.money_spent - tokens)).toBeLessThanOrEqual(5e-7);
    expect(Math.abs(env.tasks[0].cost - (0.0006 + tokens))).toBeLessThanOrEqual(5e-7);
  });

  it('a step with no published price is unpriced, not $0', () => {
    const e = estimatePlan(plan, config);
    expect(e.steps.find((s) => s.step === 'trends')).toMatchObject({ unpriced: true, costUsd: 0 });
    expect(e.steps.filter((s) => s.unpriced).map((s) => s.step)).toEqual(['trends']);
    const text = formatPlan(e);
    expect(text).toMatch(/^trends\s.*\sunpriced$/m);
    expect(text).toMatch(/^total\s.*\+ unpriced$/m);
    expect(text).toContain('No price for trends (keywords_data.google_trends.explore.live)');
    expect(text).toMatch(/^Estimated cost \$[\d.]+ \(and the unpriced steps\) of budget \$5.00/m);
  });
});

describe('docs/api-live.md', () => {
  const prices = loadConfig({ root: ROOT, env: {} }).prices;
  const doc = readFileSync(path.join(ROOT, 'docs', 'api-live.md'), 'utf8');

  it('lists every operation plan calls unpriced, and no priced one (seo-etl docs rewrites the list)', () => {
    expect(doc).toContain(UNPRICED_BEGIN);
    expect(withUnpricedSection(doc, prices)).toBe(doc);
    const listed = [...unpricedByFamily(prices).values()].flat();
    expect(listed).toContain('keywords_data.google_trends.explore.live');
    expect(listed).not.toContain('business_data.google.reviews.task_post');
    expect(listed).not.toContain('on_page.instant_pages');
    // A price added makes the list shorter by that operation.
    const priced = unpricedByFamily({ ...prices, 'keywords_data.google_trends.explore.live': { per_task: 0.01 } });
    expect([...priced.values()].flat()).toEqual(listed.filter((id) => id !== 'keywords_data.google_trends.explore.live'));
  });
});
