/** `seo-etl plan` tells a scheduler when the plan is over its budget: exit 4, as a run that would stop posting. */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pipeline = (budget: number) => {
  const file = path.join(dir, `p-${budget}.yaml`);
  writeFileSync(file, `name: p\nbudget_usd: ${budget}\nsteps:\n  - name: ev\n    endpoint: serp.events.task_post\n    for_each:\n      keyword: [a, b, c]\n    params:\n      location_code: 2840\n`);
  return file;
};
const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox' };

test.each([
  [0.0001, 4, /OVER BUDGET/],
  [10, 0, /within budget/],
])('budget %s: exit %s', async (budget, code, says) => {
  const r = await runCli(['plan', pipeline(budget)], { env, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toMatch(says);
});
