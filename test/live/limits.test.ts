/** docs/api-live.md `## Limits and account`: tasks_ready's own limit, per-endpoint back-off, rate-limit headers. */
import { describe, expect, it } from 'vitest';
import { FakeClock, RateLimiter } from '../../src/queue/index.js';
import { ENDPOINTS } from '../../src/api/catalog.js';
import { TASKS_READY_LIMITS } from '../../src/catalog/endpoint.js';
import { ApiClient, rateLimitHeadersOf } from '../../src/api/client.js';
import { credentialsFor } from '../../src/config/index.js';
import { start, client, pathOf } from '../sandbox/helpers.js';
import { systemClock } from '../../src/sandbox/index.js';

/** Largest number of times inside any window [t, t + windowMs]. */
function maxInWindow(times: number[], windowMs: number): number {
  const s = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < s.length; hi++) {
    while (s[hi] - s[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

async function drive(limiter: RateLimiter, clock: FakeClock, plan: Array<[string, number]>) {
  const starts: Record<string, number[]> = {};
  let done = 0;
  let total = 0;
  for (const [endpoint, n] of plan) {
    total += n;
    for (let i = 0; i < n; i++) void limiter.schedule(endpoint, async () => { (starts[endpoint] ??= []).push(clock.now()); }).then(() => { done++; });
  }
  await clock.runUntil(() => done === total);
  return starts;
}

describe('tasks_ready and per-endpoint limits', () => {
  it('[limits.tasks_ready] every family\'s tasks_ready is declared at 20 calls a minute and 1000 ids per call, and the limiter paces it so', async () => {
    const ready = ENDPOINTS.filter((e) => e.kind === 'tasks_ready');
    expect(ready.length).toBeGreaterThanOrEqual(4);
    for (const e of ready) expect([e.id, e.perMinute, e.maxResultsPerCall]).toEqual([e.id, 20, 1000]);
    expect(TASKS_READY_LIMITS).toEqual({ perMinute: 20, maxResultsPerCall: 1000 });
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 2000, windowMs: 60_000, concurrency: 4, clock });
    const starts = await drive(limiter, clock, [['merchant.google.products.tasks_ready', 60]]);
    expect(maxInWindow(starts['merchant.google.products.tasks_ready'], 60_000)).toBeLessThanOrEqual(20);
    expect(limiter.stats().byEndpoint['merchant.google.products.tasks_ready'].limit).toBe(20);
  });

  it('[limits.per_endpoint] a rate-limit answer on one endpoint slows that endpoint, not the account\'s other calls', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 100, windowMs: 1000, concurrency: 4, clock });
    await drive(limiter, clock, [['x', 5], ['y', 5]]);
    const at = clock.now();
    limiter.slowDown(500, 'x');
    const starts = await drive(limiter, clock, [['x', 5], ['y', 5]]);
    expect(Math.min(...starts.y)).toBeLessThan(at + 100);
    expect(Math.max(...starts.y)).toBeLessThan(at + 100);
    expect(Math.min(...starts.x)).toBeGreaterThanOrEqual(at + 500);
    const s = limiter.stats();
    expect([s.slowDowns, s.byEndpoint.x.slowDowns, s.byEndpoint.y.slowDowns]).toEqual([1, 1, 0]);
    // Without an endpoint the whole account pauses, as before.
    limiter.slowDown(300);
    const t = clock.now();
    const later = await drive(limiter, clock, [['y', 2]]);
    expect(Math.min(...later.y)).toBeGreaterThanOrEqual(t + 300);
  });

  it('[limits.headers] X-RateLimit-Limit below the account limit becomes the endpoint\'s limit; X-RateLimit-Remaining 0 holds it back', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 100, windowMs: 1000, concurrency: 4, clock });
    limiter.observe('z', { limit: 5, remaining: 3 });
    const starts = await drive(limiter, clock, [['z', 15], ['w', 15]]);
    expect(maxInWindow(starts.z, 1000)).toBeLessThanOrEqual(5);
    expect(maxInWindow(starts.w, 1000)).toBeGreaterThan(5);
    const at = clock.now();
    limiter.observe('z', { limit: 5, remaining: 0 });
    const held = await drive(limiter, clock, [['z', 1], ['w', 1]]);
    expect(held.z[0]).toBeGreaterThanOrEqual(at + 100);
    expect(held.w[0]).toBeLessThan(at + 100);
    const h = new Headers({ 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '7' });
    expect(rateLimitHeadersOf(h)).toEqual({ limit: 20, remaining: 7 });
    expect(rateLimitHeadersOf(new Headers({ 'X-RateLimit-Limit': 'lots' }))).toEqual({ limit: undefined, remaining: undefined });
  });

  it('[limits.headers_sent] the sandbox sends X-RateLimit-Limit and X-RateLimit-Remaining: tasks_ready its own 20, other endpoints the account\'s', async () => {
    const s = await start({ completion_delay_ms: 0, rate_limit_calls: 500, rate_limit_window_ms: 60_000 });
    try {
      const api = client(s.sandbox);
      const a = await api.get(pathOf('merchant.google.products.tasks_ready'));
      const b = await api.get(pathOf('merchant.google.products.tasks_ready'));
      expect([a.headers['x-ratelimit-limit'], a.headers['x-ratelimit-remaining'], b.headers['x-ratelimit-remaining']]).toEqual(['20', '19', '18']);
      const c = await api.get(pathOf('serp.endpoints'));
      expect([c.headers['x-ratelimit-limit'], c.headers['x-ratelimit-remaining']]).toEqual(['500', '497']);
    } finally {
      await s.sandbox.close();
    }
  });
});

describe('a night collected by tasks_ready with the live limits on', () => {
  it('[limits.night] 3,000 tasks: no rate-limit answer, tasks_ready at or under 20 per window, every task collected once', async () => {
    const W = 1500; // the minute, scaled: both sides count the same window
    const s = await start({ completion_delay_ms: 0, rate_limit_calls: 2000, rate_limit_window_ms: W, merchant_items: 4 }, { clock: systemClock() });
    try {
      const limiter = new RateLimiter({ calls: 2000, windowMs: W, concurrency: 16 });
      const c = new ApiClient({ baseUrl: s.sandbox.url, credentials: credentialsFor(s.config), engines: s.config.paths, limiter, timeoutMs: 10_000, retries: 3, retryBaseMs: 20, tasksPerPost: 100 });
      const tasks = Array.from({ length: 3000 }, (_, i) => ({ keyword: `night ${i}`, location_code: 2840, language_code: 'en', tag: `n${i}` }));
      const posted = await c.postTasks('merchant.google.products.task_post', tasks);
      expect(posted.every((o) => o.ok)).toBe(true);
      const collected = new Set<string>();
      const asked = new Set<string>();
      const gets: Promise<void>[] = [];
      // Three pollers ask tasks_ready as fast as the limiter lets them while the gets run.
      const poll = async () => {
        while (collected.size < 3000) {
          for (const item of await c.tasksReady('merchant.google.products.tasks_ready')) {
            if (asked.has(item.id)) continue;
            asked.add(item.id);
            gets.push(c.taskGet('merchant.google.products.task_get.advanced', item.id).then((o) => { if (o.ok) collected.add(item.id); }));
          }
          await Promise.all(gets.splice(0));
        }
      };
      await Promise.all([poll(), poll(), poll()]);
      expect(collected.size).toBe(3000);
      expect(s.sandbox.controls.rateLimitAnswers()).toBe(0);
      const readyCalls = s.sandbox.controls.calls().filter((x) => x.endpointId === 'merchant.google.products.tasks_ready');
      expect(readyCalls.length).toBeGreaterThan(3);
      expect(maxInWindow(readyCalls.map((x) => x.at), W)).toBeLessThanOrEqual(20);
      expect(limiter.stats().byEndpoint['merchant.google.products.tasks_ready'].maxInWindow).toBeLessThanOrEqual(20);
      const gets2 = s.sandbox.controls.calls().filter((x) => x.endpointId === 'merchant.google.products.task_get.advanced');
      expect(gets2).toHaveLength(3000);
    } finally {
      await s.sandbox.close();
    }
  });
});

describe('the three-day window of tasks_ready', () => {
  it('[limits.ready_window] a task completed more than three days ago is no longer listed, and task_get still answers it', async () => {
    const s = await start({ completion_delay_ms: 1000, rate_limit_calls: 100000 });
    try {
      const api = client(s.sandbox);
      const ready = async () => (await api.get(pathOf('keywords_for_site.tasks_ready'))).json.tasks[0].result.map((r: any) => r.id);
      const [id] = (await api.post(pathOf('keywords_for_site.task_post'), [{ target: 'a.example.com', location_code: 2840 }])).json.tasks.map((t: any) => t.id);
      const DAY = 86_400_000;
      s.clock.advance(1000 + 3 * DAY);
      expect(await ready()).toEqual([id]);
      s.clock.advance(1);
      expect(await ready()).toEqual([]);
      const got = await api.get(pathOf('keywords_for_site.task_get', id));
      expect(got.json.tasks[0].status_code).toBe(20000);
    } finally {
      await s.sandbox.close();
    }
  });
});
