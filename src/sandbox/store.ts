/**
 * Tasks and their lifecycle (the reference's States table). Completion is computed from the clock rather than
 * driven by timers, so jumping the clock completes or expires tasks at once: a task is created at posting, is
 * complete from `completeAt`, is listed by tasks_ready until task_get collects it (unless a callback delivered
 * it) for three days after completing, and its results can be fetched for 30 days. Events tasks may be re-parsed and then appear in tasks_fixed
 * for 24 hours until collected again.
 */
import { randomUUID } from 'node:crypto';
import { DAY_MS } from './clock.js';
import { hashString } from './data/prng.js';
import type { JournalEvent, TaskJournal } from './journal.js';

export const RETENTION_MS = 30 * DAY_MS;
export const FIXED_WINDOW_MS = DAY_MS;
/** tasks_ready lists tasks completed in the last three days only (docs/api-live.md, [limits.ready_window]). */
export const READY_WINDOW_MS = 3 * DAY_MS;

export type Delivery = 'none' | 'pending' | 'in_flight' | 'delivered' | 'failed';

export interface StoredTask {
  id: string;
  /** The task_post endpoint id of the family, e.g. `serp.events.task_post`. */
  postId: string;
  /** The posted task as sent. */
  params: Record<string, unknown>;
  /** The `data` echo given at posting (api, function, se, se_type, params, defaults). */
  data: Record<string, unknown>;
  tag: string | null;
  cost: number;
  /** What the task was billed once done (SERP: pages crawled, options used), set when its result is first served. */
  billed?: number;
  /** Seed of the task's results: its endpoint and parameters, so equal tasks give equal results. */
  seed: number;
  postedAt: number;
  completeAt: number;
  collectedAt: number | null;
  callback: { kind: 'pingback' | 'postback'; url: string; variant: string | null } | null;
  delivery: Delivery;
  /** When the task's markup was re-parsed (events only); null when it never is. */
  reparsedAt: number | null;
  /** Collected by task_get after the re-parse. */
  fixedCollectedAt: number | null;
}

export type GetOutcome =
  | { status: 'ok'; task: StoredTask }
  | { status: 'not_found' }
  | { status: 'other_function'; task: StoredTask }
  | { status: 'in_queue'; task: StoredTask }
  | { status: 'expired'; task: StoredTask };

export interface NewTask {
  postId: string;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  cost: number;
  seed: number;
  now: number;
  completionDelayMs: number;
  /** Share of tasks of a re-parsable family whose markup gets re-parsed. */
  reparseShare: number;
  reparsable: boolean;
}

export class TaskStore {
  private tasks = new Map<string, StoredTask>();
  /** Per family, tasks not collected yet, in posting order: what tasks_ready scans. */
  private uncollected = new Map<string, Map<string, StoredTask>>();
  /** Re-parsed (or to be re-parsed) tasks not collected since, per family: what tasks_fixed scans. */
  private fixedCandidates = new Map<string, Map<string, StoredTask>>();
  /** Tasks whose callback has not been attempted yet, ordered by completion. */
  private dueCallbacks: StoredTask[] = [];

  /** With a journal, every change is written to it before the answer that reports it (journal.ts). */
  constructor(private readonly journal?: TaskJournal) {}

  /**
   * Rebuilds the store from a journal's events: tasks past retention are forgotten, a callback cut off in flight
   * is attempted again (its receiver may be gone; it then fails and the task is listed, as on the service).
   */
  restore(events: readonly JournalEvent[], now: number): void {
    for (const ev of events) {
      const task = ev.e === 'add' ? ev.task : this.tasks.get(ev.id);
      if (!task) continue;
      if (ev.e === 'add') this.tasks.set(task.id, task);
      else if (ev.e === 'collect') Object.assign(task, { collectedAt: ev.collectedAt, fixedCollectedAt: ev.fixedCollectedAt });
      else if (ev.e === 'delivery') task.delivery = ev.ok ? 'delivered' : 'failed';
      else { task.reparsedAt = ev.at; task.fixedCollectedAt = null; }
    }
    for (const task of [...this.tasks.values()].sort((a, b) => a.postedAt - b.postedAt)) {
      if (now - task.completeAt > RETENTION_MS) { this.tasks.delete(task.id); continue; }
      if (task.delivery === 'in_flight') task.delivery = 'pending';
      if (task.collectedAt === null && task.delivery !== 'delivered') this.bucket(this.uncollected, task.postId).set(task.id, task);
      if (task.reparsedAt !== null && task.fixedCollectedAt === null) this.bucket(this.fixedCandidates, task.postId).set(task.id, task);
      if (task.delivery === 'pending') this.insertDue(task);
    }
    this.journal?.rewrite(this.tasks.values());
  }

  /** The latest posting time among the tasks that fall on the UTC day of `at`, or null. */
  lastPostedOnDayOf(at: number): number | null {
    const day = Math.floor(at / DAY_MS);
    let last: number | null = null;
    for (const t of this.tasks.values()) if (Math.floor(t.postedAt / DAY_MS) === day && (last === null || t.postedAt > last)) last = t.postedAt;
    return last;
  }

  add(n: NewTask): StoredTask {
    const p = n.params;
    const tag = typeof p.tag === 'string' ? p.tag : null;
    const callback = typeof p.postback_url === 'string'
      ? { kind: 'postback' as const, url: p.postback_url, variant: typeof p.postback_data === 'string' ? p.postback_data : null }
      : typeof p.pingback_url === 'string'
        ? { kind: 'pingback' as const, url: p.pingback_url, variant: null }
        : null;
    const completeAt = n.now + n.completionDelayMs;
    // Whether a task is re-parsed follows from its parameters, so a rerun of the same plan sees the same share.
    const reparsed = n.reparsable && hashString(`reparse:${n.seed}`) / 4294967296 < n.reparseShare;
    const task: StoredTask = {
      id: randomUUID(),
      postId: n.postId,
      params: p,
      data: n.data,
      tag,
      cost: n.cost,
      seed: n.seed,
      postedAt: n.now,
      completeAt,
      collectedAt: null,
      callback,
      delivery: callback ? 'pending' : 'none',
      reparsedAt: reparsed ? completeAt + Math.max(n.completionDelayMs, 1) : null,
      fixedCollectedAt: null,
    };
    this.journal?.append({ e: 'add', task });
    this.tasks.set(task.id, task);
    this.bucket(this.uncollected, n.postId).set(task.id, task);
    if (reparsed) this.bucket(this.fixedCandidates, n.postId).set(task.id, task);
    if (callback) this.insertDue(task);
    return task;
  }

  get(id: string): StoredTask | undefined {
    return this.tasks.get(id);
  }

  all(): IterableIterator<StoredTask> {
    return this.tasks.values();
  }

  get size(): number {
    return this.tasks.size;
  }

  /** What task_get answers for an id on an endpoint of family `postId`; a successful get collects the task. */
  collect(id: string, postId: string, now: number, opts: { collect?: boolean } = {}): GetOutcome {
    const task = this.tasks.get(id);
    if (!task) return { status: 'not_found' };
    if (task.postId !== postId) return { status: 'other_function', task };
    if (now < task.completeAt) return { status: 'in_queue', task };
    if (now - task.completeAt > RETENTION_MS) return { status: 'expired', task };
    if (opts.collect !== false) {
      let changed = false;
      if (task.collectedAt === null) {
        task.collectedAt = now;
        this.uncollected.get(postId)?.delete(id);
        changed = true;
      }
      if (task.reparsedAt !== null && now >= task.reparsedAt && task.fixedCollectedAt === null) {
        task.fixedCollectedAt = now;
        this.fixedCandidates.get(postId)?.delete(id);
        changed = true;
      }
      if (changed) this.journal?.append({ e: 'collect', id, collectedAt: task.collectedAt, fixedCollectedAt: task.fixedCollectedAt });
    }
    return { status: 'ok', task };
  }

  /** Completed, uncollected, unexpired tasks of a family that no callback delivered, oldest first. */
  ready(postId: string, now: number, max: number): StoredTask[] {
    const out: StoredTask[] = [];
    const bucket = this.uncollected.get(postId);
    if (!bucket) return out;
    for (const task of bucket.values()) {
      if (now - task.completeAt > RETENTION_MS) {
        bucket.delete(task.id);
        continue;
      }
      if (now < task.completeAt || now - task.completeAt > READY_WINDOW_MS) continue;
      if (task.delivery !== 'none' && task.delivery !== 'failed') continue;
      out.push(task);
      if (out.length >= max) break;
    }
    return out;
  }

  /** Re-parsed tasks not collected since, within 24 hours of the re-parse. */
  fixed(postId: string, now: number, max: number): StoredTask[] {
    const out: StoredTask[] = [];
    const bucket = this.fixedCandidates.get(postId);
    if (!bucket) return out;
    for (const task of bucket.values()) {
      const at = task.reparsedAt!;
      if (now - at > FIXED_WINDOW_MS) {
        bucket.delete(task.id);
        continue;
      }
      if (now < at) continue;
      out.push(task);
      if (out.length >= max) break;
    }
    return out;
  }

  /** Records a callback's outcome; a delivered task leaves the ready scan for good (it is never listed). */
  setDelivery(task: StoredTask, ok: boolean): void {
    task.delivery = ok ? 'delivered' : 'failed';
    this.journal?.append({ e: 'delivery', id: task.id, ok });
    if (ok) this.uncollected.get(task.postId)?.delete(task.id);
  }

  /** Schedules a task's pingback or postback again (webhook_resend); it stays listed by tasks_ready until delivered. */
  requeueCallback(task: StoredTask): void {
    if (!task.callback || task.delivery === 'pending' || task.delivery === 'in_flight') return;
    if (task.delivery === 'delivered' && task.collectedAt === null) this.bucket(this.uncollected, task.postId).set(task.id, task);
    task.delivery = 'pending';
    this.insertDue(task);
  }

  /** Re-parses tasks now (a test control); ids that do not exist are returned. */
  reparse(ids: string[], now: number): string[] {
    const missing: string[] = [];
    for (const id of ids) {
      const task = this.tasks.get(id);
      if (!task) {
        missing.push(id);
        continue;
      }
      task.reparsedAt = Math.max(now, task.completeAt);
      task.fixedCollectedAt = null;
      this.journal?.append({ e: 'reparse', id, at: task.reparsedAt });
      this.bucket(this.fixedCandidates, task.postId).set(task.id, task);
    }
    return missing;
  }

  /** Tasks whose callback is due by `now`, removed from the due list and marked in flight. */
  takeDueCallbacks(now: number): StoredTask[] {
    let n = 0;
    while (n < this.dueCallbacks.length && this.dueCallbacks[n].completeAt <= now) n++;
    if (n === 0) return [];
    const due = this.dueCallbacks.splice(0, n);
    for (const t of due) t.delivery = 'in_flight';
    return due;
  }

  /** When the next callback is due, or null. */
  nextCallbackAt(): number | null {
    return this.dueCallbacks.length ? this.dueCallbacks[0].completeAt : null;
  }

  clear(): void {
    this.journal?.rewrite([]);
    this.tasks.clear();
    this.uncollected.clear();
    this.fixedCandidates.clear();
    this.dueCallbacks = [];
  }

  close(): void {
    this.journal?.close();
  }

  private insertDue(task: StoredTask): void {
    // Completion times arrive almost always in order; search from the end.
    let i = this.dueCallbacks.length;
    while (i > 0 && this.dueCallbacks[i - 1].completeAt > task.completeAt) i--;
    this.dueCallbacks.splice(i, 0, task);
  }

  private bucket(map: Map<string, Map<string, StoredTask>>, key: string): Map<string, StoredTask> {
    let b = map.get(key);
    if (!b) map.set(key, (b = new Map()));
    return b;
  }
}
