/**
 * The sandbox's part of a family (src/sandbox/families/<family>/): handlers of its own endpoints, what its live endpoints
 * compute, and the result of its completed tasks by result kind. Every family's part is loaded once when a sandbox
 * starts (families/index.ts) into the context's `families`; the routes and the results read them from there.
 */
import type { ApiTask, Envelope } from '../api/envelope.js';
import type { EndpointDef, ResultKind } from '../catalog/endpoint.js';
import type { ApiRequest, SandboxContext } from './context.js';
import type { StoredTask } from './store.js';

/** `cost` when the bill depends on the answer (SERP crawl control and options); the price table's otherwise. */
export type LiveOutcome = { result: unknown[]; cost?: number } | { code: number; message: string };
export type LiveCompute = (task: Record<string, unknown>, req: ApiRequest, ctx: SandboxContext) => LiveOutcome;

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
