/**
 * The task ledger: durable state of every task of every run, in the working warehouse.
 *
 *   planned -> posting -> posted -> (ready) -> collected -> loaded
 *                  \-> planned (not sent after all)      any unfinished state -> failed (code, message)
 *
 * `posting` is written and committed BEFORE a batch is sent and `posted` (service id, cost) before the next batch
 * is sent, so a crash leaves at worst a `posting` batch: ambiguous, to be looked up by tag, never blindly re-sent.
 * Writes about posting commit on their own (Ledger methods). The collection-side moves (markReady, markCollected,
 * markLoaded, markFailed) never BEGIN or COMMIT: call them inside the transaction that writes the result's rows,
 * so rows and state change together. Use one connection for the Ledger's own writes and another for a loader's
 * transaction: a DuckDB transaction covers every statement on its connection.
 */
import { randomUUID } from 'node:crypto';
import { DOUBLE, LIST, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { CollectMode, Paging, PlannedTask } from '../pipeline/types.js';
import { LEDGER_DDL, TASK_STATES, type RunStatus, type TaskState } from './schema.js';

export { TASK_STATES, RUN_STATUSES, type TaskState, type RunStatus } from './schema.js';
export { acquireRunLock, acquireRunLockWaiting, parseWait, DEFAULT_WAIT_MS, readRunLock, LockedError, type LockInfo, type RunLock, type AcquireOptions } from './lock.js';

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

// Parameters: $1 run id, $2 task_post endpoints, $3 when this attempt started.
const POLL_WAITING = `run_id = $1 AND state IN ('posted', 'ready') AND service_id IS NOT NULL
  AND list_contains($2::VARCHAR[], endpoint_id) AND (collect = 'tasks_ready' OR posted_at < $3::TIMESTAMP)`;
const WAITING_COLUMNS = `task_key, service_id, endpoint_id, json_extract_string(params, '$.postback_data') AS postback_data`;
const toWaiting = (r: Record<string, unknown>): WaitingTask => ({
  key: String(r.task_key),
  serviceId: String(r.service_id),
  endpointId: String(r.endpoint_id),
  postbackData: (r.postback_data as string | null) ?? null,
});

/** Tasks per page when the job walks a run's tasks (Ledger.pages). */
export const TASK_PAGE = 1000;

/** A task, by its key or by the service's id. */
export type TaskRef = string;

export interface Failure {
  ref: TaskRef;
  code: number | null;
  message: string;
}

type Clock = () => Date;

/** UTC as DuckDB reads a TIMESTAMP literal. */
function ts(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toTask(r: Record<string, unknown>): LedgerTask {
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

function toRun(r: Record<string, unknown>): RunRow {
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

async function rows(conn: DuckDBConnection, sql: string, values: DuckDBValue[] = [], types?: DuckDBType[]): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql, values, types);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/**
 * A VARCHAR[] parameter. An empty list cannot be bound (its item type is unknown): a list of one empty string
 * stands for it, which matches no key, id, state, step or endpoint (a pipeline of live steps only polls none).
 */
const strings = (xs: readonly string[]) => listValue(xs.length ? [...xs] : ['']);

/** Task keys as the planner makes them (24 hex characters); anything else is taken for a service id too. */
const KEY_FORMAT = /^[0-9a-f]{24}$/;

/**
 * The seq numbers a set of tasks lies within (seq is unique in the ledger and grows with planning). Given to a
 * write, it finds its tasks by that range first instead of scanning the run: the cost of a batch's state change
 * then stays the same whatever the size of the run or of the ledger's history.
 */
export interface SeqSpan {
  from: number;
  to: number;
}

export function seqSpan(tasks: readonly { seq: number }[]): SeqSpan | undefined {
  if (tasks.length === 0) return undefined;
  let from = tasks[0].seq;
  let to = from;
  for (const t of tasks) {
    if (t.seq < from) from = t.seq;
    if (t.seq > to) to = t.seq;
  }
  return { from, to };
}

/**
 * The condition that picks a write's tasks; the refs are parameter `$at` and a span's bounds follow it. Within a
 * narrow span (refs are then keys), the key list is checked on the few rows of the range only. Otherwise a
 * semi-join on the key (and on the service id, unless `keys` says the refs are keys or every ref looks like one)
 * reads the whole run. A wide span gains nothing: each row in it would be checked against the whole list.
 */
function matchRefs(refs: readonly string[], span: SeqSpan | undefined, at: number, opts: { keys?: boolean } = {}): { sql: string; values: DuckDBValue[] } {
  if (span && span.to - span.from < 8 * refs.length + 64) {
    return { sql: `seq BETWEEN $${at + 1} AND $${at + 2} AND list_contains($${at}::VARCHAR[], task_key)`, values: [strings(refs), span.from, span.to] };
  }
  // Keys and service ids look different; matching only the column the refs can be is several times faster.
  const sql = opts.keys || refs.every((r) => KEY_FORMAT.test(r))
    ? `task_key IN (SELECT unnest($${at}::VARCHAR[]))`
    : `(task_key IN (SELECT unnest($${at}::VARCHAR[])) OR service_id IN (SELECT unnest($${at}::VARCHAR[])))`;
  return { sql, values: [strings(refs)] };
}

/**
 * Moves tasks (matched by key or service id within a run) from one of `from` to `to`, setting `<to>_at`. With
 * `span`, refs are keys of tasks within it (see SeqSpan). No BEGIN/COMMIT: it joins whatever transaction the
 * connection is in. Returns the keys that moved. The keys are selected first and updated by key: an UPDATE with
 * RETURNING costs several times more.
 */
async function move(conn: DuckDBConnection, runId: string, refs: readonly TaskRef[], from: readonly TaskState[], to: TaskState, now: Date, extra = '', span?: SeqSpan, set: SetValues = {}): Promise<string[]> {
  if (refs.length === 0) return [];
  const match = matchRefs(refs, span, 3);
  const selected = await rows(conn, `SELECT task_key FROM _tasks WHERE run_id = $1 AND list_contains($2::VARCHAR[], state) AND ${match.sql}`, [runId, strings(from), ...match.values]);
  const keys = selected.map((x) => String(x.task_key));
  if (keys.length) await moveKeys(conn, runId, keys, from, to, now, extra, span, set);
  return keys;
}

/** Columns a move sets to a value, bound as parameters (with the type each is bound as). */
interface SetValues {
  error_code?: number | null;
  error_message?: string | null;
  batch_id?: string | null;
}
const SET_TYPES: Record<keyof SetValues, string> = { error_code: 'INTEGER', error_message: 'VARCHAR', batch_id: 'VARCHAR' };

/** The UPDATE of move, for refs known to be keys: how many tasks moved. */
async function moveKeys(conn: DuckDBConnection, runId: string, keys: readonly string[], from: readonly TaskState[], to: TaskState, now: Date, extra: string, span?: SeqSpan, set: SetValues = {}): Promise<number> {
  const byKey = matchRefs(keys, span, 5, { keys: true });
  const columns = Object.keys(set) as (keyof SetValues)[];
  const at = 5 + byKey.values.length;
  const assigned = columns.map((c, i) => `, ${c} = $${at + i}::${SET_TYPES[c]}`).join('');
  const r = await conn.run(
    `UPDATE _tasks SET state = $1, ${to}_at = $2::TIMESTAMP, updated_at = $2::TIMESTAMP${extra}${assigned}
     WHERE run_id = $3 AND list_contains($4::VARCHAR[], state) AND ${byKey.sql}`,
    [to, ts(now), runId, strings(from), ...byKey.values, ...columns.map((c) => set[c] ?? null)],
  );
  return Number(r.rowsChanged);
}

/** A failure's code and message as a move sets them. */
const errorOf = (f: Failure): SetValues => ({ error_code: f.code === null ? null : Math.trunc(f.code), error_message: f.message });

/** Completed and waiting to be fetched (listed by tasks_ready, or announced by a pingback). In-transaction safe. */
export function markReady(conn: DuckDBConnection, runId: string, refs: readonly TaskRef[], opts: { now?: Date } = {}): Promise<string[]> {
  return move(conn, runId, refs, ['posted'], 'ready', opts.now ?? new Date());
}

/**
 * The result is in hand (fetched, received by postback, or answered live). `pages` adds the pages a paged live
 * call fetched. In-transaction safe.
 */
export function markCollected(conn: DuckDBConnection, runId: string, refs: readonly TaskRef[], opts: { now?: Date; pages?: number } = {}): Promise<string[]> {
  const pages = opts.pages !== undefined ? `, pages = pages + ${Math.max(0, Math.floor(opts.pages))}` : '';
  return move(conn, runId, refs, ['posted', 'ready', 'collected'], 'collected', opts.now ?? new Date(), pages);
}

/**
 * The result's rows are written. Call it in the transaction that writes them. Also from `loaded` (a re-parsed
 * task from tasks_fixed is loaded again). With `collected` (and `pages`), the result came in with its rows: one
 * move does what markCollected and markLoaded do, and a task already loaded keeps when it was collected and its
 * pages. In-transaction safe.
 */
export function markLoaded(conn: DuckDBConnection, runId: string, refs: readonly TaskRef[], opts: { now?: Date; collected?: boolean; pages?: number } = {}): Promise<string[]> {
  const collected = opts.collected ? `, collected_at = CASE WHEN state = 'loaded' THEN collected_at ELSE $2::TIMESTAMP END` : '';
  const pages = opts.pages !== undefined ? `, pages = CASE WHEN state = 'loaded' THEN pages ELSE pages + ${Math.max(0, Math.floor(opts.pages))} END` : '';
  return move(conn, runId, refs, ['posted', 'ready', 'collected', 'loaded'], 'loaded', opts.now ?? new Date(), collected + pages);
}

/**
 * The cost the service reported in a task's result (SERP: after the refunds of pages not crawled and options not
 * used), replacing what posting reserved; the run's spend and the budget follow it. In-transaction safe.
 */
export async function recordBilled(conn: DuckDBConnection, runId: string, billed: readonly { ref: TaskRef; cost: number }[]): Promise<void> {
  if (billed.length === 0) return;
  const match = matchRefs(billed.map((b) => b.ref), undefined, 3);
  // One statement: each row takes its cost from the list by the position of its key (or service id).
  await conn.run(
    `UPDATE _tasks SET cost = list_extract($2::DOUBLE[], coalesce(nullif(list_position($3::VARCHAR[], task_key), 0), list_position($3::VARCHAR[], service_id)))
     WHERE run_id = $1 AND ${match.sql}`,
    [runId, listValue(billed.map((b) => b.cost)), ...match.values],
    COSTS_AT_2,
  );
}
const COSTS_AT_2: DuckDBType[] = [];
COSTS_AT_2[1] = LIST(DOUBLE);

/** A task the service answered with an error (status >= 40000, or no result). In-transaction safe. */
export async function markFailed(conn: DuckDBConnection, runId: string, failures: readonly Failure[], opts: { now?: Date } = {}): Promise<string[]> {
  const now = opts.now ?? new Date();
  const moved: string[] = [];
  // One statement per distinct error keeps the codes and messages exact without a per-row loop.
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    const k = `${f.code}\u0000${f.message}`;
    const g = groups.get(k);
    if (g) g.push(f);
    else groups.set(k, [f]);
  }
  for (const group of groups.values()) {
    for (const k of await move(conn, runId, group.map((f) => f.ref), ['planned', 'posting', 'posted', 'ready', 'collected'], 'failed', now, '', undefined, errorOf(group[0]))) moved.push(k);
  }
  return moved;
}

/**
 * A live call's answer: the service's id and the cost it reported, moved from `posting` to `posted` in the
 * caller's transaction, so a live call's rows and its posted state commit together (a crash between two
 * separate commits would leave an answer that was paid for but never loaded). No BEGIN/COMMIT. Returns the keys
 * that moved.
 */
export async function markPosted(conn: DuckDBConnection, runId: string, posted: readonly PostedTask[], opts: { now?: Date; span?: SeqSpan } = {}): Promise<string[]> {
  const byKey = new Map<string, PostedTask>();
  for (const p of posted) if (!byKey.has(p.key)) byKey.set(p.key, p);
  if (byKey.size === 0) return [];
  const set = [...byKey.values()];
  const now = ts(opts.now ?? new Date());
  const match = matchRefs([...byKey.keys()], opts.span, 5, { keys: true });
  // Updated first, selected only when some task was not `posting`: one statement for a batch in the usual case.
  // Each row takes its service id and cost from the lists by the position of its key: no join.
  const values = [runId, strings(set.map((p) => p.serviceId)), listValue(set.map((p) => p.cost)), now, ...match.values];
  const r = await conn.run(
    `UPDATE _tasks SET state = 'posted', service_id = list_extract($2::VARCHAR[], list_position($5::VARCHAR[], task_key)),
            cost = list_extract($3::DOUBLE[], list_position($5::VARCHAR[], task_key)),
            posted_at = $4::TIMESTAMP, updated_at = $4::TIMESTAMP, error_code = NULL, error_message = NULL
     WHERE run_id = $1 AND state = 'posting' AND ${match.sql}`,
    values,
    COSTS_AT_3,
  );
  if (Number(r.rowsChanged) === set.length) return set.map((p) => p.key);
  // Those this call moved carry its time and the service id and cost it gave them.
  const moved = await rows(
    conn,
    `SELECT task_key FROM _tasks WHERE run_id = $1 AND state = 'posted' AND posted_at = $4::TIMESTAMP
       AND service_id = list_extract($2::VARCHAR[], list_position($5::VARCHAR[], task_key))
       AND cost = list_extract($3::DOUBLE[], list_position($5::VARCHAR[], task_key)) AND ${match.sql}`,
    values,
    COSTS_AT_3,
  );
  const keys = new Set(moved.map((x) => String(x.task_key)));
  return set.filter((p) => keys.has(p.key)).map((p) => p.key);
}

/**
 * Planned tasks to `posting`, BEFORE their call is sent; returns the keys that moved (only those may be sent: a
 * key already posting or posted by an earlier attempt is left out, so nothing is sent twice). No BEGIN/COMMIT.
 */
export async function markPosting(conn: DuckDBConnection, runId: string, keys: readonly string[], opts: { now?: Date; batchId?: string; span?: SeqSpan } = {}): Promise<string[]> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return [];
  const batchId = opts.batchId ?? randomUUID();
  // Updated first, selected only when some task was not `planned`: one statement for a batch in the usual case.
  const n = await moveKeys(conn, runId, unique, ['planned'], 'posting', opts.now ?? new Date(), ', attempts = attempts + 1', opts.span, { batch_id: batchId });
  if (n === unique.length) return unique;
  const r = await rows(conn, `SELECT task_key FROM _tasks WHERE run_id = ? AND batch_id = ? ORDER BY seq`, [runId, batchId]);
  return r.map((x) => String(x.task_key));
}

/**
 * Tasks the service refused when they were sent (a task-level error, nothing created). With `retry` (rate limit,
 * a 5xx-range code) they go back to `planned` with the error kept, to be sent again; otherwise `failed`. No BEGIN/COMMIT.
 */
export async function markPostFailed(conn: DuckDBConnection, runId: string, failures: readonly (Failure & { retry?: boolean })[], opts: { now?: Date } = {}): Promise<string[]> {
  const moved: string[] = [];
  const now = opts.now ?? new Date();
  for (const f of failures.filter((x) => x.retry)) {
    for (const k of await move(conn, runId, [f.ref], ['posting'], 'planned', now, '', undefined, { ...errorOf(f), batch_id: null })) moved.push(k);
  }
  const groups = new Map<string, Failure[]>();
  for (const f of failures.filter((x) => !x.retry)) {
    const k = `${f.code}\u0000${f.message}`;
    const g = groups.get(k);
    if (g) g.push(f);
    else groups.set(k, [f]);
  }
  for (const g of groups.values()) {
    for (const k of await move(conn, runId, g.map((f) => f.ref), ['posting'], 'failed', now, '', undefined, errorOf(g[0]))) moved.push(k);
  }
  return moved;
}

/** Posting tasks that certainly never reached the service (or that it never created): back to `planned`. No BEGIN/COMMIT. */
export function markReleased(conn: DuckDBConnection, runId: string, keys: readonly string[], opts: { now?: Date; reason?: string } = {}): Promise<string[]> {
  return move(conn, runId, keys, ['posting'], 'planned', opts.now ?? new Date(), '', undefined, { ...(opts.reason ? { error_message: opts.reason } : {}), batch_id: null });
}

/** Binds parameter 3 as DOUBLE[]: a list is otherwise typed by its first element, and [0, 0.5] fails as INTEGER[]. */
const COSTS_AT_3: DuckDBType[] = [];
COSTS_AT_3[2] = LIST(DOUBLE);

/** A task the service accepted: its id and the cost it reported. */
export interface PostedTask {
  key: string;
  serviceId: string;
  cost: number;
}

export interface OpenRunInput {
  runId: string;
  pipeline: string;
  runDate: string;
  pipelineFile?: string;
  budgetUsd?: number;
  /** Tracked domains of the steps tied to a target (pipeline `targets:`); replaced on each attempt. */
  targets?: readonly { step: string; target: string; domain: string }[];
}

/** Runs writes one at a time: the warehouse's one writer (src/load/writer.ts) in the job, a chain of its own otherwise. */
export type WriteQueue = <T>(work: () => Promise<T>) => Promise<T>;
/** Runs a read beside the writes: the writer's `beside` in the job (not while DuckDB's memory limit is lowered). */
export type ReadGate = <T>(work: () => Promise<T>) => Promise<T>;

function ownQueue(): WriteQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = tail.then(work);
    tail = run.catch(() => undefined);
    return run;
  };
}

export class Ledger {
  private constructor(
    readonly conn: DuckDBConnection,
    private readonly clock: Clock,
    private readonly queue: WriteQueue,
    private readonly gate: ReadGate,
  ) {}

  /**
   * Creates the ledger tables when missing. `queue`: whose turns its writes take (the warehouse's writer); `read`:
   * what its reads run beside (the writer's, so none runs while a rest has DuckDB's memory limit lowered).
   */
  static async open(conn: DuckDBConnection, opts: { clock?: Clock; readOnly?: boolean; queue?: WriteQueue; read?: ReadGate } = {}): Promise<Ledger> {
    // readOnly: for `status` on a warehouse opened read-only, where the tables already exist.
    if (!opts.readOnly) for (const ddl of LEDGER_DDL) await conn.run(ddl);
    return new Ledger(conn, opts.clock ?? (() => new Date()), opts.queue ?? ownQueue(), opts.read ?? ((work) => work()));
  }

  /** A read of the ledger's tables, through the read gate. */
  private read(sql: string, values: DuckDBValue[] = [], types?: DuckDBType[]): Promise<Record<string, unknown>[]> {
    return this.gate(() => rows(this.conn, sql, values, types));
  }

  private now(): Date {
    return this.clock();
  }

  // ---- runs --------------------------------------------------------------------------------------------

  /** Starts a run, or resumes the run of the same id (same pipeline and day): `resumed` says which. */
  openRun(input: OpenRunInput): Promise<{ run: RunRow; resumed: boolean }> {
    return this.queue(() => this.openRunNow(input));
  }

  private async openRunNow(input: OpenRunInput): Promise<{ run: RunRow; resumed: boolean }> {
    const now = ts(this.now());
    const existing = await this.run(input.runId);
    if (existing) {
      await this.conn.run(
        `UPDATE _runs SET status = 'running', attempts = attempts + 1, updated_at = ?::TIMESTAMP, finished_at = NULL,
           pipeline_file = coalesce(?, pipeline_file), budget_usd = coalesce(?, budget_usd) WHERE run_id = ?`,
        [now, input.pipelineFile ?? null, input.budgetUsd ?? null, input.runId],
      );
    } else {
      await this.conn.run(
        `INSERT INTO _runs (run_id, pipeline, run_date, pipeline_file, budget_usd, status, attempts, started_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'running', 1, ?::TIMESTAMP, ?::TIMESTAMP)`,
        [input.runId, input.pipeline, input.runDate, input.pipelineFile ?? null, input.budgetUsd ?? null, now, now],
      );
    }
    if (input.targets) {
      await this.conn.run(`DELETE FROM _targets WHERE run_id = ?`, [input.runId]);
      for (const t of input.targets) await this.conn.run(`INSERT OR REPLACE INTO _targets (run_id, step, target, domain, updated_at) VALUES (?, ?, ?, ?, ?::TIMESTAMP)`, [input.runId, t.step, t.target, t.domain, now]);
    }
    const run = (await this.run(input.runId))!;
    await this.conn.run(
      `INSERT OR REPLACE INTO _attempts (run_id, attempt, started_at, status, updated_at) VALUES (?, ?, ?::TIMESTAMP, 'running', ?::TIMESTAMP)`,
      [input.runId, run.attempts, now, now],
    );
    return { run, resumed: existing !== undefined };
  }

  async finishRun(runId: string, status: Exclude<RunStatus, 'running'>, note?: string): Promise<void> {
    const now = ts(this.now());
    await this.queue(async () => {
      await this.conn.run(`UPDATE _runs SET status = ?, updated_at = ?::TIMESTAMP, finished_at = ?::TIMESTAMP, note = ? WHERE run_id = ?`, [status, now, now, note ?? null, runId]);
      await this.conn.run(
        `UPDATE _attempts SET status = ?, finished_at = ?::TIMESTAMP, updated_at = ?::TIMESTAMP WHERE run_id = ? AND attempt = (SELECT attempts FROM _runs WHERE run_id = ?)`,
        [status, now, now, runId, runId],
      );
    });
  }

  async run(runId: string): Promise<RunRow | undefined> {
    const r = await this.read(`SELECT * FROM _runs WHERE run_id = ?`, [runId]);
    return r[0] ? toRun(r[0]) : undefined;
  }

  /** Runs, newest first. */
  async runs(opts: { pipeline?: string; limit?: number } = {}): Promise<RunRow[]> {
    const r = await this.read(
      `SELECT * FROM _runs WHERE (? IS NULL OR pipeline = ?) ORDER BY started_at DESC, run_id DESC LIMIT ?`,
      [opts.pipeline ?? null, opts.pipeline ?? null, opts.limit ?? 50],
    );
    return r.map(toRun);
  }

  /** The latest run that did not complete (crashed, killed, stopped by budget or aborted): what `resume` picks. */
  async lastUnfinishedRun(pipeline?: string): Promise<RunRow | undefined> {
    const r = await this.read(
      `SELECT * FROM _runs WHERE status <> 'completed' AND (? IS NULL OR pipeline = ?) ORDER BY updated_at DESC, run_id DESC LIMIT 1`,
      [pipeline ?? null, pipeline ?? null],
    );
    return r[0] ? toRun(r[0]) : undefined;
  }

  // ---- planning and posting (each commits on its own) ------------------------------------------------------

  /** Records planned tasks; tasks already in the ledger for the run (same key) are left as they are. */
  planTasks(tasks: readonly PlannedTask[]): Promise<{ inserted: number; existing: number }> {
    if (tasks.length === 0) return Promise.resolve({ inserted: 0, existing: 0 });
    return this.queue(() => this.planNow(tasks));
  }

  private async planNow(tasks: readonly PlannedTask[]): Promise<{ inserted: number; existing: number }> {
    const now = ts(this.now());
    let inserted = 0;
    const byRun = new Map<string, PlannedTask[]>();
    for (const t of tasks) {
      const list = byRun.get(t.runId);
      if (list) list.push(t);
      else byRun.set(t.runId, [t]);
    }
    // Staged through the appender: binding long lists as parameters is far slower at this size.
    const staging = `_plan_${randomUUID().replace(/-/g, '')}`;
    await this.conn.run(`CREATE TEMP TABLE ${staging} (k VARCHAR, s INTEGER, st VARCHAR, si INTEGER, e VARCHAR, c VARCHAR, p VARCHAR, pg VARCHAR, tg VARCHAR, ut VARCHAR, pr DOUBLE)`);
    try {
      for (const [runId, list] of byRun) {
        // seq grows across runs, not per run: a run's rows then hold a range of their own (see SeqSpan).
        const [{ next }] = await this.read(`SELECT coalesce(max(seq), -1)::INTEGER + 1 AS next FROM _tasks`);
        const appender = await this.conn.createAppender(staging, 'main', 'temp');
        list.forEach((t, i) => {
          appender.appendVarchar(t.key);
          appender.appendInteger(Number(next) + i);
          appender.appendVarchar(t.step);
          appender.appendInteger(t.stepIndex);
          appender.appendVarchar(t.endpointId);
          appender.appendVarchar(t.collect);
          appender.appendVarchar(JSON.stringify(t.params));
          if (t.paging) appender.appendVarchar(JSON.stringify(t.paging));
          else appender.appendNull();
          if (typeof t.params.tag === 'string') appender.appendVarchar(t.params.tag);
          else appender.appendNull();
          if (t.userTag !== undefined) appender.appendVarchar(t.userTag);
          else appender.appendNull();
          appender.appendDouble(t.price);
          appender.endRow();
        });
        appender.closeSync();
        const result = await this.conn.run(
          `INSERT INTO _tasks (run_id, task_key, seq, step, step_index, endpoint_id, collect, params, paging, tag, user_tag, price,
                               state, attempts, pages, planned_at, updated_at)
           SELECT $1, k, s, st, si, e, c, p, pg, tg, ut, pr, 'planned', 0, 0, $2::TIMESTAMP, $2::TIMESTAMP FROM ${staging}
           ON CONFLICT DO NOTHING`,
          [runId, now],
        );
        inserted += Number(result.rowsChanged);
        // A key another step planned first is that step's task: this step is recorded as sharing it.
        await this.conn.run(
          `INSERT INTO _shared_tasks (run_id, task_key, step, updated_at)
           SELECT DISTINCT $1, s.k, s.st, $2::TIMESTAMP FROM ${staging} s JOIN _tasks t ON t.run_id = $1 AND t.task_key = s.k
           WHERE t.step <> s.st
           ON CONFLICT DO NOTHING`,
          [runId, now],
        );
        await this.conn.run(`DELETE FROM ${staging}`);
      }
    } finally {
      await this.conn.run(`DROP TABLE IF EXISTS ${staging}`);
    }
    return { inserted, existing: tasks.length - inserted };
  }

  /**
   * Marks planned tasks `posting` and commits, BEFORE their batch is sent. Only the returned keys may be sent:
   * a key already posting or posted (by an earlier attempt) is left out, so nothing is posted twice.
   */
  async beginPost(runId: string, keys: readonly string[], opts: { span?: SeqSpan } = {}): Promise<{ batchId: string; keys: string[] }> {
    const batchId = randomUUID();
    if (keys.length === 0) return { batchId, keys: [] };
    const moved = await this.atomically(() => markPosting(this.conn, runId, keys, { now: this.now(), batchId, span: opts.span }));
    return { batchId, keys: moved };
  }

  /** The service accepted these tasks: its id and the cost it reported. Commits before the next batch is sent. */
  async recordPosted(runId: string, posted: readonly PostedTask[], opts: { span?: SeqSpan } = {}): Promise<string[]> {
    if (posted.length === 0) return [];
    return this.atomically(() => markPosted(this.conn, runId, posted, { now: this.now(), ...opts }));
  }

  /** Runs the statements of one ledger write as one transaction, in the write queue, committed before it returns. */
  private atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue(async () => {
      await this.conn.run('BEGIN TRANSACTION');
      try {
        const out = await fn();
        await this.conn.run('COMMIT');
        return out;
      } catch (err) {
        await this.conn.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * The service refused these tasks when posting (a task-level error, nothing created). With `retry` (rate limit,
   * a 5xx-range code) they go back to `planned` with the error kept, to be posted again; otherwise `failed`.
   */
  async recordPostFailed(runId: string, failures: readonly (Failure & { retry?: boolean })[]): Promise<string[]> {
    if (failures.length === 0) return [];
    return this.atomically(() => markPostFailed(this.conn, runId, failures, { now: this.now() }));
  }

  /** A posting batch that certainly never reached the service (refused before sending): back to `planned`. */
  async releasePosting(runId: string, keys: readonly string[], reason?: string): Promise<string[]> {
    return this.atomically(() => markReleased(this.conn, runId, keys, { now: this.now(), reason }));
  }

  /** A step the service cannot serve (its endpoint is gone): its unposted tasks fail with the answer, once. */
  async failStep(runId: string, step: string, failure: { code: number; message: string }): Promise<number> {
    const now = ts(this.now());
    const r = await this.queue(() => this.conn.run(
      `UPDATE _tasks SET state = 'failed', failed_at = ?::TIMESTAMP, updated_at = ?::TIMESTAMP, error_code = ?, error_message = ?, batch_id = NULL
       WHERE run_id = ? AND step = ? AND state IN ('planned', 'posting')`,
      [now, now, Math.trunc(failure.code), failure.message, runId, step],
    ));
    return Number(r.rowsChanged);
  }

  /**
   * Says why planned tasks were not posted (the budget, an account answer), where no service answer says it
   * already: those of one step, or without `step` of the whole run.
   */
  async notePlanned(runId: string, step: string | null, why: { code?: number; message: string }): Promise<void> {
    await this.queue(() => this.conn.run(
      `UPDATE _tasks SET error_code = ?, error_message = ? WHERE run_id = ? AND (? IS NULL OR step = ?) AND state = 'planned' AND error_code IS NULL`,
      [why.code ?? null, why.message, runId, step, step],
    ));
  }

  // ---- collection-side moves: in a load's transaction use markLoaded/markFailed/markPosted (module comment) ----
  /** A failure recorded on its own (not with rows): in the write queue. */
  markFailed(runId: string, failures: readonly Failure[]): Promise<string[]> {
    return this.queue(() => markFailed(this.conn, runId, failures, { now: this.now() }));
  }

  // ---- queries -------------------------------------------------------------------------------------------

  /**
   * Tasks of a run, in planning order (step, then seq), optionally by state, step or collection mode. `after`
   * starts past a task (keyset paging: see pages) and `limit` caps the answer; without a limit every matching
   * task is read at once, so the job itself pages.
   */
  async tasks(runId: string, filter: TaskFilter & { limit?: number; after?: TaskPosition } = {}): Promise<LedgerTask[]> {
    // Only the conditions asked for: DuckDB pushes plain ones into its scan, not `? IS NULL OR ...` forms.
    const where = ['run_id = ?'];
    const values: DuckDBValue[] = [runId];
    if (filter.states) where.push('list_contains(?::VARCHAR[], state)'), values.push(strings(filter.states));
    if (filter.step !== undefined) where.push('step = ?'), values.push(filter.step);
    if (filter.collect) where.push('list_contains(?::VARCHAR[], collect)'), values.push(strings(filter.collect));
    if (filter.after) {
      where.push('step_index >= ?', '(step_index > ? OR seq > ?)');
      values.push(filter.after.stepIndex, filter.after.stepIndex, filter.after.seq);
    }
    values.push(filter.limit ?? 2_147_483_647);
    const r = await this.read(`SELECT * FROM _tasks WHERE ${where.join(' AND ')} ORDER BY step_index, seq LIMIT ?`, values);
    return r.map(toTask);
  }

  /**
   * Walks a run's tasks matching `filter` in planning order, `pageSize` at a time: a page is read when the
   * previous one is consumed, so a caller holds one page, never the run. Each page starts past the last task of
   * the previous one (not at an offset), so tasks that leave the filter meanwhile (posted ones leave `planned`)
   * shift nothing, and a task that comes back into it behind the walk (a refused one back to `planned`) waits for
   * the next walk instead of being met twice.
   */
  async *pages(runId: string, filter: TaskFilter = {}, pageSize = TASK_PAGE): AsyncGenerator<LedgerTask[]> {
    let after: TaskPosition | undefined;
    for (;;) {
      const page = await this.tasks(runId, { ...filter, limit: pageSize, ...(after ? { after } : {}) });
      if (page.length === 0) return;
      yield page;
      if (page.length < pageSize) return;
      const last = page[page.length - 1];
      after = { stepIndex: last.stepIndex, seq: last.seq };
    }
  }

  /** How many tasks of a run match `filter`, by endpoint, step, and last error: counted by the database, no task read. */
  async countTasks(runId: string, filter: TaskFilter = {}): Promise<{ endpointId: string; step: string; errorCode: number | null; errorMessage: string | null; count: number }[]> {
    const r = await this.read(
      `SELECT endpoint_id, step, error_code, error_message, count(*)::INTEGER AS n FROM _tasks WHERE run_id = ?
         AND (? IS NULL OR list_contains(?::VARCHAR[], state))
         AND (? IS NULL OR step = ?)
         AND (? IS NULL OR list_contains(?::VARCHAR[], collect))
       GROUP BY ALL ORDER BY n DESC, endpoint_id, step, error_code, error_message`,
      [
        runId,
        filter.states ? strings(filter.states) : null, filter.states ? strings(filter.states) : null,
        filter.step ?? null, filter.step ?? null,
        filter.collect ? strings(filter.collect) : null, filter.collect ? strings(filter.collect) : null,
      ],
    );
    return r.map((x) => ({ endpointId: String(x.endpoint_id), step: String(x.step), errorCode: num(x.error_code), errorMessage: (x.error_message as string | null) ?? null, count: Number(x.n) }));
  }

  // ---- tasks waiting to be collected by polling (the collector's store: see PollScope) ---------------------------

  /** Waiting polled tasks of a run, counted by the endpoint they were posted to. */
  async pollWaiting(runId: string, scope: PollScope): Promise<{ endpointId: string; count: number }[]> {
    const r = await this.read(
      `SELECT endpoint_id, count(*)::INTEGER AS n FROM _tasks WHERE ${POLL_WAITING} GROUP BY endpoint_id ORDER BY endpoint_id`,
      [runId, strings(scope.endpoints), ts(scope.attemptStartedAt)],
    );
    return r.map((x) => ({ endpointId: String(x.endpoint_id), count: Number(x.n) }));
  }

  /** Of these service ids, the waiting polled tasks of the run. */
  async pollLookup(runId: string, scope: PollScope, serviceIds: readonly string[]): Promise<WaitingTask[]> {
    if (serviceIds.length === 0) return [];
    const r = await this.read(
      `SELECT ${WAITING_COLUMNS} FROM _tasks WHERE ${POLL_WAITING} AND service_id IN (SELECT unnest($4::VARCHAR[]))`,
      [runId, strings(scope.endpoints), ts(scope.attemptStartedAt), strings(serviceIds)],
    );
    return r.map(toWaiting);
  }

  /** Waiting polled tasks posted before `before`, oldest first, at most `limit`. */
  async pollOverdue(runId: string, scope: PollScope, before: Date, limit: number): Promise<WaitingTask[]> {
    const r = await this.read(
      `SELECT ${WAITING_COLUMNS} FROM _tasks WHERE ${POLL_WAITING} AND posted_at < $4::TIMESTAMP ORDER BY posted_at, seq LIMIT $5`,
      [runId, strings(scope.endpoints), ts(scope.attemptStartedAt), ts(before), Math.max(0, Math.floor(limit))],
    );
    return r.map(toWaiting);
  }

  /**
   * Marked `posting` but never recorded as posted: the process stopped between sending and recording. The
   * service may or may not have created them; look them up by tag (tasks_ready, task data) before posting again.
   */
  async ambiguous(runId?: string): Promise<LedgerTask[]> {
    const r = await this.read(`SELECT * FROM _tasks WHERE state = 'posting' AND (? IS NULL OR run_id = ?) ORDER BY run_id, step_index, seq`, [runId ?? null, runId ?? null]);
    return r.map(toTask);
  }

  async byServiceId(serviceId: string): Promise<LedgerTask | undefined> {
    const r = await this.read(`SELECT * FROM _tasks WHERE service_id = ? LIMIT 1`, [serviceId]);
    return r[0] ? toTask(r[0]) : undefined;
  }

  async byKey(runId: string, key: string): Promise<LedgerTask | undefined> {
    const r = await this.read(`SELECT * FROM _tasks WHERE run_id = ? AND task_key = ?`, [runId, key]);
    return r[0] ? toTask(r[0]) : undefined;
  }

  /** USD the service reported for the run so far: what the budget is checked against. */
  async spentUsd(runId: string, step?: string): Promise<number> {
    const [r] = step === undefined
      ? await this.read(`SELECT coalesce(sum(round(cost * 1000000)), 0)::BIGINT AS m FROM _tasks WHERE run_id = ?`, [runId])
      : await this.read(`SELECT coalesce(sum(round(cost * 1000000)), 0)::BIGINT AS m FROM _tasks WHERE run_id = ? AND step = ?`, [runId, step]);
    return Number(r.m) / 1e6;
  }

  /** Tasks by state, cost and failures (grouped by code and message) of a run, in total and per step. */
  async summary(runId: string): Promise<RunSummary | undefined> {
    const run = await this.run(runId);
    if (!run) return undefined;
    const perStep = await this.read(
      `SELECT step, step_index, endpoint_id, state, count(*)::INTEGER AS n, coalesce(sum(round(cost * 1000000)), 0)::BIGINT AS m
       FROM _tasks WHERE run_id = ? GROUP BY ALL ORDER BY step_index, state`,
      [runId],
    );
    const steps = new Map<string, RunSummary['steps'][number] & { micros: number }>();
    for (const r of perStep) {
      const name = String(r.step);
      const s = steps.get(name) ?? { step: name, stepIndex: Number(r.step_index), endpointId: String(r.endpoint_id), tasks: 0, byState: byState([]), costUsd: 0, micros: 0 };
      s.tasks += Number(r.n);
      s.byState[r.state as TaskState] += Number(r.n);
      s.micros += Number(r.m);
      steps.set(name, s);
    }
    const stepList = [...steps.values()].sort((a, b) => a.stepIndex - b.stepIndex).map(({ micros, ...s }) => ({ ...s, costUsd: micros / 1e6 }));
    const totalState = byState([]);
    for (const s of stepList) for (const st of TASK_STATES) totalState[st] += s.byState[st];
    const failures = await this.read(
      `SELECT error_code, error_message, step, count(*)::INTEGER AS n FROM _tasks WHERE run_id = ? AND state = 'failed'
       GROUP BY ALL ORDER BY n DESC, error_code`,
      [runId],
    );
    return {
      run,
      tasks: stepList.reduce((n, s) => n + s.tasks, 0),
      byState: totalState,
      costUsd: await this.spentUsd(runId),
      steps: stepList,
      failures: failures.map((f) => ({ code: num(f.error_code), message: (f.error_message as string | null) ?? null, step: String(f.step), count: Number(f.n) })),
    };
  }
}

function byState(r: Record<string, unknown>[]): Record<TaskState, number> {
  const out = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<TaskState, number>;
  for (const x of r) out[x.state as TaskState] = Number(x.n);
  return out;
}

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
