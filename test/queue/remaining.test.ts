import { describe, expect, it } from 'vitest';
import { FakeClock, RateLimiter } from '../../src/queue/index.js';
import { SlidingWindowLimiter } from '../../src/sandbox/rate-limit.js';

/**
 * The limiter at full pace against a service that counts a sliding window and answers X-RateLimit-Remaining, as the
 * live service and the sandbox do: every call that completes a window is answered "none remaining".
 */
async function saturate(opts: { calls: number; windowMs: number; windows: number }) {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ calls: opts.calls, windowMs: opts.windowMs, concurrency: 8, clock });
  const service = new SlidingWindowLimiter(opts.calls, opts.windowMs);
  const starts: number[] = [];
  let refused = 0;
  let zeros = 0;
  const deadline = clock.now() + opts.windows * opts.windowMs;
  let running = 8;
  const worker = async () => {
    while (clock.now() < deadline) {
      const remaining = await limiter.schedule('e', async () => {
        const arrived = clock.now();
        starts.push(arrived);
        if (!service.take(arrived)) refused++;
        await clock.sleep(3);
        return service.remaining(arrived);
      });
      if (remaining === 0) zeros++;
      limiter.observe('e', { limit: opts.calls, remaining });
    }
    running--;
  };
  for (let i = 0; i < 8; i++) void worker();
  const first = clock.now();
  expect(await clock.runUntil(() => running === 0)).toBe(true);
  const inSpan = starts.filter((t) => t < first + opts.windows * opts.windowMs).length;
  return { utilisation: inSpan / (opts.windows * opts.calls), refused, zeros, stats: limiter.stats() };
}

describe('X-RateLimit-Remaining at full pace', () => {
  it('a window the client filled itself ("none remaining" on the call that completes it) costs no pause', async () => {
    const r = await saturate({ calls: 100, windowMs: 1000, windows: 6 });
    // W / (W + margin), margin = the 3 ms round trip + 1 ms tick: 0.996; a pause of a tenth of a window after each
    // "none remaining" took 0.92 (as limiter_utilization measured against the sandbox).
    expect(r.utilisation).toBeGreaterThanOrEqual(0.99);
    expect(r.refused).toBe(0);
    // The service did say 0 remaining, many times, and rightly so.
    expect(r.zeros).toBeGreaterThan(100);
    expect([r.stats.noneRemaining, r.stats.heldForOthers]).toEqual([r.zeros, 0]);
  });

  it('"none remaining" in a window our own calls did not fill holds the line back a tenth of a window (another client spends the allowance)', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ calls: 100, windowMs: 1000, concurrency: 4, clock });
    const run = async (n: number) => {
      const starts: number[] = [];
      let done = 0;
      for (let i = 0; i < n; i++) void limiter.schedule('e', async () => { starts.push(clock.now()); }).then(() => { done++; });
      await clock.runUntil(() => done === n);
      return starts;
    };
    await run(10);
    const at = clock.now();
    // Ten calls of ours in the window, and the service says it holds a hundred.
    limiter.observe('e', { limit: 100, remaining: 0 });
    const [next] = await run(1);
    expect(next).toBeGreaterThanOrEqual(at + 100);
    expect([limiter.stats().noneRemaining, limiter.stats().heldForOthers]).toEqual([1, 1]);
  });
});
