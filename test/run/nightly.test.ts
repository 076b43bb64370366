import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { loadPipeline, planPipeline, estimatePlan } from '../../src/pipeline/index.js';
import { loadConfig } from '../../src/config/index.js';
import { ALWAYS_IN_USE, TABLE_BY_NAME, inUseOnFirstRow } from '../../src/normalize/catalog.js';
import { NIGHTLY, ROOT, collectStream, queryFile, startProject, type TestProject } from '../helpers/project.js';

let p: TestProject;
let first: RunJobResult;
let out: ReturnType<typeof collectStream>;

/** Tables every warehouse holds from the start: the run creates those empty. */
const inUseBefore = new Set(ALWAYS_IN_USE.map((t) => t.name));

beforeAll(async () => {
  p = await startProject();
  out = collectStream();
  first = await runJob({ root: ROOT, pipelineFile: NIGHTLY, env: p.env, configOverrides: p.overrides, progress: false, out, logDestination: collectStream() });
});
afterAll(async () => p?.close());

describe('the nightly run against the sandbox', () => {
  test('completes with every task loaded and exit code 0', () => {
    expect(first.exitCode).toBe(0);
    expect(first.status).toBe('completed');
    expect(first.summary!.byState.loaded).toBe(first.summary!.tasks);
    expect(first.summary!.tasks).toBeGreaterThanOrEqual(15);
  });

  test('every family lands in its tables of the published warehouse', async () => {
    const tables = ['keyword_data', 'keyword_data__monthly_searches', 'serp_endpoints', 'events_locations', 'events_serp', 'events_serp__items',
      'merchant_shopping', 'merchant_shopping__items', 'paraphrases', 'onpage_resources__items', 'domain_technologies__items',
      'domain_technologies__items__technologies'];
    for (const t of tables) {
      const [{ n }] = await queryFile(first.publishedPath, `SELECT count(*)::INT AS n FROM ${t}`);
      expect(n, t).toBeGreaterThan(0);
    }
  });

  test('an item type\'s tables are created with its rows: no empty one but those already in use', async () => {
    const names = (await queryFile(first.publishedPath, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name));
    const byType = names.filter((n) => { const t = TABLE_BY_NAME.get(n); return t !== undefined && inUseOnFirstRow(t); });
    expect(byType.filter((n) => n.startsWith('labs_ranked_keywords__items__')).length).toBeGreaterThan(0);
    const empty: string[] = [];
    for (const name of byType) {
      const [{ n }] = await queryFile(first.publishedPath, `SELECT count(*)::INT AS n FROM "${name}"`);
      if (n === 0 && !inUseBefore.has(name)) empty.push(name);
    }
    expect(empty).toEqual([]);
  });

  test('pingback and postback steps were collected through the receiver', async () => {
    const rows = await queryFile(first.publishedPath, `SELECT step, collect, state FROM _tasks WHERE collect IN ('pingback', 'postback')`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.state === 'loaded')).toBe(true);
    expect(first.callbacks.received).toBeGreaterThanOrEqual(rows.length);
  });

  test('the plan estimate equals what the sandbox billed', async () => {
    const config = loadConfig({ root: ROOT, overrides: p.overrides, env: p.env });
    const pipeline = loadPipeline(NIGHTLY, config);
    const plan = await planPipeline(pipeline, {
      runId: first.runId,
      query: async (sql) => queryFile(first.publishedPath, sql),
    });
    const estimate = estimatePlan(plan, config);
    // Each step's bill, from the sandbox's charges (refunds are negative ones): exactly its estimate, or within
    // its range where the price depends on the answer (rows returned, an AI Overview refunded when absent).
    const billed = p.sandbox.controls.billed();
    const charges = p.sandbox.controls.charges();
    const billedOf = (endpointId: string) => charges.filter((c) => c.endpointId === endpointId).reduce((a, c) => a + c.cost, 0);
    const ranged = estimate.steps.filter((st) => st.costMinUsd !== undefined);
    expect(ranged.map((st) => st.step).sort()).toEqual(['backlink_summary', 'competitor_keywords', 'competitors', 'ranks', 'referring_domains']);
    for (const st of estimate.steps) {
      if (estimate.steps.filter((o) => o.endpointId === st.endpointId).length > 1) continue; // shared endpoint: summed below
      const got = billedOf(st.endpointId);
      if (st.costMinUsd === undefined) expect(got, st.step).toBeCloseTo(st.costUsd, 6);
      else {
        expect(got, st.step).toBeGreaterThanOrEqual(st.costMinUsd - 1e-9);
        expect(got, st.step).toBeLessThanOrEqual(st.costUsd + 1e-9);
      }
    }
    expect(estimate.totals.costMinUsd!).toBeLessThanOrEqual(billed + 1e-9);
    expect(estimate.totals.costUsd).toBeGreaterThanOrEqual(billed - 1e-9);
    expect(first.summary!.costUsd).toBeCloseTo(billed, 6);
  });

  test('the summary names tasks, cost, rows and the published file', () => {
    const text = out.text();
    expect(text).toMatch(/run nightly-\d{4}-\d{2}-\d{2} completed/);
    expect(text).toContain(`cost: $${first.summary!.costUsd.toFixed(4)}`);
    expect(text).toContain('keyword_data__monthly_searches');
    expect(text).toContain(first.publishedPath);
  });

  test('Parquet partitions and the raw archive are written', () => {
    const parquet = path.join(p.dataDir, 'parquet', 'keyword_data');
    expect(existsSync(parquet)).toBe(true);
    const part = readdirSync(parquet)[0];
    expect(part).toMatch(/^snapshot_date=\d{4}-\d{2}-\d{2}$/);
    expect(readdirSync(path.join(parquet, part)).some((f) => f.endsWith('.parquet'))).toBe(true);
    const day = readdirSync(path.join(p.dataDir, 'raw'))[0];
    expect(readdirSync(path.join(p.dataDir, 'raw', day)).some((f) => f.endsWith('.ndjson.gz'))).toBe(true);
  });

  test('running the same pipeline and day again posts nothing twice and changes no rows', async () => {
    const before = p.sandbox.controls.postings().length;
    const counts = async () => queryFile(first.publishedPath, `SELECT (SELECT count(*) FROM keyword_data)::INT k, (SELECT count(*) FROM merchant_shopping__items)::INT m, (SELECT count(*) FROM events_serp__items)::INT e`);
    const rowsBefore = await counts();
    const again = await runJob({ root: ROOT, pipelineFile: NIGHTLY, runDate: first.runId.slice(-10), env: p.env, configOverrides: p.overrides, progress: false, out: collectStream(), logDestination: collectStream() });
    expect(again.resumed).toBe(true);
    expect(again.exitCode).toBe(0);
    expect(p.sandbox.controls.postings().length).toBe(before);
    expect(await counts()).toEqual(rowsBefore);
  });
});
