/**
 * A sliding-window call counter: at most `calls` calls in any `windowMs`. It keeps the times of the last
 * `calls` accepted calls in a ring, so checking is O(1) however high the limit is set for benchmarks.
 */
export class SlidingWindowLimiter {
  private ring: Float64Array;
  private head = 0;
  private count = 0;

  constructor(private calls: number, private windowMs: number) {
    this.ring = new Float64Array(Math.max(1, calls));
  }

  /** Counts the call and returns true when it is within the limit; a refused call is not counted. */
  take(now: number): boolean {
    if (this.count < this.calls) {
      this.ring[(this.head + this.count) % this.calls] = now;
      this.count++;
      return true;
    }
    // The ring is full: the oldest of the last `calls` calls must have left the window.
    const oldest = this.ring[this.head];
    if (now - oldest < this.windowMs) return false;
    this.ring[this.head] = now;
    this.head = (this.head + 1) % this.calls;
    return true;
  }

  /** Calls counted in the window ending at `now`. */
  used(now: number): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (now - this.ring[(this.head + i) % this.calls] < this.windowMs) n++;
    return n;
  }

  /** Calls still allowed in the window ending at `now` (the X-RateLimit-Remaining header); O(log calls). */
  remaining(now: number): number {
    // The ring holds accepted calls oldest first: find the first one still inside the window.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (now - this.ring[(this.head + mid) % this.calls] < this.windowMs) hi = mid;
      else lo = mid + 1;
    }
    return this.calls - (this.count - lo);
  }

  get limit(): number {
    return this.calls;
  }

  reset(calls = this.calls, windowMs = this.windowMs): void {
    this.calls = calls;
    this.windowMs = windowMs;
    this.ring = new Float64Array(Math.max(1, calls));
    this.head = 0;
    this.count = 0;
  }
}
