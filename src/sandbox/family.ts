/**
 * The sandbox's part of a family (src/families/<family>/): handlers of its own endpoints, what its live endpoints
 * compute, and the result of its completed tasks by result kind. Every family's part is loaded once when a sandbox
 * starts; the routes and the results read the loaded declarations instead of hand-written dispatch tables.
 */
import type { ApiTask, Envelope } from '../api/envelope.js';
import type { EndpointDef, ResultKind } from '../api/catalog.js';
import type { ApiRequest, SandboxContext } from './context.js';
import type { LiveCompute } from './handlers/live.js';
import type { StoredTask } from './store.js';
import { FAMILIES } from '../families/index.js';

export type Handler = (req: ApiRequest, ctx: SandboxContext) => Envelope;

/** The `result` of a completed task as of `at` (task_get and postbacks); `variant` is the postback's. */
export type ResultGenerator = (def: EndpointDef, task: StoredTask, ctx: SandboxContext, at: number, variant?: string) => unknown[];

/** A task_get answer for a family's special ids (the merchant sandbox's all-zero id); undefined for any other id. */
export type SpecialGet = (req: ApiRequest, ctx: SandboxContext) => ApiTask | undefined;

export interface FamilySandbox {
  /** Endpoints with an answer of their own (free lists, the account), by endpoint id. */
  handlers?: Readonly<Record<string, Handler>>;
  /** What each live endpoint computes, by endpoint id. */
  live?: Readonly<Record<string, LiveCompute>>;
  /** Results of completed tasks, by result kind. */
  results?: Readonly<Record<ResultKind, ResultGenerator>>;
  /** Special task ids of a task_get, by result kind. */
  specialGet?: Readonly<Record<ResultKind, SpecialGet>>;
  /** What a completed task was billed, by result kind, where the bill depends on its result (SERP); task_get reports it. */
  billed?: Readonly<Record<ResultKind, (def: EndpointDef, task: StoredTask, ctx: SandboxContext, at: number) => number>>;
  /** The declared answer for any endpoint the lines above leave out (generated families). */
  fallback?: (def: EndpointDef) => { handler?: Handler; live?: LiveCompute; result?: ResultGenerator } | undefined;
}

export interface LoadedSandboxes {
  handlers: Map<string, Handler>;
  live: Map<string, LiveCompute>;
  results: Map<ResultKind, ResultGenerator>;
  specialGet: Map<ResultKind, SpecialGet>;
  billed: Map<ResultKind, NonNullable<FamilySandbox['billed']>[string]>;
  fallbacks: NonNullable<FamilySandbox['fallback']>[];
}

let loaded: LoadedSandboxes | null = null;
let loading: Promise<LoadedSandboxes> | null = null;

/** Loads every family's sandbox part once (startSandbox awaits it before it listens). */
export function loadFamilySandboxes(): Promise<LoadedSandboxes> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async () => {
    const out: LoadedSandboxes = { handlers: new Map(), live: new Map(), results: new Map(), specialGet: new Map(), billed: new Map(), fallbacks: [] };
    for (const f of FAMILIES) {
      if (!f.sandbox) continue;
      const s = (await f.sandbox()).default;
      for (const [id, h] of Object.entries(s.handlers ?? {})) out.handlers.set(id, h);
      for (const [id, c] of Object.entries(s.live ?? {})) out.live.set(id, c);
      for (const [kind, g] of Object.entries(s.results ?? {})) out.results.set(kind, g);
      for (const [kind, g] of Object.entries(s.specialGet ?? {})) out.specialGet.set(kind, g);
      for (const [kind, b] of Object.entries(s.billed ?? {})) out.billed.set(kind, b);
      if (s.fallback) out.fallbacks.push(s.fallback);
    }
    return (loaded = out);
  })();
  return loading;
}

/** The loaded declarations; a sandbox that did not start through startSandbox has none. */
export function familySandboxes(): LoadedSandboxes {
  if (!loaded) throw new Error('the families\' sandbox parts are not loaded (startSandbox loads them)');
  return loaded;
}
