/**
 * Collection: turns posted tasks into loaded rows.
 *
 * - tasks_ready mode (the default): poll each family's tasks_ready, then task_get each listed task of ours.
 *   Polls back off while nothing is listed, and a full page (1000) is followed by the next poll as soon as no
 *   fetch is left waiting for a slot: the service lists a task until task_get collects it, oldest first, so a
 *   poll made while the last page is still queued lists those same tasks again and is wasted. A night of
 *   10,000 tasks costs one call per task plus a poll per thousand or so.
 * - pingback: the receiver's GET names the task; we task_get it.
 * - postback: the receiver's POST carries the result; no API call at all.
 * - Stragglers: after `stragglerAfterMs`, a task whose callback E13 lists as failed is re-sent by the service
 *   (webhook_resend, free); one whose callback still never came (or that tasks_ready never listed) is fetched by id; 40601/40602 (not ready yet) keep it waiting, and so do
 *   answers that say nothing about the task (transport failures, rate-limit and 50000-range answers after the
 *   client's retries): a task paid for is never given up because the service was briefly unwell.
 * - A callback for a task not known yet (its POST answer is still being recorded) is declined, so the service
 *   lists the task instead of forgetting it, and remembered, so the task is fetched as soon as it is tracked.
 *
 * Every result (or failure) is handed to the load channel (src/load/channel.ts) as one Outcome: it decides the
 * transactions and commits each result's rows with its ledger move, so a crash loses no more than what it held,
 * which the ledger still shows as posted and a resume collects. Before a task_get is sent, the channel reserves
 * room for its answer (the largest its endpoint gave so far): fetching waits while the answers held are at the
 * channel's budget, so results arrive no faster than they load.
 */
import { endpoint } from '../api/catalog.js';
import { ApiError, type ReadyItem } from '../api/client.js';
import type { Envelope } from '../api/envelope.js';
import { Fetcher, isTransient } from './fetcher.js';
import { resendFailed } from './resend.js';
import type { AmbiguousTask, CollectorOptions, Pending, TrackedTask } from './types.js';

export type { AmbiguousTask, CollectorOptions, TrackedTask, WaitingStore } from './types.js';

/** Callbacks remembered for tasks not tracked yet, at most. */
const EARLY_MAX = 10_000;

export class Collector {
  private readonly pending = new Map<string, Pending>();
  /** By tag; `adopting` while the id its callback or listing gave is being recorded (still outstanding). */
  private readonly awaiting = new Map<string, AmbiguousTask & { since: number; adopting?: boolean }>();
  /** Service ids announced by a callback before they were tracked. */
  private readonly early = new Map<string, string | null>();
  /** By tasks_ready endpoint: when the last poll that listed everything ready (less than a full page) started. */
  private readonly lookedAt = new Map<string, number>();
  private readonly fetcher: Fetcher;
  private readonly now: () => number;
  private wake: (() => void) | null = null;
  private lastError: unknown;
  readonly stats = { polls: 0, taskGets: 0, callbacks: 0, recovered: 0, postbacksLoaded: 0, postbacksRefused: 0, resent: 0, duplicates: 0, foreign: 0, errorsLookups: 0 };

  /** Service ids whose result (or failure) is being committed: still waiting in the store until it commits. */
  private readonly settling = new Map<string, string | undefined>();

  constructor(private readonly o: CollectorOptions) {
    this.now = o.now ?? Date.now;
    const books = { pending: this.pending, settling: this.settling, stats: this.stats, now: this.now, fail: (err: unknown) => { this.lastError ??= err; } };
    this.fetcher = new Fetcher(o, books);
  }

  /** Tasks to collect; a service id already tracked is ignored. */
  track(tasks: readonly TrackedTask[]): void {
    for (const t of tasks) {
      if (this.pending.has(t.serviceId)) continue;
      // A polled task waits in the store until a poll lists it (or it is overdue); nothing of it is kept here.
      const stored = t.mode === 'tasks_ready' && this.o.store !== undefined;
      if (stored && !this.early.has(t.serviceId)) continue;
      const p: Pending = { ...t, since: this.now(), fetching: false, ...(stored ? { stored } : {}) };
      this.pending.set(t.serviceId, p);
      // Its callback came while the POST answer was being recorded: it is complete, fetch it now.
      if (this.early.delete(t.serviceId)) this.fetcher.fetch(p);
    }
    this.poke();
  }

  /**
   * Tasks to fetch by id now, whatever their collection mode: held here (not left in the store) until their
   * result is loaded. For tasks the ledger still has as posted once collection is over (see the job).
   */
  fetchNow(tasks: readonly TrackedTask[]): void {
    for (const t of tasks) {
      if (this.pending.has(t.serviceId) || this.settling.has(t.serviceId)) continue;
      const p: Pending = { ...t, since: this.now(), fetching: false };
      this.pending.set(t.serviceId, p);
      this.fetcher.fetch(p);
    }
    this.poke();
  }

  /** Tasks from a POST with no clear answer, to be recognised by their tags (they are never posted twice). */
  awaitTags(tasks: readonly AmbiguousTask[]): void {
    const fresh = tasks.filter((t) => !this.awaiting.has(t.tag));
    for (const t of fresh) this.awaiting.set(t.tag, { ...t, since: this.now() });
    // A wait of up to ambiguous_grace_ms looked like a hang ("900/1000 done, ETA ?"): say what for and until when.
    if (fresh.length) {
      const grace = this.o.ambiguousGraceMs ?? 600_000;
      const until = new Date(this.now() + grace).toISOString().replace('T', ' ').slice(0, 19);
      this.o.logger.warn({ tasks: fresh.length, until }, `${fresh.length} task(s) were being posted without a clear answer (an interrupted run or a lost connection): looking for them in the service's task lists by their tags until ${until} UTC (collect.ambiguous_grace_ms = ${Math.round(grace / 1000)} s), then posting those not found again`);
    }
    // A callback that came while the POST was still unanswered named the task by its tag: it was declined then
    // (and on the live service a postback task is never listed by tasks_ready), so it is adopted and fetched now.
    for (const [id, tag] of this.early) {
      if (!tag || !this.awaiting.has(tag)) continue;
      this.early.delete(id);
      void this.adopt(tag, id).then((t) => t && this.fetcher.fetch(t), (err) => { this.lastError ??= err; });
    }
    this.poke();
  }

  /** Tasks held in memory: callback tasks, and polled ones being fetched or looked at again (not those waiting in the store). */
  get held(): number {
    return this.pending.size;
  }

  /** Tasks not collected yet: tracked (held here or waiting in the store) and ambiguous ones. */
  async outstanding(): Promise<number> {
    return (await this.census()).outstanding;
  }

  /**
   * What is left, and which tasks_ready families have tasks a poll could list: waiting tasks not being fetched
   * or recorded, held tasks not being fetched, and ambiguous ones (a poll is what finds them).
   */
  private async census(): Promise<{ outstanding: number; families: Set<string> }> {
    const families = new Set<string>();
    let held = 0;
    const busy = new Map<string, number>();
    const count = (postId: string) => busy.set(postId, (busy.get(postId) ?? 0) + 1);
    for (const t of this.pending.values()) {
      if (!t.stored) held++;
      if (t.mode !== 'tasks_ready') continue;
      if (!t.fetching) {
        const ready = endpoint(t.postId).readyId;
        if (ready) families.add(ready);
      } else if (t.stored) count(t.postId);
    }
    for (const postId of this.settling.values()) if (postId) count(postId);
    let waiting = 0;
    for (const w of this.o.store ? await this.o.store.waiting() : []) {
      waiting += w.count;
      const ready = endpoint(w.postId).readyId;
      if (ready && w.count > (busy.get(w.postId) ?? 0)) families.add(ready);
    }
    for (const a of this.awaiting.values()) {
      if (a.adopting) continue;
      const ready = endpoint(a.postId).readyId;
      if (ready) families.add(ready);
    }
    return { outstanding: waiting + held + this.awaiting.size, families };
  }

  /**
   * Makes a task known by tag pending under the id the service gave it. It stays awaited (so counted outstanding)
   * until that id is recorded: the record waits its turn behind the writer's loads, and a task counted nowhere
   * meanwhile let the drain loop end with its result still to come (the task stayed `posted` after an exit 0).
   */
  private async adopt(tag: string | null | undefined, serviceId: string): Promise<Pending | undefined> {
    const a = tag ? this.awaiting.get(tag) : undefined;
    if (!a || a.adopting) return undefined;
    a.adopting = true;
    try {
      await this.o.onAdopt?.(a, serviceId);
    } catch (err) {
      a.adopting = false;
      throw err;
    }
    this.awaiting.delete(a.tag);
    const t: Pending = { key: a.key, serviceId, postId: a.postId, mode: a.mode, ...(a.variant ? { variant: a.variant } : {}), ...(a.posted ? { posted: a.posted } : {}), since: this.now(), fetching: false };
    this.pending.set(serviceId, t);
    return t;
  }

  /**
   * A pingback named a task: fetch it now. Returns false for an id that is not pending (not tracked yet, already
   * collected, another run's or forged): the receiver then declines it, and the id is remembered in case it is
   * tracked soon.
   */
  async onPingback(id: string, tag?: string | null): Promise<boolean> {
    this.stats.callbacks++;
    const t = this.pending.get(id) ?? (await this.adopt(tag, id));
    if (!t) {
      this.stats.duplicates++;
      this.remember(id, tag);
      return false;
    }
    this.o.onReady?.(t);
    this.fetcher.fetch(t);
    return true;
  }

  /**
   * A postback carried results: load them without an API call. Returns false when none of its tasks is pending.
   * `bytes`: the body's size, shared out among its tasks (see TaskOutcome.bytes).
   */
  async onPostback(envelope: Envelope, bytes = 0): Promise<boolean> {
    const share = Math.ceil(bytes / Math.max(1, envelope.tasks?.length ?? 1));
    this.stats.callbacks++;
    let taken = false;
    for (const task of envelope.tasks ?? []) {
      const tag = (task?.data as { tag?: string } | undefined)?.tag;
      const id = typeof task?.id === 'string' ? task.id : undefined;
      // The task it claims to be: one held, or one awaited by its tag (checked before its id is adopted, so a
      // forged body cannot give an awaited task a false id).
      const held = id ? this.pending.get(id) : undefined;
      const awaited = !held && id && tag ? this.awaiting.get(tag) : undefined;
      const claimed = held ?? (awaited && !awaited.adopting ? { ...awaited, serviceId: id! } : undefined);
      if (claimed && !held?.fetching) {
        const mismatch = await this.o.vouch?.(claimed, task);
        if (mismatch) {
          // Not the task posted (a forged or stray body): not loaded; the task waits for its genuine result.
          this.stats.postbacksRefused++;
          this.o.logger.warn({ task: claimed.key, service_id: id, why: mismatch }, 'postback does not match the task posted; not loaded');
          continue;
        }
      }
      // Another postback (or fetch) of the task may have been taken while this one was checked.
      const t = held ? (this.pending.get(held.serviceId) === held ? held : undefined) : id ? await this.adopt(tag, id) : undefined;
      if (!t || t.fetching) {
        this.stats.duplicates++;
        if (t || held) taken = true; // being fetched or loaded already
        else if (id) this.remember(id, tag);
        continue;
      }
      taken = true;
      this.o.onReady?.(t);
      if (task.status_code >= 40000 || !Array.isArray(task.result)) {
        // A postback of a failed task, or a truncated one: fetch it by id for the authoritative answer.
        this.fetcher.fetch(t);
        continue;
      }
      this.stats.postbacksLoaded++;
      this.fetcher.push(t, { endpointId: this.fetcher.getIdFor(t, task), task, version: envelope.version, bytes: share });
    }
    return taken;
  }

  private remember(id: string, tag: string | null | undefined): void {
    if (this.early.size >= EARLY_MAX) this.early.delete(this.early.keys().next().value!);
    this.early.set(id, tag ?? null);
  }

  /** Collects until nothing is pending or `deadline` (epoch ms) passes; returns how many are still pending. */
  async drain(deadline = Number.POSITIVE_INFINITY): Promise<number> {
    let delay = this.o.pollMinMs ?? 250;
    const maxDelay = this.o.pollMaxMs ?? 30_000;
    while ((await this.outstanding()) > 0 && this.now() < deadline) {
      if (this.lastError) throw this.lastError;
      let progressed = await this.expireAmbiguous();
      await this.fetcher.backlogCleared();
      const { families } = await this.census();
      if (families.size) {
        const listed = await this.pollReady(families);
        progressed = listed > 0;
        if (listed >= 1000) continue; // a full page: more are waiting
      }
      progressed = (await this.fetchStragglers()) || progressed;
      if ((await this.outstanding()) === 0) break;
      delay = progressed ? (this.o.pollMinMs ?? 250) : Math.min(maxDelay, Math.round(delay * 1.6));
      await this.idle(Math.min(delay, Math.max(0, deadline - this.now())));
    }
    await this.fetcher.settled();
    if (this.lastError) throw this.lastError;
    return this.outstanding();
  }

  // ---- polling -------------------------------------------------------------------------------------------------

  /**
   * An ambiguous task is given up only once a tasks_ready poll that began `ambiguousGraceMs` after it was sent has
   * listed everything ready without it: time alone is not proof (the run may have been busy posting other steps
   * and not looked at all), and giving up means posting it again.
   */
  private async expireAmbiguous(): Promise<boolean> {
    const grace = this.o.ambiguousGraceMs ?? 600_000;
    const expired = [...this.awaiting.values()].filter((a) => {
      if (a.adopting) return false;
      const ready = endpoint(a.postId).readyId;
      const looked = ready ? this.lookedAt.get(ready) : this.now();
      return looked !== undefined && looked - a.since >= grace;
    });
    if (!expired.length) return false;
    for (const a of expired) this.awaiting.delete(a.tag);
    await this.o.onGiveUp?.(expired);
    return true;
  }

  /** One tasks_ready call per family with tasks to list (see census); fetches the listed tasks of ours. */
  private async pollReady(families: ReadonlySet<string>): Promise<number> {
    let listed = 0;
    for (const readyId of families) {
      this.stats.polls++;
      let items: ReadyItem[];
      const started = this.now();
      try {
        items = await this.o.client.tasksReady(readyId);
      } catch (err) {
        // The list was unavailable after the client's retries: poll again later. Refusals (auth, payment) stop the run.
        if (!(err instanceof ApiError) || !isTransient(err.code, err.httpStatus >= 500 || err.httpStatus === 0)) throw err;
        this.o.logger.warn({ endpoint: readyId, err: err.message }, 'tasks_ready unavailable; polling again later');
        continue;
      }
      if (items.length < 1000) this.lookedAt.set(readyId, started);
      const unknown: string[] = [];
      for (const item of items) {
        const t = this.pending.get(item.id) ?? (await this.adopt(item.tag, item.id));
        if (!t) {
          if (!this.settling.has(item.id)) unknown.push(item.id);
          continue;
        }
        if (t.fetching) continue;
        listed++;
        this.o.onReady?.(t);
        this.fetcher.fetch(t);
      }
      // Not held here: waiting in the store, or another run's (or another client's) task.
      const found = unknown.length && this.o.store ? await this.o.store.lookup(unknown) : [];
      this.stats.foreign += unknown.length - found.length;
      for (const w of found) {
        const t = this.hold(w);
        if (!t || t.fetching) continue;
        listed++;
        this.o.onReady?.(t);
        this.fetcher.fetch(t);
      }
      listed = Math.max(listed, items.length >= 1000 ? 1000 : 0);
    }
    return listed;
  }

  /**
   * Callback tasks past their wait, and tasks_ready tasks never listed. A callback the service failed to deliver
   * (listed by E13) is re-sent first, for free (webhook_resend, docs/api-live.md [account.webhook_resend]); a task
   * whose re-sent callback does not come either, or that E13 does not list, is fetched by id.
   */
  private async fetchStragglers(): Promise<boolean> {
    const after = this.o.stragglerAfterMs ?? 60_000;
    const due = [...this.pending.values()].filter((t) => !t.fetching && this.now() - t.since >= after);
    if (this.o.store) {
      // Waiting tasks never listed: those held here already (looked at again by `since`) are skipped.
      for (const w of await this.o.store.overdue(this.now() - after, 1000 + this.pending.size)) {
        if (this.pending.has(w.serviceId)) continue;
        const t = this.hold(w);
        if (t) due.push(t);
      }
    }
    // A callback task is only a straggler once its callback is overdue; polled ones are fetched when listed.
    if (!due.length) return false;
    const resent = due.some((t) => t.mode !== 'tasks_ready' && !t.resent) ? await resendFailed(this.o, this.stats, due) : new Set<Pending>();
    for (const t of due) {
      t.since = this.now(); // wait another period before asking again if it is still queued
      if (resent.has(t)) continue;
      // A callback task fetched by id: its callback never came (counted once, for the summary).
      if (t.mode !== 'tasks_ready' && !t.recovered) { t.recovered = true; this.stats.recovered++; }
      this.fetcher.fetch(t);
    }
    return true;
  }

  /** A task from the store, held while it is fetched (undefined when its result is being recorded). */
  private hold(w: TrackedTask): Pending | undefined {
    const held = this.pending.get(w.serviceId);
    if (held) return held;
    if (this.settling.has(w.serviceId)) return undefined;
    const t: Pending = { ...w, since: this.now(), fetching: false, stored: true };
    this.pending.set(w.serviceId, t);
    return t;
  }

  // ---- fetching and loading ------------------------------------------------------------------------------------

  private poke(): void {
    this.wake?.();
  }

  private idle(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); resolve(); }
      this.wake = () => { this.wake = null; done(); };
    });
  }
}
