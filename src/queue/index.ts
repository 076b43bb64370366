/**
 * The one account-wide limiter every API call passes through: posts, tasks_ready, task_get, tasks_fixed, live and
 * list calls alike, and every retry attempt again.
 *
 * Contract (other stages use these names):
 *   new RateLimiter({ calls, windowMs, concurrency, clock?, subLimits?, subWindowMs? })
 *   RateLimiter.fromConfig(config, { clock? })
 *   limiter.schedule<T>(endpointId, fn: () => Promise<T>): Promise<T>
 *       one start of `fn` under the account limit and the endpoint's sub-limit (catalog `perMinute`);
 *       `fn` should be a single attempt (one HTTP request): retries are scheduled again, so they are counted.
 *   limiter.slowDown(retryAfterMs?, endpointId?)   a rate-limit answer came back: pause, halve the rate, recover
 *       gradually; with the endpoint that was answered so, only that endpoint's line slows (the live service limits
 *       some endpoints on their own, tasks_ready to 20 a minute), otherwise every call of the account.
 *   limiter.observe(endpointId, { limit, remaining })   the service's X-RateLimit-Limit / -Remaining headers: a
 *       ceiling below the account's becomes the endpoint's sub-limit, and none remaining holds its line back
 *       unless its own calls filled that window (then the pace already waits).
 *   limiter.stats()                   counts and the proof figures (maxInWindow never exceeds calls).
 *   limiter.onIdle()                  resolves when nothing is queued or running.
 *
 * Why the sliding window is implemented here rather than with p-queue's interval/intervalCap: p-queue counts in
 * fixed intervals from its own timer, so `intervalCap: calls, interval: windowMs` lets a whole minute go out at the
 * top of an interval and two adjacent intervals can put 2x the limit into one sliding window; `intervalCap: 1,
 * interval: windowMs/calls` spreads calls but counts starts only, so a slow request that reaches the service late
 * still collides with the next window (see pacer.ts, rule 2), and it cannot run on an injected clock. So p-queue
 * does what it is good at (bounded concurrency) and SlidingPacer decides when each call may start, using a rolling
 * log of start and end times. Per-endpoint sub-limits wait in their own line before joining the shared queue, so a
 * throttled endpoint (tasks_fixed: 20 per minute) never holds a concurrency slot the others could use.
 */
import PQueue from 'p-queue';
import { findEndpoint } from '../api/catalog.js';
import { FAMILIES } from '../families/index.js';
import type { Config } from '../config/index.js';
import { systemClock, type Clock } from './clock.js';
import { SlidingPacer, type Slot } from './pacer.js';

export { systemClock, FakeClock, type Clock } from './clock.js';
export { SlidingPacer, type Slot } from './pacer.js';

export interface RateLimiterOptions {
  /** Calls allowed per window, account-wide (config.rate_limit.calls). */
  calls: number;
  windowMs: number;
  /** Calls in flight at once (config.rate_limit.concurrency). */
  concurrency: number;
  clock?: Clock;
  /** Sub-limits per endpoint id, calls per `subWindowMs`; defaults to the catalog's `perMinute`. */
  subLimits?: Record<string, number>;
  /**
   * Window of the sub-limits. The reference states them per minute, and `windowMs` is the configured minute
   * (scaled down in tests and benchmarks, as the sandbox scales its own), so they share it by default.
   */
  subWindowMs?: number;
  /** Pause after a rate-limit answer when the service gives no hint: a tenth of the window. */
  defaultSlowDownMs?: number;
}

export interface EndpointStats { started: number; inFlight: number; maxInWindow: number; limit?: number; slowDowns?: number }

/** What the service's rate-limit headers said about an endpoint (X-RateLimit-Limit, X-RateLimit-Remaining). */
export interface RateLimitHeaders { limit?: number; remaining?: number }

export interface LimiterStats {
  calls: number;
  windowMs: number;
  /** Current distance between starts, and the derived margin in it (pacer.ts: p90 round trip + 1 ms tick). */
  spacingMs: number;
  marginMs: number;
  /** Lateness behind the even schedule that was too large to catch up and was let go (time lost to stalls). */
  forgivenMs: number;
  concurrency: number;
  /** Calls started so far, and the most that ever started within one window (the proof: <= calls). */
  started: number;
  inFlight: number;
  waiting: number;
  maxInWindow: number;
  slowDowns: number;
  penalty: number;
  /** X-RateLimit-Remaining 0 answers seen, and those that held a line back (a window our own calls did not fill). */
  noneRemaining: number;
  heldForOthers: number;
  /** How long calls took from start to end (the round trip the margin of pacer.ts rule 2 costs per window). */
  meanCallMs: number;
  maxCallMs: number;
  byEndpoint: Record<string, EndpointStats>;
}

export class RateLimiter {
  /** Calls per window, account-wide: the configured number until the account's own answer replaces it (useAccountLimit). */
  private accountCalls: number;
  readonly windowMs: number;
  readonly concurrency: number;
  private readonly clock: Clock;
  private account: SlidingPacer;
  private readonly queue: PQueue;
  private readonly subLimits: Record<string, number>;
  private readonly subWindowMs: number;
  private readonly defaultSlowDownMs: number;
  private readonly subs = new Map<string, SlidingPacer>();
  /** Families and groups that allow fewer calls in flight than the account (Labs: 30): a queue of that concurrency each. */
  private readonly families = new Map<string, PQueue | null>();
  private readonly perEndpoint = new Map<string, { started: number; inFlight: number }>();
  private pending = 0;
  private ended = 0;
  private totalCallMs = 0;
  private maxCallMs = 0;
  private noneRemaining = 0;
  private heldForOthers = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(opts: RateLimiterOptions) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error(`rate limit: concurrency must be a positive integer (got ${opts.concurrency})`);
    this.accountCalls = opts.calls;
    this.windowMs = opts.windowMs;
    this.concurrency = opts.concurrency;
    this.clock = opts.clock ?? systemClock;
    this.account = new SlidingPacer({ calls: opts.calls, windowMs: opts.windowMs, clock: this.clock });
    this.queue = new PQueue({ concurrency: opts.concurrency });
    this.subLimits = { ...opts.subLimits };
    this.subWindowMs = opts.subWindowMs ?? opts.windowMs;
    this.defaultSlowDownMs = opts.defaultSlowDownMs ?? Math.max(1, Math.round(opts.windowMs / 10));
  }

  get calls(): number {
    return this.accountCalls;
  }

  /**
   * The account's own limit (appendix/user_data's calls a minute, over the configured minute as the catalog's
   * per-minute limits are) replaces the configured one. Only before the first call: the pacer's log of starts is
   * what keeps a window under its limit, and a new one knows none. Returns whether it was applied.
   */
  useAccountLimit(callsPerMinute: number): boolean {
    if (!Number.isInteger(callsPerMinute) || callsPerMinute < 1 || this.account.stats().started > 0 || this.subs.size > 0) return false;
    this.accountCalls = callsPerMinute;
    this.account = new SlidingPacer({ calls: callsPerMinute, windowMs: this.windowMs, clock: this.clock });
    return true;
  }

  static fromConfig(config: Config, opts: { clock?: Clock; subLimits?: Record<string, number> } = {}): RateLimiter {
    const { calls, window_ms, concurrency } = config.rate_limit;
    return new RateLimiter({ calls, windowMs: window_ms, concurrency, clock: opts.clock, subLimits: opts.subLimits });
  }

  /**
   * The endpoint's own limit: an explicit override, else the catalog's perMinute, else none. A sub-limit at or
   * above the account limit can never bind, so it is skipped (events task_post's 2000 under a 2000 account limit).
   */
  private subFor(endpointId: string, create = false): SlidingPacer | undefined {
    const existing = this.subs.get(endpointId);
    if (existing) return existing;
    const limit = this.subLimits[endpointId] ?? findEndpoint(endpointId)?.perMinute;
    const binds = limit && !(limit >= this.calls && this.subWindowMs >= this.windowMs);
    // A line of its own at the account's rate, when only a slow-down needs one (it binds once slowed).
    if (!binds && !create) return undefined;
    const pacer = new SlidingPacer({ calls: binds ? limit : this.calls, windowMs: this.subWindowMs, clock: this.clock });
    this.subs.set(endpointId, pacer);
    return pacer;
  }

  private counters(endpointId: string): { started: number; inFlight: number } {
    let c = this.perEndpoint.get(endpointId);
    if (!c) this.perEndpoint.set(endpointId, (c = { started: 0, inFlight: 0 }));
    return c;
  }

  /** The in-flight sub-limit of an endpoint's family or group (FamilyDef.inFlight, inFlightBy), when it binds under the account's concurrency. */
  private familyQueue(endpointId: string): PQueue | null {
    const group = inFlightGroup(endpointId);
    if (!group) return null;
    let q = this.families.get(group.key);
    if (q === undefined) this.families.set(group.key, (q = group.limit < this.concurrency ? new PQueue({ concurrency: group.limit }) : null));
    return q;
  }

  async schedule<T>(endpointId: string, fn: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      const family = this.familyQueue(endpointId);
      if (family) return await (family.add(() => this.scheduleInAccount(endpointId, fn), { throwOnTimeout: true }) as Promise<T>);
      return await this.scheduleInAccount(endpointId, fn);
    } finally {
      this.pending--;
      if (this.pending === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  private async scheduleInAccount<T>(endpointId: string, fn: () => Promise<T>): Promise<T> {
    {
      const sub = this.subFor(endpointId);
      const subSlot = sub ? await sub.reserve() : undefined;
      return await this.queue.add(async () => {
        let slot: Slot;
        try {
          slot = await this.account.reserve();
        } catch (err) {
          subSlot?.cancel();
          throw err;
        }
        const at = this.clock.now();
        slot.start(at);
        subSlot?.start(at);
        const c = this.counters(endpointId);
        c.started++;
        c.inFlight++;
        try {
          return await fn();
        } finally {
          const end = this.clock.now();
          slot.end(end);
          subSlot?.end(end);
          c.inFlight--;
          this.ended++;
          this.totalCallMs += end - at;
          if (end - at > this.maxCallMs) this.maxCallMs = end - at;
        }
      }, { throwOnTimeout: true }) as T;
    }
  }

  /**
   * A rate-limit status came back (HTTP 429, envelope or task 40202): stop starting calls for retryAfterMs
   * (default a tenth of the window) and halve the rate, which recovers by half every quiet window.
   */
  slowDown(retryAfterMs?: number, endpointId?: string): void {
    const pauseMs = retryAfterMs ?? this.defaultSlowDownMs;
    if (endpointId === undefined) return this.account.slowDown(pauseMs);
    this.subFor(endpointId, true)!.slowDown(pauseMs);
  }

  /**
   * The service's rate-limit headers for a call of `endpointId`. A ceiling below the account limit is that
   * endpoint's own limit (the live service sends 20 for tasks_ready): it replaces a looser sub-limit for the calls
   * that follow. None remaining, in a window this client's own calls did not fill, holds the line back for a tenth of
   * the window, without lowering its rate.
   */
  observe(endpointId: string, headers: RateLimitHeaders): void {
    const { limit, remaining } = headers;
    if (limit !== undefined && Number.isInteger(limit) && limit > 0 && limit < this.calls) {
      const current = this.subs.get(endpointId);
      if (!current || current.calls > limit) {
        this.subLimits[endpointId] = limit;
        this.subs.delete(endpointId);
        const pacer = this.subFor(endpointId)!;
        if (current) pacer.pauseUntil(current.stats().pausedUntil);
      }
    }
    if (remaining !== undefined && remaining <= 0) {
      const line = limit !== undefined && limit >= this.calls ? this.account : this.subFor(endpointId, true)!;
      // At full pace every call that completes a window is answered "none remaining": only a window our own calls
      // cannot fill says someone else is spending the allowance.
      this.noneRemaining++;
      if (!line.accountsFor(limit ?? line.calls)) {
        this.heldForOthers++;
        line.pauseUntil(this.clock.now() + this.defaultSlowDownMs);
      }
    }
  }

  async onIdle(): Promise<void> {
    if (this.pending === 0) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  stats(): LimiterStats {
    const a = this.account.stats();
    const byEndpoint: Record<string, EndpointStats> = {};
    for (const [id, c] of this.perEndpoint) {
      const sub = this.subs.get(id);
      const ss = sub?.stats();
      byEndpoint[id] = { started: c.started, inFlight: c.inFlight, maxInWindow: ss ? ss.maxInWindow : 0, limit: sub?.calls, slowDowns: ss?.slowDowns ?? 0 };
    }
    return {
      calls: this.calls,
      windowMs: this.windowMs,
      spacingMs: a.spacingMs,
      marginMs: a.marginMs,
      forgivenMs: a.forgivenMs,
      concurrency: this.concurrency,
      started: a.started,
      inFlight: a.inFlight,
      waiting: this.pending - a.inFlight,
      maxInWindow: a.maxInWindow,
      // Every slow-down, the account's and the endpoints' (byEndpoint says which).
      slowDowns: a.slowDowns + [...this.subs.values()].reduce((n, p) => n + p.stats().slowDowns, 0),
      penalty: a.penalty,
      noneRemaining: this.noneRemaining,
      heldForOthers: this.heldForOthers,
      meanCallMs: this.ended ? this.totalCallMs / this.ended : 0,
      maxCallMs: this.maxCallMs,
      byEndpoint,
    };
  }
}

/** The in-flight group an endpoint belongs to, from its family's declaration: the longest inFlightBy prefix, else the family. */
export function inFlightGroup(endpointId: string): { key: string; limit: number } | undefined {
  const api = findEndpoint(endpointId)?.api;
  const family = api ? FAMILIES.find((f) => f.name === api) : undefined;
  if (!family) return undefined;
  const prefix = Object.keys(family.inFlightBy ?? {}).filter((k) => endpointId.startsWith(k)).sort((a, b) => b.length - a.length)[0];
  if (prefix) return { key: prefix, limit: family.inFlightBy![prefix] };
  return family.inFlight ? { key: family.name, limit: family.inFlight } : undefined;
}
