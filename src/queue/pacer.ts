/**
 * SlidingPacer: admits call starts so that no window of `windowMs` ever holds more than `calls` of them, as the
 * service counts them, and spreads them evenly instead of letting a window's allowance go out at its top.
 *
 * Two rules decide the earliest start of the next call:
 *  1. Even spacing: at least windowMs / calls after the previous start (stretched by the slow-down penalty).
 *     This is what makes the traffic smooth rather than bursty.
 *  2. The margin, derived rather than guessed: the service stamps a call when it *arrives*, which we cannot see.
 *     We only know the arrival lies between our start stamp and the moment the response came back (end).
 *     So call k+calls may start only once call k has ended and windowMs + 1 ms more have passed:
 *     arrival(k+calls) >= start(k+calls) >= end(k) + windowMs + 1 >= arrival(k) + windowMs + 1.
 *     The extra 1 ms covers millisecond clocks on both sides (a true gap of W can read as W-1) and a window
 *     counted closed or half-open. The cost is one round trip per window (utilisation W / (W + RTT)), measured
 *     on the fly instead of hard-coded, and it holds however the network jitters.
 * Rule 2 alone already proves the sliding-window bound on start times; rule 1 shapes the traffic.
 */
import type { Clock } from './clock.js';

export interface PacerOptions {
  calls: number;
  windowMs: number;
  clock: Clock;
  /** Granularity of the clocks that stamp a call on either side, ms (see rule 2). */
  clockTickMs?: number;
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

export class SlidingPacer {
  readonly calls: number;
  readonly windowMs: number;
  readonly spacingMs: number;
  private readonly clock: Clock;
  private readonly tick: number;
  /** The last `calls` starts, oldest first: enough to apply rule 2 and to count a window. */
  private entries: Entry[] = [];
  private line: Promise<void> = Promise.resolve();
  private endWaiters: Array<() => void> = [];
  private pausedUntil = 0;
  private penalty = 1;
  private penaltyAt = 0;
  private _started = 0;
  private _inFlight = 0;
  private _maxInWindow = 0;
  private _slowDowns = 0;

  constructor(opts: PacerOptions) {
    if (!Number.isInteger(opts.calls) || opts.calls < 1) throw new Error(`rate limit: calls must be a positive integer (got ${opts.calls})`);
    if (!(opts.windowMs > 0)) throw new Error(`rate limit: windowMs must be positive (got ${opts.windowMs})`);
    this.calls = opts.calls;
    this.windowMs = opts.windowMs;
    this.spacingMs = opts.windowMs / opts.calls;
    this.clock = opts.clock;
    this.tick = opts.clockTickMs ?? 1;
  }

  /** The penalty decays by half every window after the pause, back to 1 (full rate). */
  private currentPenalty(now: number): number {
    if (this.penalty <= 1) return 1;
    const p = 1 + (this.penalty - 1) * Math.pow(0.5, Math.max(0, now - this.penaltyAt) / this.windowMs);
    return p < 1.001 ? 1 : p;
  }

  /** Milliseconds until a call may start (0: now), or Infinity when it must wait for a call to end. */
  waitMs(now: number): number {
    let at = this.pausedUntil;
    const last = this.entries[this.entries.length - 1];
    if (last) at = Math.max(at, last.start + this.spacingMs * this.currentPenalty(now));
    if (this.entries.length >= this.calls) {
      const oldest = this.entries[this.entries.length - this.calls];
      if (oldest.end === undefined) return Infinity;
      at = Math.max(at, oldest.end + this.windowMs + this.tick);
    }
    return Math.max(0, at - now);
  }

  /** Waits in line until this caller may start; the line stays closed until the slot is started or cancelled. */
  async reserve(): Promise<Slot> {
    let open!: () => void;
    const previous = this.line;
    this.line = new Promise<void>((r) => { open = r; });
    await previous;
    try {
      for (;;) {
        const wait = this.waitMs(this.clock.now());
        if (wait === 0) break;
        if (wait === Infinity) await new Promise<void>((r) => this.endWaiters.push(r));
        else await this.clock.sleep(wait);
      }
    } catch (err) {
      open();
      throw err;
    }
    let state: 'reserved' | 'started' | 'done' = 'reserved';
    let entry: Entry | undefined;
    return {
      start: (at) => {
        if (state !== 'reserved') return;
        state = 'started';
        entry = this.recordStart(at ?? this.clock.now());
        open();
      },
      end: (at) => {
        if (state !== 'started' || !entry) return;
        state = 'done';
        entry.end = Math.max(at ?? this.clock.now(), entry.start);
        this._inFlight--;
        const waiters = this.endWaiters;
        this.endWaiters = [];
        for (const w of waiters) w();
      },
      cancel: () => {
        if (state !== 'reserved') return;
        state = 'done';
        open();
      },
    };
  }

  private recordStart(at: number): Entry {
    const entry: Entry = { start: at };
    this.entries.push(entry);
    this._started++;
    this._inFlight++;
    // The window count is kept as a running proof: starts in (at - windowMs, at], this one included.
    let inWindow = 0;
    for (let i = this.entries.length - 1; i >= 0 && this.entries[i].start > at - this.windowMs; i--) inWindow++;
    if (inWindow > this._maxInWindow) this._maxInWindow = inWindow;
    if (this.entries.length > this.calls * 2) this.entries = this.entries.slice(-this.calls);
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

  stats(): { started: number; inFlight: number; maxInWindow: number; slowDowns: number; penalty: number; pausedUntil: number } {
    const now = this.clock.now();
    return {
      started: this._started,
      inFlight: this._inFlight,
      maxInWindow: this._maxInWindow,
      slowDowns: this._slowDowns,
      penalty: this.currentPenalty(now),
      pausedUntil: this.pausedUntil,
    };
  }
}
