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
  test('two days: plan\'s range and the bill, crawl control, tracked ranks, and a citation gained or lost in the AI visibility view', async () => {
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
    // trailhub's 16 and fitlab's 4, two of them trailhub's too (the same task, posted once).
    expect(estimate.totals.tasks).toBe(18);
    // From the first page without the async AI Overview to 5 pages with it, per task.
    expect(estimate.totals.costMinUsd).toBeCloseTo(18 * 0.0006, 9);
    expect(estimate.totals.costUsd).toBeCloseTo(18 * 0.003, 9);

    const first = await run('2026-11-20');
    expect(first.exitCode).toBe(0);
    clock.advance(DAY_MS);
    const second = await run('2026-11-21');
    expect(second.exitCode).toBe(0);

    // The sandbox charged plan's maximum at posting; what it billed in the end is what the ledger recorded.
    const postings = sandbox.controls.postings();
    expect(postings).toHaveLength(36);
    for (const p of postings) expect(p.cost).toBe(taskPrice(endpoint(p.endpointId), p.data, runConfig.prices));
    const db = second.publishedPath;
    const [ledger] = await queryFile(db, `SELECT round(sum(cost) * 1e6)::BIGINT AS micros, count(*) FILTER (WHERE cost < price)::INT AS refunded, count(*)::INT AS n FROM _tasks`);
    expect(ledger.n).toBe(36);
    expect(Number(ledger.micros)).toBe(Math.round(sandbox.controls.billed() * 1e6));
    expect(sandbox.controls.billed()).toBeLessThan(2 * estimate.totals.costUsd);
    expect(ledger.refunded).toBeGreaterThan(0);
    // Crawl control stopped at the page where both clients were found (target_search_mode: all): no page past it was crawled.
    const stops = await queryFile(db, `SELECT r.pages_count, min(i.page) FILTER (WHERE i.item_type = 'organic' AND (i.domain = 'trailhub.com' OR i.domain LIKE '%.trailhub.com')) AS hit,
        min(i.page) FILTER (WHERE i.item_type = 'organic' AND i.domain = 'fitlab.io') AS hit2
      FROM serp_results r JOIN serp_results__items i ON i._parent_id = r._id GROUP BY r._id, r.pages_count`);
    expect(stops).toHaveLength(36);
    for (const st of stops) if (st.hit !== null && st.hit2 !== null) expect(Number(st.pages_count)).toBe(Math.max(Number(st.hit), Number(st.hit2)));
    expect(stops.some((st) => Number(st.pages_count) < 5)).toBe(true);

    // Tracked ranks: a row per tracked domain, series and day, ranked or not (trailhub's 16 series, fitlab's 4).
    const tracked = await queryFile(db, `SELECT * FROM v_serp_tracked_ranks ORDER BY keyword, location_code, device, date`);
    expect(tracked).toHaveLength(40);
    expect(new Set(tracked.map((r) => `${r.target}|${r.tracked_domain}|${r.registrable_domain}`))).toEqual(new Set(['trailhub|trailhub.com|trailhub.com', 'fitlab|fitlab.io|fitlab.io']));
    for (const r of tracked) {
      if (r.position === null) expect(r.status).toBe(`not in the top ${r.organic_results}`);
      else expect(r.status).toBe('ranked');
    }
    expect(new Set(tracked.map((r) => isoDay(r.date)))).toEqual(new Set(['2026-11-20', '2026-11-21']));

    // AI visibility: whether an overview showed and cited the client, each day; the citations it made.
    const vis = await queryFile(db, `SELECT * FROM v_serp_ai_visibility ORDER BY keyword, location_code, device, date`);
    expect(vis).toHaveLength(40);
    const citations = await queryFile(db, `SELECT keyword, location_code, device, date, domain, citation_position FROM v_serp_ai_citations`);
    for (const v of vis) {
      const mine = citations.filter((c) => c.keyword === v.keyword && c.location_code === v.location_code && c.device === v.device && isoDay(c.date) === isoDay(v.date)
        && (c.domain === v.tracked_domain || String(c.domain).endsWith(`.${v.tracked_domain}`)));
      expect(v.cited, `${v.keyword} ${v.device} ${isoDay(v.date)}`).toBe(mine.length > 0);
      if (v.cited) expect(Number(v.citation_position)).toBe(Math.min(...mine.map((c) => Number(c.citation_position))));
      if (!v.ai_overview_shown) expect(v.cited).toBe(false);
    }
    const changes = vis.filter((v) => isoDay(v.date) === '2026-11-21').map((v) => v.citation_change);
    expect(changes.some((c) => c === 'gained' || c === 'lost'), changes.join(',')).toBe(true);
    expect(vis.some((v) => v.ai_overview_shown) && vis.some((v) => !v.ai_overview_shown)).toBe(true);

    // Features per day: the AI Overview among them, on part of the pages.
    const daily = await queryFile(db, `SELECT item_type, date, sum(pages_with_feature)::INT AS shown, sum(pages)::INT AS pages FROM v_serp_features_daily GROUP BY item_type, date`);
    const ai = daily.filter((d) => d.item_type === 'ai_overview');
    expect(ai.length).toBeGreaterThan(0);
    for (const d of ai) expect(Number(d.shown)).toBeLessThanOrEqual(Number(d.pages));
    expect(new Set(daily.map((d) => d.item_type)).size).toBeGreaterThan(6);

    // Share of voice: shares of a day add up to 100 and the client is named as a target.
    const sov = await queryFile(db, `SELECT date, device, location_code, registrable_domain, targets, share_pct FROM v_serp_share_of_voice`);
    const groups = new Map<string, number>();
    for (const r of sov) groups.set(`${isoDay(r.date)}|${r.device}|${r.location_code}`, (groups.get(`${isoDay(r.date)}|${r.device}|${r.location_code}`) ?? 0) + Number(r.share_pct));
    for (const total of groups.values()) expect(total).toBeCloseTo(100, 0);
    expect(sov.filter((r) => r.registrable_domain === 'trailhub.com').every((r) => r.targets === 'trailhub')).toBe(true);

    // Movement still agrees with the rank history.
    const moves = await queryFile(db, `SELECT movement FROM v_serp_domain_movement WHERE date = (SELECT max(date) FROM v_serp_domain_movement)`);
    expect(moves.some((m) => m.movement === 'up') && moves.some((m) => m.movement === 'down')).toBe(true);
  });
});
