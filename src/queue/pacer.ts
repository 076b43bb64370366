/**
 * SlidingPacer: admits call starts so that no window of `windowMs` ever holds more than `calls` of them, as the
 * service counts them, and spreads them evenly instead of letting a window's allowance go out at its top.
 *
 * The service stamps a call when it *arrives*, which we cannot see: we only know the arrival lies between our start
 * stamp and the moment the response came back (its end). Two rules follow.
 *
 *  Rule 2, the guarantee. Call k+calls may start only once call k has ended and windowMs + 1 ms more have passed:
 *     arrival(k+calls) >= start(k+calls) >= end(k) + windowMs + 1 >= arrival(k) + windowMs + 1.
 *     The 1 ms is the clock tick: millisecond clocks on both sides can read a true gap of W as W-1, and the
 *     service may count its window closed or half-open. This holds however the network or event loop jitters, so
 *     it alone proves the sliding-window bound; it waits for call k to end when call k is still in flight.
 *
 *  Rule 1, the shape: an even schedule of slots `spacing` apart, with
 *     spacing = (windowMs + margin) / calls,  margin = p90 of recent call durations (start to end) + 1 ms tick.
 *     This is the client's limit set "a hair under" the service's, and the hair is derived, not guessed: rule 2
 *     costs one round trip plus a tick per window, so a schedule that already leaves that much per window is
 *     one rule 2 almost never has to correct (only for the slowest tenth of calls). Utilisation is
 *     W / (W + margin): 0.998 for a 3 ms round trip in a 2 s window, 0.995 for 300 ms in a minute.
 *     Slots follow the schedule rather than the previous actual start, because timers fire late (a 10 ms sleep
 *     takes 11-12 ms) and a stalled event loop, or a slow call rule 2 had to hold back, would otherwise shift the
 *     schedule for good and lose that time from the allowance. Lateness is repaid, at most at twice the nominal
 *     rate (starts never closer than half a spacing) and only up to `catchUpMs` of it (default a quarter of the
 *     window); beyond that it is forgiven. So the traffic is never more than twice as dense as the even share for
 *     a moment, and never a burst of the window's allowance.
 */
import type { Clock } from './clock.js';

export interface PacerOptions {
  calls: number;
  windowMs: number;
  clock: Clock;
  /** Granularity of the clocks that stamp a call on either side, ms (see rule 2). */
  clockTickMs?: number;
  /** Most lateness behind the schedule that is caught up rather than forgiven, ms; default windowMs / 4. */
  catchUpMs?: number;
}

interface Entry { start: number; end?: number }

/** A reserved start: the line stays closed until start() or cancel(), so starts are recorded in order. */
export interface Slot {
  /** Records the actual start (the time the call goes out) and lets the next caller compute its slot. */
  start(at?: number): void;
  /** Records when the response came back (or the attempt gave up). */
  end(at?: number): void;
  /** Gives the slot back without starting (the call was abandoned before it went out). */
  cancel(): void;
}

const MAX_PENALTY = 16;
/** How many recent call durations the margin is taken from. */
const DURATION_SAMPLES = 128;

export class SlidingPacer {
  readonly calls: number;
  readonly windowMs: number;
  private readonly clock: Clock;
  private readonly tick: number;
  private readonly catchUpMs: number;
  /** The last `calls` starts (up to twice that), oldest first: enough to apply rule 2 and to count a window. */
  private entries: Entry[] = [];
  /** Index in `entries` of the oldest start inside the window ending at the latest start (starts are in order). */
  private windowStart = 0;
  private line: Promise<void> = Promise.resolve();
  private endWaiters: Array<() => void> = [];
  private pausedUntil = 0;
  /** The next slot of the even schedule (rule 1). */
  private nextSlot = -Infinity;
  private lastStart = -Infinity;
  /** The slot the caller at the head of the line is using (rule 1 and pauses, not rule 2). */
  private headSlot = -Infinity;
  /** Callers in line (reserved or waiting, not yet started). */
  private waiting = 0;
  private durations: number[] = [];
  private durationAt = 0;
  private margin: number;
  private penalty = 1;
  private penaltyAt = 0;
  private _started = 0;
  private _inFlight = 0;
  private _maxInWindow = 0;
  private _slowDowns = 0;
  private _forgivenMs = 0;

  constructor(opts: PacerOptions) {
    if (!Number.isInteger(opts.calls) || opts.calls < 1) throw new Error(`rate limit: calls must be a positive integer (got ${opts.calls})`);
    if (!(opts.windowMs > 0)) throw new Error(`rate limit: windowMs must be positive (got ${opts.windowMs})`);
    this.calls = opts.calls;
    this.windowMs = opts.windowMs;
    this.clock = opts.clock;
    this.tick = opts.clockTickMs ?? 1;
    this.catchUpMs = opts.catchUpMs ?? opts.windowMs / 4;
    this.margin = this.tick;
  }

  /** Round trip (p90 of recent calls) plus a tick: what rule 2 costs per window, so rule 1 leaves it out. */
  get marginMs(): number {
    return this.margin;
  }

  /** Current distance between slots: the margin-adjusted even share of the window, stretched after a slow-down. */
  spacingMs(now = this.clock.now()): number {
    return ((this.windowMs + this.margin) / this.calls) * this.currentPenalty(now);
  }

  /** The penalty decays by half every window after the pause, back to 1 (full rate). */
  private currentPenalty(now: number): number {
    if (this.penalty <= 1) return 1;
    const p = 1 + (this.penalty - 1) * Math.pow(0.5, Math.max(0, now - this.penaltyAt) / this.windowMs);
    return p < 1.001 ? 1 : p;
  }

  /** Milliseconds until a call may start (0: now), or Infinity when it must wait for a call to end. */
  waitMs(now: number): number {
    const at = this.rule2();
    if (at === Infinity) return Infinity;
    const densest = this.lastStart + this.spacingMs(now) / 2;
    return Math.max(0, Math.max(at, this.pausedUntil, this.nextSlot, densest) - now);
  }

  /** Rule 2's earliest start; Infinity while the call `calls` back is still in flight. */
  private rule2(): number {
    if (this.entries.length < this.calls) return -Infinity;
    const oldest = this.entries[this.entries.length - this.calls];
    return oldest.end === undefined ? Infinity : oldest.end + this.windowMs + this.tick;
  }

  /** Waits in line until this caller may start; the line stays closed until the slot is started or cancelled. */
  async reserve(): Promise<Slot> {
    // Lateness is only real while there is demand: a caller that finds the line empty (no one waiting, so the
    // schedule was idle, or demand-limited) is on time even if the slot has passed; behind others it is late.
    const arrived = this.clock.now();
    const toEmptyLine = this.waiting === 0;
    this.waiting++;
    let open!: () => void;
    const previous = this.line;
    this.line = new Promise<void>((r) => { open = r; });
    await previous;
    try {
      for (;;) {
        const now = this.clock.now();
        const wait = this.waitMs(now);
        if (wait === 0) break;
        if (wait === Infinity) await new Promise<void>((r) => this.endWaiters.push(r));
        else await this.clock.sleep(wait);
      }
    } catch (err) {
      this.waiting--;
      open();
      throw err;
    }
    this.headSlot = Math.max(this.nextSlot, this.pausedUntil, toEmptyLine ? arrived : -Infinity);
    let state: 'reserved' | 'started' | 'done' = 'reserved';
    let entry: Entry | undefined;
    return {
      start: (at) => {
        if (state !== 'reserved') return;
        state = 'started';
        this.waiting--;
        const now = at ?? this.clock.now();
        // The next slot is one spacing after this call's slot; lateness beyond catchUpMs is forgiven.
        if (now - this.catchUpMs > this.headSlot) this._forgivenMs += now - this.catchUpMs - this.headSlot;
        this.nextSlot = Math.max(this.headSlot, now - this.catchUpMs) + this.spacingMs(now);
        this.lastStart = now;
        entry = this.recordStart(now);
        open();
      },
      end: (at) => {
        if (state !== 'started' || !entry) return;
        state = 'done';
        entry.end = Math.max(at ?? this.clock.now(), entry.start);
        this._inFlight--;
        this.recordDuration(entry.end - entry.start);
        const waiters = this.endWaiters;
        this.endWaiters = [];
        for (const w of waiters) w();
      },
      cancel: () => {
        if (state !== 'reserved') return;
        state = 'done';
        this.waiting--;
        open();
      },
    };
  }

  private recordDuration(ms: number): void {
    if (this.durations.length < DURATION_SAMPLES) this.durations.push(ms);
    else this.durations[this.durationAt] = ms;
    this.durationAt = (this.durationAt + 1) % DURATION_SAMPLES;
    const sorted = [...this.durations].sort((a, b) => a - b);
    this.margin = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] + this.tick;
  }

  private recordStart(at: number): Entry {
    const entry: Entry = { start: at };
    this.entries.push(entry);
    this._started++;
    this._inFlight++;
    // The window count is kept as a running proof: starts in (at - windowMs, at], this one included. Starts come
    // in order, so the window's first index only moves forward: O(1) per call even when `calls` is huge (a limit
    // scaled out of the way would otherwise make every start count the whole window, O(n^2) over a night).
    while (this.windowStart < this.entries.length - 1 && this.entries[this.windowStart].start <= at - this.windowMs) this.windowStart++;
    const inWindow = this.entries.length - this.windowStart;
    if (inWindow > this._maxInWindow) this._maxInWindow = inWindow;
    // Rule 2 needs the last `calls` starts and the count needs the window's: drop what neither needs, in bulk.
    let keepFrom = Math.min(this.entries.length - this.calls, this.windowStart);
    // A call that ended a window (and a tick) before this start can never hold back a later one under rule 2
    // either: with a large `calls` (a limit scaled out of the way, or a big account) the log would otherwise keep
    // every start of the night. Looked at every 1024 starts; an older call still in flight stops the look.
    const look = this._started % 1024 === 0;
    if (look) {
      const before = at - this.windowMs - this.tick;
      keepFrom = Math.max(0, keepFrom);
      while (keepFrom < this.windowStart && this.entries[keepFrom].end !== undefined && this.entries[keepFrom].end! <= before) keepFrom++;
    }
    if (keepFrom > 1024 && (look || keepFrom > this.calls)) {
      this.entries = this.entries.slice(keepFrom);
      this.windowStart -= keepFrom;
    }
    return entry;
  }

  /**
   * The service said we are over its limit (another client on the account, or a lower limit than configured):
   * stop starting calls for `pauseMs` and halve the rate, recovering over the following windows.
   */
  slowDown(pauseMs: number): void {
    const now = this.clock.now();
    this._slowDowns++;
    this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
    this.penalty = Math.min(MAX_PENALTY, this.currentPenalty(now) * 2);
    // Recovery starts when the pause ends, so the first calls after it go out at the reduced rate.
    this.penaltyAt = this.pausedUntil;
  }

  /**
   * Whether this line's own calls can be all `used` calls the service counted in its window, as a call that has
   * just come back reported it. A window this line filled itself is the pace working (rule 2 already holds the next
   * start until the oldest of them has left it); fewer means another client spends the same allowance.
   */
  accountsFor(used: number, now = this.clock.now()): boolean {
    // That call arrived no earlier than the slowest recent round trip before now; a call of ours is in the window
    // ending at that arrival only if it ended (so arrived) after the window's start, or is still in flight.
    const since = now - Math.max(0, ...this.durations) - this.windowMs - this.tick;
    let own = 0;
    for (let i = this.entries.length - 1; i >= 0 && own < used; i--) {
      const end = this.entries[i].end;
      if (end === undefined || end > since) own++;
    }
    return own >= used;
  }

  /** Holds starts back until `until` without lowering the rate (the service said the window's allowance is spent). */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  stats(): { started: number; inFlight: number; maxInWindow: number; slowDowns: number; penalty: number; pausedUntil: number; marginMs: number; spacingMs: number; forgivenMs: number } {
    const now = this.clock.now();
    return {
      started: this._started,
      inFlight: this._inFlight,
      maxInWindow: this._maxInWindow,
      slowDowns: this._slowDowns,
      penalty: this.currentPenalty(now),
      pausedUntil: this.pausedUntil,
      marginMs: this.margin,
      spacingMs: this.spacingMs(now),
      forgivenMs: this._forgivenMs,
    };
  }
}
