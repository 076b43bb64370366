/**
 * The time source of the limiter. Injected so that the sliding-window property can be proved on a fake clock,
 * where a "minute" passes in microseconds and every start time is exact.
 */
export interface Clock {
  /** Milliseconds, on the same scale as the service measures its window (Date.now for a real run). */
  now(): number;
  /** Resolves no earlier than `ms` from now (callers re-check now() after waking: timers may fire a tick early). */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(ms)))),
};

interface Timer { at: number; seq: number; resolve: () => void }

/**
 * A manual clock for tests: time moves only when `advance`/`runUntilIdle` say so, and between timer firings the
 * pending promise jobs are drained, so code awaiting `sleep` sees exactly the time it asked for.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve });
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    });
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Lets every promise job that is ready run (p-queue and async functions hop through several). */
  async drain(): Promise<void> {
    for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
  }

  /** Fires timers in time order up to now + ms, draining promise jobs after each. */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    await this.drain();
    while (this.timers.length && this.timers[0].at <= until) {
      const timer = this.timers.shift()!;
      this.t = Math.max(this.t, timer.at);
      timer.resolve();
      await this.drain();
    }
    this.t = until;
  }

  /** Runs timers until none are left or `done()` says so; returns false if maxSteps ran out first. */
  async runUntil(done: () => boolean, maxSteps = 1_000_000): Promise<boolean> {
    await this.drain();
    for (let step = 0; step < maxSteps; step++) {
      if (done()) return true;
      const timer = this.timers.shift();
      if (!timer) {
        await this.drain();
        if (done()) return true;
        if (!this.timers.length) return false;
        continue;
      }
      this.t = Math.max(this.t, timer.at);
      timer.resolve();
      await this.drain();
    }
    return done();
  }
}
