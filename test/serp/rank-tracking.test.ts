/**
 * Acceptance: the rank-tracking example runs against the sandbox on two days and the movement view shows what
 * changed between them; plan prices SERP tasks as the live service bills them (depth per page, priority, device)
 * and the sandbox bills the same.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { loadConfig } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { clockOnDay, DAY_MS } from '../../src/sandbox/clock.js';
import { endpoint } from '../../src/api/catalog.js';
import { taskPrice } from '../../src/api/pricing.js';
import { validateTask } from '../../src/api/validate.js';
import { loadPipeline, planPipeline, estimatePlan } from '../../src/pipeline/index.js';
import { FAST, ROOT, collectStream, isoDay, queryFile } from '../helpers/project.js';
import { call } from '../sandbox/helpers.js';

const EXAMPLE = path.join(ROOT, 'pipelines', 'examples', 'rank-tracking.yaml');
let sandbox: Sandbox | undefined;
const dirs: string[] = [];
afterEach(async () => { await sandbox?.close(); sandbox = undefined; while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });

describe('pricing of SERP tasks', () => {
  const prices = loadConfig({ root: ROOT }).prices;
  const price = (id: string, task: Record<string, unknown>) => taskPrice(endpoint(id), task, prices);

  test('depth is billed per page of results (later organic pages at 75%), priority 2 doubles, maps pages are 20 results on mobile', () => {
    const organic = 'serp.google.organic.task_post';
    expect(price(organic, { keyword: 'k' })).toBe(0.0006);
    expect(price(organic, { keyword: 'k', depth: 10 })).toBe(0.0006);
    expect(price(organic, { keyword: 'k', depth: 11 })).toBe(0.00105);
    expect(price(organic, { keyword: 'k', depth: 100 })).toBe(0.00465);
    expect(price(organic, { keyword: 'k', depth: 100, max_crawl_pages: 2 })).toBe(0.00105);
    expect(price(organic, { keyword: 'k', depth: 20, priority: 2 })).toBe(0.0021);
    expect(price(organic, { keyword: 'k', depth: 20, device: 'mobile' })).toBe(0.00105);
    const maps = 'serp.google.maps.task_post';
    expect(price(maps, { keyword: 'k' })).toBe(0.0006);
    expect(price(maps, { keyword: 'k', depth: 100, device: 'mobile' })).toBe(0.003);
    expect(price(maps, { keyword: 'k', depth: 100, device: 'mobile', priority: 2 })).toBe(0.006);
    expect(price('serp.google.images.task_post', { keyword: 'k', depth: 150 })).toBe(0.0012);
    expect(price('serp.bing.local_pack.task_post', { keyword: 'k', depth: 12 })).toBe(0.0015);
    expect(price('serp.google.organic.live.advanced', { keyword: 'k', depth: 30 })).toBe(0.005);
    expect(price('serp.google.organic.task_get.advanced', {})).toBe(0);
  });

  test('the request rules refuse what the live service refuses, naming the field', () => {
    const issues = (id: string, t: Record<string, unknown>) => validateTask(endpoint(id), t).map((i) => `${i.field}: ${i.rule}`);
    expect(issues('serp.google.organic.task_post', { keyword: 'k', location_code: 2840 })).toEqual([expect.stringMatching(/language_code/)]);
    expect(issues('serp.google.organic.task_post', { keyword: 'k', location_code: 2840, language_code: 'en', depth: 701 })).toEqual([expect.stringMatching(/^depth:/)]);
    expect(issues('serp.google.news.task_post', { keyword: 'k', location_code: 2840, language_code: 'en', device: 'mobile' })).toEqual([expect.stringMatching(/^device:/)]);
    expect(issues('serp.google.news.live.advanced', { keyword: 'k', location_code: 2840, language_code: 'en', depth: 300 })).toEqual([expect.stringMatching(/^depth:/)]);
    expect(issues('serp.google.organic.task_post', { keyword: 'k', location_code: 2840, language_code: 'en', postback_url: 'https://example.org/pb' })).toEqual([expect.stringMatching(/^postback_data:/)]);
    expect(issues('serp.baidu.organic.task_post', { keyword: 'k', location_code: 2156 })).toEqual([]);
    expect(issues('serp.google.organic.live.advanced', { keyword: 'k', location_code: 2840, language_code: 'en', priority: 2 })).toEqual([expect.stringMatching(/^priority: is not a field/)]);
  });
});

describe('the rank-tracking example against the sandbox', () => {
  test('two days: plan, billing and the movement view agree with the rank history', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-rank-'));
    dirs.push(dataDir);
    // The sandbox runs on the first run date, then a day later: what it serves never depends on the real day.
    const clock = clockOnDay('2026-11-20');
    const config = loadConfig({ root: ROOT, overrides: { ...FAST } });
    sandbox = await startSandbox({ config, clock, callbackTimeoutMs: 1000 });
    const env: NodeJS.ProcessEnv = { ...process.env, SEO_ETL_API_BASE_URL: sandbox.url, SEO_ETL_LOGIN: config.sandbox.login, SEO_ETL_PASSWORD: config.sandbox.password, SEO_ETL_WAREHOUSE_DIR: dataDir };
    const overrides = { ...FAST, api: { ...FAST.api, base_url: sandbox.url }, warehouse: { dir: dataDir } };
    const run = (runDate: string) => runJob({ root: ROOT, pipelineFile: EXAMPLE, runDate, env, configOverrides: overrides, progress: false, out: collectStream(), logDestination: collectStream() });

    const runConfig = loadConfig({ root: ROOT, env, overrides });
    const estimate = estimatePlan(await planPipeline(loadPipeline(EXAMPLE, runConfig), { runId: 'plan' }), runConfig);
    expect(estimate.totals.tasks).toBe(12);
    expect(estimate.totals.costUsd).toBeCloseTo(12 * 0.00105, 9);

    const first = await run('2026-11-20');
    expect(first.exitCode).toBe(0);
    clock.advance(DAY_MS);
    const second = await run('2026-11-21');
    expect(second.exitCode).toBe(0);

    // The sandbox billed what plan estimated, task by task.
    const postings = sandbox.controls.postings();
    expect(postings).toHaveLength(24);
    for (const p of postings) expect(p.cost).toBe(taskPrice(endpoint(p.endpointId), p.data, runConfig.prices));
    expect(sandbox.controls.billed()).toBeCloseTo(2 * estimate.totals.costUsd, 9);
    expect(postings.filter((p) => p.data.device === 'mobile')).toHaveLength(12);

    const db = second.publishedPath;
    const [{ results }] = await queryFile(db, `SELECT count(*)::INT AS results FROM serp_results`);
    expect(results).toBe(24);
    const features = await queryFile(db, `SELECT DISTINCT item_type FROM v_serp_features`);
    expect(features.map((r) => r.item_type).sort()).toEqual(['featured_snippet', 'images', 'knowledge_graph', 'local_pack', 'organic', 'paid', 'people_also_ask', 'related_searches', 'shopping', 'top_stories', 'video']);

    const history = await queryFile(db, `SELECT keyword, location_code, device, date, domain, min(best_position) AS pos FROM v_serp_rank_history GROUP BY ALL`);
    const dates = [...new Set(history.map((r) => isoDay(r.date)))].sort();
    expect(dates).toEqual(['2026-11-20', '2026-11-21']);
    const key = (r: Record<string, unknown>) => `${r.keyword}|${r.location_code}|${r.device}|${r.domain}`;
    const before = new Map(history.filter((r) => isoDay(r.date) === dates[0]).map((r) => [key(r), Number(r.pos)]));
    const after = new Map(history.filter((r) => isoDay(r.date) === dates[1]).map((r) => [key(r), Number(r.pos)]));

    const moves = await queryFile(db, `SELECT * FROM v_serp_domain_movement WHERE date = (SELECT max(date) FROM v_serp_domain_movement)`);
    const counts = Object.fromEntries(['up', 'down', 'same', 'new', 'lost'].map((m) => [m, moves.filter((r) => r.movement === m).length]));
    expect(counts.up).toBeGreaterThan(0);
    expect(counts.down).toBeGreaterThan(0);
    // Every movement row is the difference of the two days' rank history, and every domain of either day has one.
    for (const m of moves) {
      const k = key(m);
      expect(m.position === null ? undefined : Number(m.position)).toBe(after.get(k));
      expect(m.previous_position === null ? undefined : Number(m.previous_position)).toBe(before.get(k));
      if (m.position !== null && m.previous_position !== null) expect(Number(m.change)).toBe(before.get(k)! - after.get(k)!);
    }
    const series = new Set(moves.map((m) => `${m.keyword}|${m.location_code}|${m.device}`));
    expect(series.size).toBe(12);
    expect(moves.length).toBe(new Set([...before.keys(), ...after.keys()]).size);
  }, 120_000);
});
