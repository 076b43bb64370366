/**
 * Issue 32, point 9: users budget by the month. `plan` prices a run, a month and a year at the pipeline's
 * `schedule:` (or --schedule), and its duration includes the service's queue time for task steps, not only the
 * rate limit's. Run from the CLI against an address the tool counts as the live service (nothing answers there:
 * plan spends nothing and says the account was not checked).
 */
import { expect, test } from 'vitest';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile } from '../helpers/project.js';

const yaml = (schedule: string) => `name: monthly
budget_usd: 5
${schedule}steps:
  - name: volume
    endpoint: keywords_data.google_ads.search_volume.task_post
    params: { language_code: en, location_code: 2840 }
    for_each:
      keywords: [[camping tent], [sleeping bag], [hiking boots], [trail shoes]]
`;
// Not a sandbox address (src/config/service.ts), refused at once: the live service's settings, no money spent.
const env = { ...process.env, SEO_ETL_API_BASE_URL: 'http://[::ffff:127.0.0.1]:1', SEO_ETL_LOGIN: 'l', SEO_ETL_PASSWORD: 'p', SEO_ETL_API_RETRIES: '0' };

test('a daily pipeline is priced per run, month and year; the duration includes the queue', async () => {
  const r = await runCli(['plan', pipelineFile(yaml('schedule: daily\n'))], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const perRun = Number(/Estimated cost \$([\d.]+)/.exec(r.stdout)![1]);
  const m = /At the schedule \(daily, 30\.44 runs a month\): \$([\d.]+) a run, \$([\d.]+) a month, \$([\d.]+) a year/.exec(r.stdout);
  expect(m, r.stdout).not.toBeNull();
  expect(Number(m![1])).toBe(perRun);
  expect(Number(m![2])).toBeCloseTo(perRun * 30.4375, 3);
  expect(Number(m![3])).toBeCloseTo(perRun * 365.25, 2);
  expect(r.stdout).toMatch(/Expected duration: 5 min [\d.]+ s \(the rate limits' [\d.]+ s \+ 5 min in the service's queue for the task steps, collect\.expected_queue_ms\)/);
});

test('--schedule prices a pipeline without one; a schedule that is not one is bad input at its line', async () => {
  const r = await runCli(['plan', pipelineFile(yaml('')), '--schedule', 'weekly', '--json'], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const plan = JSON.parse(r.stdout);
  expect(plan.schedule.every).toBe('weekly');
  expect(plan.schedule.perMonthUsd).toBeCloseTo(plan.totals.costUsd * (365.25 / 7 / 12), 3);
  expect(plan.totals.expectedSeconds).toBeCloseTo(plan.totals.shortestSeconds + 300, 3);

  const bad = await runCli(['plan', pipelineFile(yaml('schedule: nightly\n'))], { env, timeoutMs: 60_000 });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/p\.yaml:3:11: schedule: must be one of hourly, daily, weekly, monthly \(got "nightly"\)/);
});
