/**
 * The ledger's rows as the code reads them (tasks, runs), the values a write is given, and the helpers that read
 * rows and bind parameters, shared by the in-transaction moves (moves.ts) and the Ledger (ledger.ts).
 */
import { listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { CollectMode, Paging, PlannedTask } from '../pipeline/types.js';
import type { RunStatus, TaskState } from './schema.js';

export interface LedgerTask {
  runId: string;
  key: string;
  seq: number;
  step: string;
  stepIndex: number;
  endpointId: string;
  collect: CollectMode;
  params: Record<string, unknown>;
  paging?: Paging;
  tag: string | null;
  userTag: string | null;
  price: number;
  state: TaskState;
  serviceId: string | null;
  cost: number | null;
  batchId: string | null;
  attempts: number;
  pages: number;
  errorCode: number | null;
  errorMessage: string | null;
  plannedAt: string | null;
  postingAt: string | null;
  postedAt: string | null;
  readyAt: string | null;
  collectedAt: string | null;
  loadedAt: string | null;
  failedAt: string | null;
  updatedAt: string;
}

export interface RunRow {
  runId: string;
  pipeline: string;
  runDate: string;
  pipelineFile: string | null;
  budgetUsd: number | null;
  status: RunStatus;
  attempts: number;
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  note: string | null;
}

export interface RunSummary {
  run: RunRow;
  tasks: number;
  byState: Record<TaskState, number>;
  /** USD the service reported for this run's tasks. */
  costUsd: number;
  steps: { step: string; stepIndex: number; endpointId: string; tasks: number; byState: Record<TaskState, number>; costUsd: number }[];
  failures: { code: number | null; message: string | null; step: string; count: number }[];
}

/** Which tasks of a run (every one when empty). */
export interface TaskFilter {
  states?: readonly TaskState[];
  step?: string;
  collect?: readonly CollectMode[];
}

/** A task's place in planning order: where a page of tasks ends and the next begins. */
export interface TaskPosition {
  stepIndex: number;
  seq: number;
}

/**
 * Which posted tasks the job collects by polling tasks_ready: those of these task_post endpoints posted to be
 * polled, and every one an earlier attempt posted (its callbacks went to a receiver that is gone).
 */
export interface PollScope {
  endpoints: readonly string[];
  attemptStartedAt: Date;
}

/** A task waiting to be collected: what fetching it takes. */
export interface WaitingTask {
  key: string;
  serviceId: string;
  endpointId: string;
  /** The postback type it was posted with (events: which task_get variant to fetch). */
  postbackData: string | null;
}

/** A task, by its key or by the service's id. */
export type TaskRef = string;

export interface Failure {
  ref: TaskRef;
  code: number | null;
  message: string;
}

/** A task the service accepted: its id and the cost it reported. */
export interface PostedTask {
  key: string;
  serviceId: string;
  cost: number;
}

/** UTC as DuckDB reads a TIMESTAMP literal. */
export function ts(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

export const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));
export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toTask(r: Record<string, unknown>): LedgerTask {
  return {
    runId: String(r.run_id),
    key: String(r.task_key),
    seq: Number(r.seq),
    step: String(r.step),
    stepIndex: Number(r.step_index),
    endpointId: String(r.endpoint_id),
    collect: r.collect as CollectMode,
    params: JSON.parse(String(r.params)),
    ...(r.paging ? { paging: JSON.parse(String(r.paging)) as Paging } : {}),
    tag: (r.tag as string | null) ?? null,
    userTag: (r.user_tag as string | null) ?? null,
    price: Number(r.price),
    state: r.state as TaskState,
    serviceId: (r.service_id as string | null) ?? null,
    cost: num(r.cost),
    batchId: (r.batch_id as string | null) ?? null,
    attempts: Number(r.attempts),
    pages: Number(r.pages),
    errorCode: num(r.error_code),
    errorMessage: (r.error_message as string | null) ?? null,
    plannedAt: iso(r.planned_at),
    postingAt: iso(r.posting_at),
    postedAt: iso(r.posted_at),
    readyAt: iso(r.ready_at),
    collectedAt: iso(r.collected_at),
    loadedAt: iso(r.loaded_at),
    failedAt: iso(r.failed_at),
    updatedAt: iso(r.updated_at)!,
  };
}

export function toRun(r: Record<string, unknown>): RunRow {
  return {
    runId: String(r.run_id),
    pipeline: String(r.pipeline),
    runDate: String(r.run_date),
    pipelineFile: (r.pipeline_file as string | null) ?? null,
    budgetUsd: num(r.budget_usd),
    status: r.status as RunStatus,
    attempts: Number(r.attempts),
    startedAt: iso(r.started_at)!,
    updatedAt: iso(r.updated_at)!,
    finishedAt: iso(r.finished_at),
    note: (r.note as string | null) ?? null,
  };
}

export async function rows(conn: DuckDBConnection, sql: string, values: DuckDBValue[] = [], types?: DuckDBType[]): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql, values, types);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/**
 * A VARCHAR[] parameter. An empty list cannot be bound (its item type is unknown): a list of one empty string
 * stands for it, which matches no key, id, state, step or endpoint (a pipeline of live steps only polls none).
 */
export const strings = (xs: readonly string[]) => listValue(xs.length ? [...xs] : ['']);

/** The planned task a ledger row stands for (to post it after a resume with exactly the body first planned). */
export function toPlannedTask(t: LedgerTask): PlannedTask {
  return {
    key: t.key,
    runId: t.runId,
    step: t.step,
    stepIndex: t.stepIndex,
    endpointId: t.endpointId,
    params: t.params,
    ...(t.userTag !== null ? { userTag: t.userTag } : {}),
    collect: t.collect,
    ...(t.paging ? { paging: t.paging } : {}),
    price: t.price,
  };
}
