/**
 * Fetching for the collector: each task_get waits for room for its answer in the load channel (the largest its
 * endpoint gave so far) and for one of maxInFlight calls, and its answer (or failure) goes to the channel as one
 * Outcome; the task stays `settling` until that commits.
 */
import { endpoint, findEndpoint, matchPath } from '../api/catalog.js';
import type { TaskOutcome } from '../api/client.js';
import type { ApiTask } from '../api/envelope.js';
import { dispositionOf } from '../api/status.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { Hold, Outcome } from './outcome.js';
import type { CollectorOptions, Pending, TrackedTask } from './types.js';

const NOT_READY = new Set([40601, 40602]);

/** An answer that says nothing about the task itself: ask again later. */
export function isTransient(code: number, transport: unknown): boolean {
  if (transport || code === 0 || NOT_READY.has(code)) return true;
  const d = dispositionOf(code);
  return d === 'retry' || d === 'slow_down';
}

/** The collector's books the fetcher keeps up to date. */
export interface Books {
  /** Tasks held by the collector, by service id. */
  pending: Map<string, Pending>;
  /** Service ids whose outcome is being committed: the post id when the task also waits in the store. */
  settling: Map<string, string | undefined>;
  stats: { taskGets: number };
  now: () => number;
  /** A failure that ends the collection (the drain loop throws it). */
  fail(err: unknown): void;
}

export class Fetcher {
  private inFlight = 0;
  /** Fetches not calling yet: waiting for room in the load channel or for a slot (see backlogCleared). */
  private queued = 0;
  private readonly slotWaiters: (() => void)[] = [];
  /** Resolves the drain loop once no fetch is queued (see backlogCleared). */
  private backlogWaiter: (() => void) | null = null;
  private readonly gets = new Set<Promise<void>>();
  /** Outcomes handed to the load channel and not committed yet. */
  private readonly commits = new Set<Promise<void>>();

  constructor(private readonly o: Pick<CollectorOptions, 'client' | 'engines' | 'load' | 'maxInFlight'>, private readonly books: Books) {}

  /** Resolves once every fetch has ended and every outcome handed over is committed. */
  async settled(): Promise<void> {
    await Promise.all([...this.gets]);
    await this.o.load.flush();
    await Promise.all([...this.commits]);
  }

  getIdFor(t: TrackedTask, task?: ApiTask): string {
    if (task?.path?.length) {
      const m = matchPath('GET', `/${task.path.join('/')}`, this.o.engines, { anyEngine: true });
      if (m && m.def.kind === 'task_get') return m.def.id;
    }
    const def = endpoint(t.postId);
    if (t.variant) {
      const variantId = `${def.getId?.replace(/\.[a-z]+$/, '')}.${t.variant}`;
      if (findEndpoint(variantId)?.kind === 'task_get') return variantId;
    }
    return def.getId!;
  }

  fetch(t: Pending): void {
    if (t.fetching) return;
    t.fetching = true;
    const run = (async () => {
      const getId = this.getIdFor(t);
      let hold: Hold | undefined;
      this.queued++;
      try {
        // Room for its answer in the load channel first (it waits while the answers held are at its budget), then
        // one of maxInFlight calls.
        hold = await this.o.load.reserve(getId);
        await this.acquireSlot();
      } finally {
        this.queued--;
        this.backlogMoved();
      }
      try {
        this.books.stats.taskGets++;
        const outcome: TaskOutcome = await this.o.client.taskGet(getId, t.serviceId);
        this.settle(t, outcome, hold);
        hold = undefined;
      } catch (err) {
        this.books.fail(err);
      } finally {
        hold?.cancel();
        this.releaseSlot();
      }
    })();
    this.gets.add(run);
    void run.finally(() => this.gets.delete(run));
  }

  /** Resolves once one of maxInFlight calls is free. */
  private acquireSlot(): Promise<void> {
    if (this.inFlight < (this.o.maxInFlight ?? 64)) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.slotWaiters.push(() => { this.inFlight++; resolve(); }));
  }

  private releaseSlot(): void {
    this.inFlight--;
    this.slotWaiters.shift()?.();
  }

  /** Waits until no fetch is queued (for room or a slot): before that, a poll would list the queued tasks again. */
  backlogCleared(): Promise<void> {
    if (this.queued === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.backlogWaiter = resolve;
    });
  }

  private backlogMoved(): void {
    if (this.queued > 0 || !this.backlogWaiter) return;
    const w = this.backlogWaiter;
    this.backlogWaiter = null;
    w();
  }

  /** A task_get's answer: the result handed to the load channel, a failure recorded, or the task left pending. */
  private settle(t: Pending, outcome: TaskOutcome, hold: Hold): void {
    if (outcome.ok) {
      this.push(t, { endpointId: this.getIdFor(t, outcome.task), task: outcome.task, version: outcome.version ?? '', bytes: outcome.bytes }, hold);
      return;
    }
    const { code, message } = outcome.error;
    if (isTransient(code, outcome.error.transport)) {
      // Not finished yet, or no answer about it after the client's retries: keep it pending for a later look.
      hold.cancel();
      t.fetching = false;
      t.since = this.books.now();
      return;
    }
    this.hand(t, { kind: 'failed', ref: t.serviceId, code, message }, hold);
  }

  /** A result in hand: leaving `pending` here is what makes a second postback or pingback of the same task a no-op. */
  push(t: TrackedTask, r: CollectedTask, hold?: Hold): void {
    this.hand(t, { kind: 'collected', results: [{ ...r, key: t.key }] }, hold);
  }

  /**
   * Hands a task's outcome to the load channel: through the room reserved for its fetch, or (a postback, whose
   * body is here already) once the channel admits it. The task stays `settling` until the outcome commits.
   */
  private hand(t: TrackedTask, o: Outcome, hold?: Hold): void {
    this.books.pending.delete(t.serviceId);
    this.books.settling.set(t.serviceId, (t as Pending).stored ? t.postId : undefined);
    const committed = (async () => {
      try {
        await (hold ? hold.admit(o) : await this.o.load.admit(o)).done;
      } catch (err) {
        this.books.fail(err);
      } finally {
        this.books.settling.delete(t.serviceId);
      }
    })();
    this.commits.add(committed);
    void committed.finally(() => this.commits.delete(committed));
  }
}
