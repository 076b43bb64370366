/** What the collector tracks and is given (collector.ts), and the fetching it hands to fetcher.ts. */
import type { ApiClient } from '../api/client.js';
import type { ApiTask } from '../api/envelope.js';
import type { Engines } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import type { LoadPort } from './outcome.js';
import type { PostedEcho } from './vouch.js';

export interface TrackedTask {
  key: string;
  serviceId: string;
  /** The task_post endpoint it was posted to. */
  postId: string;
  mode: 'tasks_ready' | 'pingback' | 'postback';
  /** For events: which task_get variant to fetch (postback_data), default advanced. */
  variant?: string;
  /** What was posted (postback tasks): a postback is checked against it without a ledger read (vouch.ts). */
  posted?: PostedEcho;
}

export interface CollectorOptions {
  client: ApiClient;
  engines: Engines;
  logger: Logger;
  /** The load channel: each result or failure goes there as an Outcome (rows and ledger state in one transaction). */
  load: LoadPort;
  /**
   * A task whose POST may or may not have reached the service turned up (listed by tasks_ready or announced by a
   * callback, matched by its tag): record its service id before it is fetched.
   */
  onAdopt?: (t: AmbiguousTask, serviceId: string) => Promise<void>;
  /** Ambiguous tasks not seen within `ambiguousGraceMs`: the service never created them; they may be posted again. */
  onGiveUp?: (ts: AmbiguousTask[]) => Promise<void>;
  ambiguousGraceMs?: number;
  /** Called for each task listed ready or announced by a callback. */
  onReady?: (t: TrackedTask) => void;
  /** Why a postback's task does not match what was posted (see vouch.ts), or undefined: only matching ones load. */
  vouch?: (t: TrackedTask, task: ApiTask) => Promise<string | undefined>;
  pollMinMs?: number;
  pollMaxMs?: number;
  /** After this long without a callback or a listing, look the task up by id. */
  stragglerAfterMs?: number;
  /** Outstanding task_get calls at most (the limiter paces them; this bounds memory). */
  maxInFlight?: number;
  /**
   * Where polled (tasks_ready) tasks wait: with a store, tracking one keeps nothing in memory, and the collector
   * holds only the tasks it fetches (and those it must look at again), so its memory does not grow with the night.
   */
  store?: WaitingStore;
  now?: () => number;
}

/**
 * Polled tasks waiting to be collected, kept outside the collector (the job's is the ledger: posted tasks not
 * loaded yet). A task stays waiting until its result (or failure) is recorded, so fetched tasks whose load is
 * still on its way are listed too: the collector skips those it holds.
 */
export interface WaitingStore {
  /** Waiting tasks, counted by the task_post endpoint they were posted to. */
  waiting(): Promise<{ postId: string; count: number }[]>;
  /** Of these service ids, the waiting tasks (the others are another run's, or collected already). */
  lookup(serviceIds: readonly string[]): Promise<TrackedTask[]>;
  /** Waiting tasks posted before `before` (epoch ms), oldest first, at most `limit`: stragglers never listed. */
  overdue(before: number, limit: number): Promise<TrackedTask[]>;
}

/** A task whose POST got no clear answer: known by its tag until the service shows its id. */
export interface AmbiguousTask {
  key: string;
  tag: string;
  postId: string;
  mode: TrackedTask['mode'];
  variant?: string;
  posted?: PostedEcho;
}

/**
 * A task held by the collector. `stored`: the task also waits in the store (so it is counted there, not here).
 * `resent`: its failed callback was re-sent (webhook_resend) once; if it still does not come, it is fetched by id.
 * `recovered`: a callback task fetched by id because its callback never came (counted once, for the summary).
 */
export type Pending = TrackedTask & { since: number; fetching: boolean; stored?: boolean; resent?: boolean; recovered?: boolean };
