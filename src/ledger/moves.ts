/**
 * The ledger's moves that join the caller's transaction: none of them BEGINs or COMMITs. The load channel calls
 * markLoaded, markFailed and markPosted inside the transaction that writes a result's rows, so rows and state
 * change together; the Ledger (ledger.ts) wraps the posting moves in a transaction of their own.
 */
import { randomUUID } from 'node:crypto';
import { DOUBLE, LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { TaskState } from './schema.js';
import { rows, strings, ts, type Failure, type PostedTask, type TaskRef } from './rows.js';

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

/** Moves tasks stored under an endpoint's old id to the id it has now (`aliases`: old -> now), in one statement. */
export async function renameEndpoints(conn: DuckDBConnection, aliases: ReadonlyMap<string, string>): Promise<void> {
  await conn.run(
    `UPDATE _tasks SET endpoint_id = a.now FROM (SELECT unnest($1::VARCHAR[]) AS old, unnest($2::VARCHAR[]) AS now) a WHERE _tasks.endpoint_id = a.old`,
    [strings([...aliases.keys()]), strings([...aliases.values()])],
    [LIST(VARCHAR), LIST(VARCHAR)],
  );
}
