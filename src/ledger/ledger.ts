/**
 * The Ledger: the ledger's writes that commit on their own (runs, planning, posting: each in the write queue, in a
 * transaction of its own when it takes several statements) and its reads.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { PlannedTask } from '../pipeline/types.js';
import { LEDGER_DDL, TASK_STATES, type RunStatus, type TaskState } from './schema.js';
import { markFailed, markPostFailed, markPosted, markPosting, markReleased, renameEndpoints, type SeqSpan } from './moves.js';
import { num, rows, strings, toRun, toTask, ts, type Failure, type LedgerTask, type PollScope, type PostedTask, type RunRow, type RunSummary, type TaskFilter, type TaskPosition, type WaitingTask } from './rows.js';

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

type Clock = () => Date;

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
  /**
   * `endpointAliases` (old id -> id now, the catalog's ENDPOINT_ALIASES): tasks an older version planned under an
   * endpoint's old id are moved to its id now, so a resumed run polls, fetches and reports them as its own.
   */
  static async open(conn: DuckDBConnection, opts: { clock?: Clock; readOnly?: boolean; queue?: WriteQueue; read?: ReadGate; endpointAliases?: ReadonlyMap<string, string> } = {}): Promise<Ledger> {
    // readOnly: for `status` on a warehouse opened read-only, where the tables already exist.
    if (!opts.readOnly) for (const ddl of LEDGER_DDL) await conn.run(ddl);
    if (!opts.readOnly && opts.endpointAliases?.size) await renameEndpoints(conn, opts.endpointAliases);
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
