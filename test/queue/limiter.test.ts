import { describe, expect, it } from 'vitest';
import { FakeClock, RateLimiter, SlidingPacer } from '../../src/queue/index.js';

/** Largest number of starts inside any window [t, t + windowMs] (closed: the strictest reading). */
function maxInClosedWindow(starts: number[], windowMs: number): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < s.length; hi++) {
    while (s[hi] - s[lo] > windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** A deterministic pseudo-random sequence, so a failing case can be replayed. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

async function runLoad(opts: { calls: number; windowMs: number; concurrency: number; total: number; durations: () => number; endpoints?: string[]; subLimits?: Record<string, number>; subWindowMs?: number }) {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ calls: opts.calls, windowMs: opts.windowMs, concurrency: opts.concurrency, clock, subLimits: opts.subLimits, subWindowMs: opts.subWindowMs });
  const starts: Array<{ at: number; endpoint: string }> = [];
  const endpoints = opts.endpoints ?? ['a'];
  let done = 0;
  for (let i = 0; i < opts.total; i++) {
    const endpoint = endpoints[i % endpoints.length];
    const duration = opts.durations();
    void limiter.schedule(endpoint, async () => {
      starts.push({ at: clock.now(), endpoint });
      await clock.sleep(duration);
      return i;
    }).then(() => { done++; });
  }
  const finished = await clock.runUntil(() => done === opts.total);
  return { clock, limiter, starts, finished };
}

describe('RateLimiter on a fake clock', () => {
  it('never lets a window of the configured length hold more calls than the limit, whatever the call durations', async () => {
    const rand = lcg(42);
    // Durations from 0 to 3 spacings, with a few calls far longer than a window: rule 2 must wait for them.
    const { starts, finished, limiter } = await runLoad({
      calls: 50, windowMs: 1000, concurrency: 8, total: 600,
      durations: () => (rand() < 0.02 ? 1500 : Math.floor(rand() * 60)),
    });
    expect(finished).toBe(true);
    expect(starts).toHaveLength(600);
    expect(maxInClosedWindow(starts.map((s) => s.at), 1000)).toBeLessThanOrEqual(50);
    expect(limiter.stats().maxInWindow).toBeLessThanOrEqual(50);
    expect(limiter.stats().started).toBe(600);
    // Catching up after the long calls never packs starts closer than half the even share (20 ms here).
    const at = starts.map((s) => s.at).sort((a, b) => a - b);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(10);
  });

  it('catches up when timers fire late instead of losing that time from the allowance', async () => {
    // Every sleep overruns by 3 ms, as Node timers do under load: measured from actual starts, 10 ms spacing
    // would become 13 ms and a quarter of the allowance would be lost.
    const clock = new FakeClock();
    const lateClock = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms + 3) };
    const limiter = new RateLimiter({ calls: 100, windowMs: 1000, concurrency: 8, clock: lateClock });
    const starts: number[] = [];
    let done = 0;
    for (let i = 0; i < 1000; i++) void limiter.schedule('x', async () => { starts.push(clock.now()); await clock.sleep(2); }).then(() => { done++; });
    expect(await clock.runUntil(() => done === 1000)).toBe(true);
    expect(maxInClosedWindow(starts, 1000)).toBeLessThanOrEqual(100);
    const inTenWindows = starts.filter((t) => t < starts[0] + 10_000).length;
    expect(inTenWindows / 1000).toBeGreaterThanOrEqual(0.98);
    expect(limiter.stats().marginMs).toBe(3);
  });

  it('keeps the limit when calls take no time at all (the tightest case for a sliding window)', async () => {
    const { starts, finished } = await runLoad({ calls: 20, windowMs: 200, concurrency: 4, total: 300, durations: () => 0 });
    expect(finished).toBe(true);
    const at = starts.map((s) => s.at);
    expect(maxInClosedWindow(at, 200)).toBeLessThanOrEqual(20);
    // ...and uses it: over the run, close to the whole allowance (only the 1 ms tick per window is given up).
    const windows = (at[at.length - 1] - at[0]) / 200;
    expect(300 / windows).toBeGreaterThan(19);
  });

  it('repays a stalled event loop: windows holding the stall still get their whole allowance', async () => {
    // The process freezes for 250 ms (two overlapping stalls) while calls wait in line, and timers run 1 ms late.
    const clock = new FakeClock(0);
    const stalls = [5000, 5100];
    const stalled = {
      now: () => clock.now(),
      sleep: (ms: number) => {
        const now = clock.now();
        const hit = stalls.find((s) => now >= s && now < s + 150);
        return clock.sleep(ms + (hit === undefined ? 1 : hit + 150 - now));
      },
    };
    const limiter = new RateLimiter({ calls: 200, windowMs: 2000, concurrency: 16, clock: stalled });
    const starts: number[] = [];
    let done = 0;
    for (let i = 0; i < 2400; i++) void limiter.schedule('x', async () => { starts.push(clock.now()); await clock.sleep(3); }).then(() => { done++; });
    expect(await clock.runUntil(() => done === 2400)).toBe(true);
    expect(maxInClosedWindow(starts, 2000)).toBeLessThanOrEqual(200);
    const perWindow = Array.from({ length: 10 }, (_, w) => starts.filter((t) => t >= starts[0] + w * 2000 && t < starts[0] + (w + 1) * 2000).length);
    // Only the derived margin (p90 of 3 ms + 1 ms tick per window) is given up: 199 or 200 in every window.
    for (const n of perWindow) expect(n).toBeGreaterThanOrEqual(199);
    expect(limiter.stats().forgivenMs).toBe(0);
  });

  it('spreads calls evenly instead of spending the allowance at the top of the window', async () => {
    const { starts } = await runLoad({ calls: 100, windowMs: 1000, concurrency: 16, total: 400, durations: () => 3 });
    const at = starts.map((s) => s.at);
    // A tenth of the window never holds more than a tenth of the allowance (plus the one on its edge).
    expect(maxInClosedWindow(at, 100)).toBeLessThanOrEqual(11);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(10);
  });

  it('applies per-endpoint sub-limits on top of the account limit without starving other endpoints', async () => {
    const { starts, finished } = await runLoad({
      calls: 100, windowMs: 1000, concurrency: 4, total: 300, durations: () => 5,
      endpoints: ['serp.events.tasks_fixed', 'other', 'other'], subLimits: { 'serp.events.tasks_fixed': 5 }, subWindowMs: 1000,
    });
    expect(finished).toBe(true);
    const fixed = starts.filter((s) => s.endpoint === 'serp.events.tasks_fixed').map((s) => s.at);
    const other = starts.filter((s) => s.endpoint === 'other').map((s) => s.at);
    expect(fixed).toHaveLength(100);
    expect(maxInClosedWindow(fixed, 1000)).toBeLessThanOrEqual(5);
    expect(maxInClosedWindow(starts.map((s) => s.at), 1000)).toBeLessThanOrEqual(100);
    // The 200 unthrottled calls finish long before the throttled endpoint's 20 windows run out.
    expect(Math.max(...other)).toBeLessThan(Math.min(...fixed) + 5000);
  });

  it('takes the sub-limit from the catalog (tasks_fixed: 20 per minute)', async () => {
    const { starts, finished, limiter } = await runLoad({ calls: 2000, windowMs: 60_000, concurrency: 16, total: 45, durations: () => 100, endpoints: ['serp.events.tasks_fixed'] });
    expect(finished).toBe(true);
    expect(maxInClosedWindow(starts.map((s) => s.at), 60_000)).toBeLessThanOrEqual(20);
    expect(limiter.stats().byEndpoint['serp.events.tasks_fixed']).toMatchObject({ started: 45, limit: 20 });
    expect(limiter.stats().byEndpoint['serp.events.tasks_fixed'].maxInWindow).toBeLessThanOrEqual(20);
  });

  it('slowDown pauses every start for the given time and then resumes at a reduced, recovering rate', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 10, windowMs: 100, concurrency: 2, clock });
    const starts: number[] = [];
    let done = 0;
    const schedule = (n: number) => {
      for (let i = 0; i < n; i++) void limiter.schedule('x', async () => { starts.push(clock.now()); }).then(() => { done++; });
    };
    schedule(5);
    await clock.runUntil(() => done === 5);
    const pausedAt = clock.now();
    limiter.slowDown(500);
    schedule(5);
    await clock.runUntil(() => done === 10);
    const after = starts.slice(5);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(pausedAt + 500);
    // Halved rate: 20 ms between starts instead of 10 right after the pause.
    expect(after[1] - after[0]).toBeGreaterThanOrEqual(19);
    expect(limiter.stats().slowDowns).toBe(1);
    await clock.advance(10_000);
    expect(limiter.stats().penalty).toBe(1);
  });

  it('onIdle resolves only once every scheduled call has settled, failures included', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 5, windowMs: 100, concurrency: 2, clock });
    const results: string[] = [];
    const p1 = limiter.schedule('x', async () => { await clock.sleep(50); results.push('a'); });
    const p2 = limiter.schedule('x', async () => { throw new Error('boom'); });
    let idle = false;
    void limiter.onIdle().then(() => { idle = true; });
    const failure = p2.catch((err: Error) => err.message);
    await clock.drain();
    expect(idle).toBe(false);
    expect(await clock.runUntil(() => idle)).toBe(true);
    expect(await failure).toBe('boom');
    expect(results).toEqual(['a']);
    await p1;
    expect(limiter.stats()).toMatchObject({ started: 2, inFlight: 0, waiting: 0 });
  });

  it('keeps a bounded log under a limit far above the calls made, and still counts every window right', async () => {
    // A limit scaled out of the way (the bench) or a large account: rule 2 never binds, and the log must not keep
    // every start of the night. 20,000 calls of 2 ms, one started every millisecond, against a 1 s window.
    const clock = new FakeClock(0);
    const pacer = new SlidingPacer({ calls: 1_000_000_000, windowMs: 1000, clock });
    const logged = () => (pacer as unknown as { entries: unknown[] }).entries.length;
    let most = 0;
    for (let i = 0; i < 20_000; i++) {
      const slot = await pacer.reserve();
      slot.start(clock.now());
      const started = clock.now();
      await clock.advance(1);
      if (i >= 2) slot.end(started + 2);
      else slot.end(started + 5_000); // two long calls early on: still in flight for a while, then ended
      most = Math.max(most, logged());
    }
    expect(pacer.stats().started).toBe(20_000);
    expect(pacer.stats().maxInWindow).toBe(1000);
    expect(logged()).toBeLessThan(1000 + 2 * 1024 + 1);
    expect(most).toBeLessThan(1000 + 2 * 1024 + 1 + 5_000);
  });

  it('rejects a nonsensical configuration with the field named', () => {
    expect(() => new RateLimiter({ calls: 0, windowMs: 1000, concurrency: 1 })).toThrow(/calls must be a positive integer \(got 0\)/);
    expect(() => new RateLimiter({ calls: 10, windowMs: 1000, concurrency: 0 })).toThrow(/concurrency/);
    expect(() => new SlidingPacer({ calls: 10, windowMs: 0, clock: new FakeClock() })).toThrow(/windowMs/);
  });
});
