/**
 * Issue 32, point 7 (budgets): a budget stop starved the last steps (client A 34 of 34 tasks, B 13 of 34, C 0 of
 * 32). A step's own `budget_usd` stops that step at it, leaving the pipeline's budget to the others. Each task
 * here costs $0.075 (config/prices.yaml): A's 10 tasks alone would take $0.45 of the $0.50.
 */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile } from '../helpers/project.js';

const yaml = (stepBudget: string) => `name: clients
budget_usd: 0.5
steps:
  - name: client_a
    endpoint: keywords_for_keywords.task_post
${stepBudget}    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[a1], [a2], [a3], [a4], [a5], [a6], [a7], [a8], [a9], [a10]]
  - name: client_b
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[b1], [b2], [b3]]
`;
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

async function loadedPerStep(file: string): Promise<{ code: number | null; stdout: string; steps: Record<string, number> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-budget-'));
  dirs.push(dir);
  const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '', SEO_ETL_LOG_LEVEL: 'warn',
    SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200', SEO_ETL_API_TASKS_PER_POST: '2' };
  const r = await runCli(['--sandbox', 'run', file, '--run-date', '2026-11-20', '--no-progress'], { env, timeoutMs: 60_000 });
  const status = await runCli(['--sandbox', 'status', '--json'], { env, timeoutMs: 30_000 });
  const run = JSON.parse(status.stdout).runs[0];
  const steps = Object.fromEntries((run.summary?.steps ?? run.steps).map((s: { step: string; byState: { loaded: number } }) => [s.step, s.byState.loaded]));
  return { code: r.code, stdout: r.stdout, steps };
}

test('without step budgets the first step takes the budget; with its own, the next step gets its share', async () => {
  const starved = await loadedPerStep(pipelineFile(yaml('')));
  expect(starved.code).toBe(4);
  expect(starved.steps).toEqual({ client_a: 6, client_b: 0 });

  const file = pipelineFile(yaml('    budget_usd: 0.225\n'));
  const shared = await loadedPerStep(file);
  expect(shared.code).toBe(4);
  expect(shared.steps).toEqual({ client_a: 3, client_b: 3 });

  const plan = await runCli(['--sandbox', 'plan', file], { env: { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox' }, timeoutMs: 30_000 });
  expect(plan.stdout).toMatch(/Step client_a: its own budget \$0\.225 is less than its \$0\.75: it stops posting at its budget/);
});

test('a step budget that is not a number is bad input at its line', async () => {
  const r = await runCli(['--sandbox', 'plan', pipelineFile(yaml('    budget_usd: lots\n'))], { env: { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox' }, timeoutMs: 30_000 });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/p\.yaml:6:17: steps\[0\]\.budget_usd: must be a number/);
});
