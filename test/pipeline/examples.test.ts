import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { endpoint } from '../../src/api/catalog.js';
import { ensureSchema } from '../../src/load/index.js';
import { estimatePlan, expandStep, loadPipeline, planPipeline, runIdFor } from '../../src/pipeline/index.js';
import { repoRoot, testConfig } from './helpers.js';
import { TablesInUse } from '../../src/load/tables-in-use.js';

const examplesDir = path.join(repoRoot, 'pipelines/examples');
const files = [path.join(repoRoot, 'pipelines/nightly.yaml'), ...readdirSync(examplesDir).filter((f) => f.endsWith('.yaml')).map((f) => path.join(examplesDir, f))];
const FAMILIES = ['keywords_data', 'serp', 'merchant', 'content_generation', 'on_page', 'domain_analytics', 'dataforseo_labs', 'backlinks', 'ai_optimization', 'business_data'];
/** The families nightly runs (the others have their example pipelines only). */
const NIGHTLY = ['keywords_data', 'serp', 'merchant', 'content_generation', 'on_page', 'domain_analytics', 'dataforseo_labs', 'backlinks'];

describe('shipped pipelines', () => {
  test.each(files.map((f) => [path.relative(repoRoot, f), f]))('%s loads, plans within its budget', async (_name, file) => {
    const config = testConfig();
    const p = loadPipeline(file, config);
    const e = estimatePlan(await planPipeline(p, { runId: runIdFor(p.name, '2024-05-01') }), config);
    expect(e.totals.tasks).toBeGreaterThan(0);
    expect(e.totals.withinBudget).toBe(true);
  });

  test('there is an example per family, and nightly touches every family with few tasks', async () => {
    const config = testConfig();
    const familiesOf = (file: string) => new Set(loadPipeline(file, config).steps.map((s) => endpoint(s.endpointId).api));
    const examples = files.slice(1);
    for (const family of FAMILIES) expect(examples.some((f) => familiesOf(f).has(family)), family).toBe(true);
    const nightly = loadPipeline(files[0], config);
    expect([...familiesOf(files[0])].sort()).toEqual([...NIGHTLY].sort());
    const kinds = new Set(nightly.steps.map((s) => s.collect));
    expect([...kinds].sort()).toEqual(['list', 'live', 'pingback', 'postback', 'tasks_ready']);
    const e = estimatePlan(await planPipeline(nightly, { runId: runIdFor('nightly', '2024-05-01') }), config);
    expect(e.totals.tasks).toBeLessThan(35);
  });

  test("nightly's SQL step reads the warehouse table the domains step loads", async () => {
    const config = testConfig();
    const nightly = loadPipeline(files[0], config);
    const step = nightly.steps.find((s) => s.deferred)!;
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await ensureSchema(conn, new TablesInUse());
      const run = runIdFor('nightly', '2024-05-01');
      // `_parent_id` and `_id` follow from `_task_id`, `_parent_key` and `_list_idx` (generated columns).
      await conn.run(`INSERT INTO domain_technologies__items (_parent_key, _list_idx, _task_id, _run_id, domain, domain_rank) VALUES
        ('0', 0, 't', '${run}', 'low.example', 10), ('0', 1, 't', '${run}', 'top.example', 900), ('0', 2, 't', '${run}', 'mid.example', 500),
        ('0', 3, 't', 'nightly-2024-04-30', 'yesterday.example', 999)`);
      const query = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
      const tasks = await expandStep(nightly, step.index, { runId: run, query });
      expect(tasks.map((t) => t.params.target)).toEqual(['top.example', 'mid.example']);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
