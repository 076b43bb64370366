/**
 * The live rate by default (issue 30): the configured limit is the live service's 10,000 calls a minute, and the
 * account's own limit, when user_data states one, paces the run instead (and the log says so).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { FakeClock, RateLimiter } from '../../src/queue/index.js';
import { runJob } from '../../src/run/job.js';
import { ROOT, collectStream, pipelineFile, startProject, type TestProject } from '../helpers/project.js';

describe('the account rate limit', () => {
  it('defaults to the live service\'s 10,000 calls a minute', () => {
    const c = loadConfig({ root: ROOT, env: {} });
    expect(c.rate_limit).toMatchObject({ calls: 10_000, window_ms: 60_000 });
  });

  it('useAccountLimit paces at the account\'s number before the first call, and is refused after it', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 100, windowMs: 1000, concurrency: 8, clock });
    expect(limiter.useAccountLimit(3)).toBe(true);
    expect(limiter.calls).toBe(3);
    const starts: number[] = [];
    let done = 0;
    for (let i = 0; i < 6; i++) void limiter.schedule('a', async () => { starts.push(clock.now()); }).then(() => { done++; });
    expect(await clock.runUntil(() => done === 6)).toBe(true);
    // Three in the first window, the next three only once it has passed.
    expect(starts.filter((t) => t < starts[0] + 1000)).toHaveLength(3);
    expect(limiter.stats().maxInWindow).toBe(3);
    expect(limiter.useAccountLimit(50)).toBe(false);
    expect(limiter.calls).toBe(3);
  });

  let p: TestProject | undefined;
  afterEach(async () => { await p?.close(); p = undefined; });

  it('a run uses the limit the account answer states, and logs it', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2, rate_limit_calls: 777 } });
    const log = collectStream();
    const file = pipelineFile('name: rate\nbudget_usd: 10\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [a.example.com]\n');
    const r = await runJob({ root: ROOT, pipelineFile: file, runDate: '2026-03-01', env: p.env, configOverrides: p.overrides, progress: false, out: collectStream(), logDestination: log, stderrLog: false });
    expect(r.exitCode).toBe(0);
    const line = log.text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; calls?: number; configured?: number }).find((l) => l.msg.startsWith('rate limit: the account'));
    expect(line).toMatchObject({ calls: 777, configured: 10_000 });
  });
});
