/**
 * The load channel: the one place that decides how large a load transaction is and how much may wait in memory
 * for one. Every producer (polling, callbacks, live and list calls, tasks_fixed, adoption and release of unclear
 * POSTs, resume's recovered answers, reprocess and ingest) hands it typed outcomes (outcome.ts); it commits them
 * in order, one transaction at a time, each transaction's rows and ledger moves together (`commit`).
 *
 * - A transaction is cut at `maxCount` outcomes (an archive line counts as one, whatever it holds) or `maxBytes`
 *   of answers (a larger single answer goes alone), or once no outcome arrived for `quietMs` (the end of a burst
 *   is loaded at once, a burst still arriving in full transactions: each has a fixed cost). An outcome handed with `now` (a ledger move its producer waits on before
 *   it may go on, such as `posting` before a call is sent) cuts at once, with everything before it.
 * - Back-pressure: answers held (queued, or in the transaction being committed) and reserved (being fetched) stay
 *   within `holdBytes` and `holdCount` outcomes; a producer waits in `admit` or `reserve` until a commit makes
 *   room. One outcome is always let in when nothing is held or reserved, so collection never stops on an answer
 *   larger than the budget.
 */
import { bytesOfOutcome, countOfOutcome, type Outcome } from './outcome.js';

/** Answer bytes a load transaction takes at most; a larger single answer goes alone. */
export const LOAD_BYTES = 8 * 2 ** 20;
/**
 * Answer bytes held at most (parsed, an answer takes about three times its size in the heap): the transaction
 * being committed and the next one, so fetching keeps ahead of loading without holding a night's largest results.
 */
export const HOLD_BYTES = 2 * LOAD_BYTES;
/** A partial transaction is committed once no outcome arrived for this long. */
export const FLUSH_QUIET_MS = 100;
/** Outcomes per transaction at most, unless configured (collect.load_batch). */
const MAX_COUNT = 200;
/**
 * Outcomes held or reserved at most, in transactions: the one being committed and the next. An outcome costs the
 * heap more than its answer's bytes (parsed objects, its task, the producer's waiting promise): 16 MiB of answers
 * of 2 KB each held 7,208 outcomes and about 70 MB of heap in a night of small keyword tasks.
 */
const HOLD_TRANSACTIONS = 2;
/** The defaults, for what reports them (the benchmark). */
export const CHANNEL_LIMITS = { loadBytes: LOAD_BYTES, holdBytes: HOLD_BYTES, quietMs: FLUSH_QUIET_MS, maxCount: MAX_COUNT } as const;

export interface ChannelOptions {
  /** Commits one transaction's outcomes, rows and ledger moves together: all of them or none (it throws). */
  commit: (batch: readonly Outcome[]) => Promise<void>;
  maxCount?: number;
  maxBytes?: number;
  holdBytes?: number;
  /** Outcomes held or reserved at most (HOLD_TRANSACTIONS x maxCount by default). */
  holdCount?: number;
  /** Infinity: never cut on quiet, only at the limits, under back-pressure and at flush (a producer that says when it is done). */
  quietMs?: number;
}

/** An outcome handed over: `done` settles once its transaction committed (or failed). */
export interface Committed {
  done: Promise<void>;
}

/** Room reserved for an answer being fetched (see reserve): `admit` hands the answer over, `cancel` gives it back. */
export interface Hold {
  admit(o: Outcome, opts?: { now?: boolean }): Committed;
  cancel(): void;
}

interface Entry {
  o: Outcome;
  bytes: number;
  count: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Waiter {
  /** The answer's size when known (an outcome's, or the largest of a reservation's kind). */
  size: () => number | undefined;
  /** Lets it in: takes its room at once (an outcome is queued, a reservation holds its size). */
  go: () => void;
}

export class LoadChannel {
  private readonly queue: Entry[] = [];
  private queuedBytes = 0;
  private queuedCount = 0;
  /** Bytes and outcomes of the transaction being committed: still held until it ends. */
  private committingBytes = 0;
  private committingCount = 0;
  private reservedBytes = 0;
  private reservations = 0;
  /** By kind of answer (a task_get endpoint): the largest seen, what a reservation of it holds. */
  private readonly largest = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
  private running: Promise<void> | null = null;
  /** Entries up to this many from the front are cut without waiting for quiet (flush, `now`, back-pressure). */
  private cutThrough = 0;
  private lastInAt = 0;
  private lastCommitEndAt = 0;
  private quietTimer: NodeJS.Timeout | null = null;
  private readonly maxCount: number;
  private readonly maxBytes: number;
  private readonly holdBytes: number;
  private readonly holdCount: number;
  private readonly quietMs: number;
  readonly stats = { transactions: 0, outcomes: 0, waits: 0, maxHeldBytes: 0 };

  constructor(private readonly o: ChannelOptions) {
    this.maxCount = o.maxCount ?? MAX_COUNT;
    this.maxBytes = o.maxBytes ?? LOAD_BYTES;
    this.holdBytes = o.holdBytes ?? HOLD_BYTES;
    this.holdCount = o.holdCount ?? HOLD_TRANSACTIONS * this.maxCount;
    this.quietMs = o.quietMs ?? FLUSH_QUIET_MS;
  }

  /** Answer bytes held now: queued, and in the transaction being committed. */
  get heldBytes(): number {
    return this.queuedBytes + this.committingBytes;
  }

  /** Hands an outcome over, once the budget has room for it; resolves once it is committed. */
  async put(o: Outcome, opts: { now?: boolean } = {}): Promise<void> {
    await (await this.admit(o, opts)).done;
  }

  /** Hands an outcome over once the budget has room for it (back-pressure); its commit is `done`. */
  admit(o: Outcome, opts: { now?: boolean } = {}): Promise<Committed> {
    const bytes = bytesOfOutcome(o);
    if (!this.waiters.length && this.room(bytes)) return Promise.resolve(this.enqueue(o, bytes, opts.now === true));
    this.stats.waits++;
    return new Promise<Committed>((resolve) => {
      this.waiters.push({ size: () => bytes, go: () => resolve(this.enqueue(o, bytes, opts.now === true)) });
      this.pressed();
    });
  }

  /**
   * Reserves room for an answer of kind `sizeKey` before it is fetched: the largest answer of that kind seen so
   * far. Until one has come, the answer's size is unknown and it is let in only while nothing else is reserved.
   */
  reserve(sizeKey: string): Promise<Hold> {
    const grant = (): Hold => {
      const reserved = this.largest.get(sizeKey) ?? 0;
      this.reservations++;
      this.reservedBytes += reserved;
      let open = true;
      const release = () => {
        if (!open) return;
        open = false;
        this.reservations--;
        this.reservedBytes -= reserved;
      };
      return {
        admit: (o, opts = {}) => {
          const bytes = bytesOfOutcome(o);
          if (bytes > (this.largest.get(sizeKey) ?? 0)) this.largest.set(sizeKey, bytes);
          release();
          return this.enqueue(o, bytes, opts.now === true);
        },
        cancel: () => {
          release();
          this.admitWaiting();
        },
      };
    };
    if (!this.waiters.length && this.room(this.largest.get(sizeKey))) return Promise.resolve(grant());
    this.stats.waits++;
    return new Promise<Hold>((resolve) => {
      this.waiters.push({ size: () => this.largest.get(sizeKey), go: () => resolve(grant()) });
      this.pressed();
    });
  }

  /** Commits everything handed over so far, without waiting for quiet; resolves once it is committed. */
  async flush(): Promise<void> {
    const last = this.queue[this.queue.length - 1];
    if (!last) return this.running ?? undefined;
    this.cutThrough = this.queue.length;
    this.kick();
    await new Promise<void>((resolve) => {
      const r = last.resolve;
      const j = last.reject;
      last.resolve = () => { r(); resolve(); };
      last.reject = (err) => { j(err); resolve(); };
    });
  }

  /** Resolves once nothing handed over is waiting or being committed. */
  async idle(): Promise<void> {
    while (this.queue.length || this.running) {
      if (this.queue.length) await this.flush();
      else await this.running;
    }
  }

  // ---- admission --------------------------------------------------------------------------------------------

  /** Whether an answer of `bytes` (undefined: not known yet) may be held now. */
  private room(bytes: number | undefined): boolean {
    const count = this.queuedCount + this.committingCount + this.reservations;
    if (count === 0) return true;
    if (count >= this.holdCount) return false;
    if (this.reservations === 0 && this.heldBytes === 0) return true;
    if (bytes === undefined) return this.reservations === 0 && this.heldBytes < this.holdBytes;
    return this.heldBytes + this.reservedBytes + bytes <= this.holdBytes;
  }

  /** Lets waiting producers in, first come first served, while they fit. */
  private admitWaiting(): void {
    while (this.waiters.length && this.room(this.waiters[0].size())) this.waiters.shift()!.go();
  }

  /** A producer waits for room: what is queued is committed now rather than after the quiet time. */
  private pressed(): void {
    this.cutThrough = this.queue.length;
    this.kick();
  }

  // ---- transactions -----------------------------------------------------------------------------------------

  private enqueue(o: Outcome, bytes: number, now: boolean): Committed {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
    done.catch(() => undefined); // the producer that awaits it sees the failure; one that does not is not crashed by it
    const count = countOfOutcome(o);
    this.queue.push({ o, bytes, count, resolve, reject });
    this.queuedBytes += bytes;
    this.queuedCount += count;
    this.stats.maxHeldBytes = Math.max(this.stats.maxHeldBytes, this.heldBytes);
    this.lastInAt = performance.now();
    if (now || this.waiters.length) this.cutThrough = this.queue.length;
    this.kick();
    return { done };
  }

  /** Whether the front of the queue makes a transaction now. */
  private due(): boolean {
    if (!this.queue.length) return false;
    if (this.cutThrough > 0 || this.queuedCount >= this.maxCount || this.queuedBytes >= this.maxBytes) return true;
    return performance.now() - Math.max(this.lastInAt, this.lastCommitEndAt) >= this.quietMs;
  }

  private kick(): void {
    if (this.running) return;
    if (this.due()) {
      this.running = this.loop().finally(() => {
        this.running = null;
        this.kick();
      });
      return;
    }
    if (this.queue.length && !this.quietTimer && Number.isFinite(this.quietMs)) {
      // Quiet counts from the last outcome or the end of the last commit, whichever is later.
      const wait = Math.max(1, this.quietMs - (performance.now() - Math.max(this.lastInAt, this.lastCommitEndAt)));
      this.quietTimer = setTimeout(() => {
        this.quietTimer = null;
        this.kick();
      }, wait); // not unref'd: a producer may be waiting on this commit with nothing else keeping the process alive
    }
  }

  private async loop(): Promise<void> {
    if (this.quietTimer) {
      clearTimeout(this.quietTimer);
      this.quietTimer = null;
    }
    while (this.due()) {
      const batch = this.takeBatch();
      this.committingBytes = batch.reduce((n, e) => n + e.bytes, 0);
      this.committingCount = batch.reduce((n, e) => n + e.count, 0);
      try {
        await this.o.commit(batch.map((e) => e.o));
        this.stats.transactions++;
        this.stats.outcomes += batch.length;
        for (const e of batch) e.resolve();
      } catch (err) {
        for (const e of batch) e.reject(err);
      } finally {
        this.committingBytes = 0;
        this.committingCount = 0;
        this.lastCommitEndAt = performance.now();
        this.admitWaiting();
      }
    }
  }

  /** The front of the queue, up to maxCount outcomes and maxBytes of answers (at least one outcome). */
  private takeBatch(): Entry[] {
    let n = 0;
    let bytes = 0;
    let count = 0;
    while (n < this.queue.length) {
      const e = this.queue[n];
      if (n > 0 && (bytes + e.bytes > this.maxBytes || count + e.count > this.maxCount)) break;
      bytes += e.bytes;
      count += e.count;
      n++;
    }
    this.queuedBytes -= bytes;
    this.queuedCount -= count;
    this.cutThrough = Math.max(0, this.cutThrough - n);
    return this.queue.splice(0, n);
  }
}

/** What producers use of the channel. */
export type LoadPort = Pick<LoadChannel, 'admit' | 'reserve' | 'flush' | 'idle'>;
