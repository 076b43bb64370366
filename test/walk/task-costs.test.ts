/**
 * Issue 32, point 3: `tasks.cost` is the task_get answer's own cost (0), which an analyst summed as the tasks'
 * cost. The billed cost (from the POST, in the ledger) is put beside each collected task in v_task_costs, under
 * names and descriptions that cannot be confused. Run from the CLI against the embedded sandbox.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile, queryFile } from '../helpers/project.js';

const PIPELINE = pipelineFile(`name: costs
budget_usd: 5
steps:
  - name: ranks
    endpoint: serp.google.organic.task_post
    params: { location_code: 2840, language_code: en, depth: 10 }
    for_each:
      keyword: [camping tent, sleeping bag, hiking boots]
    collect: tasks_ready
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[camping tent], [trail shoes]]
    collect: tasks_ready
`);

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-costs-'));
  env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '',
    SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200', SEO_ETL_LOG_LEVEL: 'warn' };
  const r = await runCli(['run', PIPELINE, '--run-date', '2026-11-20', '--no-progress', '--sandbox'], { env, timeoutMs: 90_000 });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('every collected task has its billed cost beside it, and the sum is what the run spent', async () => {
  const status = await runCli(['--sandbox', 'status', '--json'], { env, timeoutMs: 30_000 });
  expect(status.code, status.stderr).toBe(0);
  const spent = JSON.parse(status.stdout).runs?.[0]?.costUsd ?? JSON.parse(status.stdout).costUsd;
  const file = path.join(dir, 'warehouse.duckdb');
  const rows = await queryFile(file, `SELECT count(*)::INTEGER AS n, count(billed_cost_usd)::INTEGER AS billed, sum(billed_cost_usd) AS billed_usd, sum(answer_cost_usd) AS answer_usd,
    sum(CASE WHEN endpoint_id LIKE 'serp.google.organic.task_get%' THEN billed_cost_usd END) AS serp_usd,
    sum(CASE WHEN endpoint_id NOT LIKE 'serp.%' THEN answer_cost_usd END) AS keyword_answer_usd,
    sum(CASE WHEN endpoint_id NOT LIKE 'serp.%' THEN billed_cost_usd END) AS keyword_billed_usd FROM v_task_costs`);
  const [r] = rows;
  expect(r.n).toBe(5);
  expect(r.billed).toBe(5);
  expect(Number(r.serp_usd)).toBeGreaterThan(0);
  // The keyword tasks' answers report the free GET's 0 beside a billed price (a SERP answer reports its final cost).
  expect(Number(r.keyword_answer_usd)).toBe(0);
  expect(Number(r.keyword_billed_usd)).toBeGreaterThan(0);
  expect(Number(r.billed_usd)).toBeCloseTo(Number(spent), 6);
  const [c] = await queryFile(file, `SELECT comment FROM duckdb_columns() WHERE table_name = 'tasks' AND column_name = 'cost'`);
  expect(String(c.comment)).toMatch(/NOT what the task was billed/);
  expect(String(c.comment)).not.toMatch(/^Cost of the task, USD\.$/);
});
