/** The state every handler shares, and the request as a handler sees it. */
import type { Config, Engines } from '../config/index.js';
import type { EndpointDef } from '../catalog/endpoint.js';
import type { SandboxClock } from './clock.js';
import type { TaskStore } from './store.js';
import type { Records } from './records.js';
import type { SandboxAccount } from './account.js';
import type { LoadedSandboxes } from './family.js';

export interface SandboxSettings {
  completionDelayMs: number;
  reparseShare: number;
  callbackTimeoutMs: number;
  keywordsPerSiteTask: number;
  suggestionsPerKeyword: number;
  merchantItems: number;
  /** Items a generated answer's list holds at most (sandbox.generated_items). */
  generatedItems: number;
  /** Above 0: results generated once per endpoint and seed modulo this, then served from resultCache. */
  resultVariants: number;
}

export interface SandboxContext {
  config: Config;
  engines: Engines;
  clock: SandboxClock;
  store: TaskStore;
  records: Records;
  settings: SandboxSettings;
  /** Funds, spending and duplicate limits, denied endpoints (set from the test controls). */
  account: SandboxAccount;
  /** Generated results kept for reuse (resultVariants), and how many answers came from it. */
  resultCache?: { results: Map<string, unknown[]>; hits: number; misses: number };
  /** The families' sandbox parts (src/sandbox/families/), loaded when the sandbox starts. */
  families: LoadedSandboxes;
  /** Called after a task with a callback is stored, so its delivery gets scheduled. */
  onCallbackScheduled(): void;
}

export interface ApiRequest {
  def: EndpointDef;
  /** The task id in the path of task_get endpoints. */
  id?: string;
  /** Request path without the query. */
  path: string;
  query: URLSearchParams;
  /** The parsed POST body (always an array once it reaches a handler); empty for GET. */
  body: unknown[];
  startedNs: bigint;
  now: number;
  /** Draws whether the next task gets an injected 50000. */
  taskFault(): boolean;
}
