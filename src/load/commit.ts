/**
 * One transaction of the load channel: the outcomes' results normalized and loaded, and each outcome's ledger
 * moves, in the writer's one transaction, so rows and ledger state change together or not at all.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { isTaskError } from '../api/status.js';
import { markFailed, markLoaded, markPostFailed, markPosted, markPosting, markReleased, recordBilled, type Failure, type PostedTask } from '../ledger/index.js';
import type { CollectedTask } from '../normalize/extract.js';
import { resultsOf, type Outcome } from './outcome.js';
import type { LoadSummary } from './warehouse.js';
import type { Writer } from './writer.js';

export interface CommitOptions {
  writer: Writer;
  runId: string;
  /** Engine path names stripped from item types. */
  engines: readonly string[];
  /** Inside a transaction that loads results, after its rows and ledger moves (the crash tests' `load` pause point). */
  inTransaction?: () => Promise<void>;
  /** After the commit: what it loaded. */
  onCommitted?: (batch: readonly Outcome[], summary: LoadSummary) => void;
}

/** The channel's `commit`: a batch of outcomes as one transaction through the writer. */
export function commitThrough(o: CommitOptions): (batch: readonly Outcome[]) => Promise<void> {
  return async (batch) => {
    const results: CollectedTask[] = [];
    for (const x of batch) for (const r of resultsOf(x)) results.push(r);
    const summary = await o.writer.load(results, {
      runId: o.runId,
      engines: o.engines,
      moves: async (conn) => {
        for (const m of mergeMoves(batch)) await applyMove(conn, o.runId, m);
      },
      inTransaction: async () => {
        if (results.length) await o.inTransaction?.();
      },
    });
    o.onCommitted?.(batch, summary);
  };
}

/** Whether a result carries rows (not a task-level error). */
export const isLoadable = (r: CollectedTask): boolean => !isTaskError(r.task.status_code) && Array.isArray(r.task.result);

/**
 * One ledger write: what an outcome asks of the ledger, in the form one statement serves for many tasks. `posting`
 * is never merged: its batch id names the call that sends those tasks (recover.ts adopts unclear POSTs by it).
 */
export type LedgerMove =
  | { kind: 'posting'; keys: string[] }
  | { kind: 'post_failed'; failures: (Failure & { retry?: boolean })[] }
  | { kind: 'posted'; posted: PostedTask[] }
  | { kind: 'released'; keys: string[]; reason: string }
  | { kind: 'loaded'; refs: string[]; pages?: number }
  | { kind: 'billed'; billed: { ref: string; cost: number }[] }
  | { kind: 'failed'; failures: Failure[] };

/** An outcome's ledger moves, in the order they apply. */
export function movesOf(o: Outcome): LedgerMove[] {
  switch (o.kind) {
    case 'failed':
      return [{ kind: 'failed', failures: [{ ref: o.ref, code: o.code, message: o.message }] }];
    case 'calling':
      return [{ kind: 'posting', keys: o.keys }];
    case 'call_failed':
      return [{ kind: 'post_failed', failures: o.failures }];
    case 'posted':
      return [{ kind: 'posted', posted: o.posted }];
    case 'released':
      return [{ kind: 'released', keys: o.keys, reason: o.reason }];
    case 'answered': {
      const moves: LedgerMove[] = o.posted ? [{ kind: 'posted', posted: [o.posted] }] : [];
      // One call's answer: its tasks failed only if no page of it succeeded.
      const bad = o.results.find((r) => !isLoadable(r));
      if (bad && !o.results.some(isLoadable)) moves.push({ kind: 'failed', failures: o.keys.map((k) => ({ ref: k, code: bad.task.status_code, message: bad.task.status_message })) });
      else moves.push({ kind: 'loaded', refs: o.keys, pages: o.pages });
      return moves;
    }
    case 'archived':
      return [];
    case 'collected': {
      const ok = o.results.filter(isLoadable);
      const bad = o.results.filter((r) => !isLoadable(r));
      // A result that reports its cost (SERP, after refunds) replaces what posting reserved.
      const billed = ok.filter((r) => typeof r.task.cost === 'number' && r.task.cost > 0).map((r) => ({ ref: r.key ?? r.task.id, cost: r.task.cost as number }));
      const moves: LedgerMove[] = [];
      if (ok.length) moves.push({ kind: 'loaded', refs: ok.map((r) => r.key ?? r.task.id) });
      if (billed.length) moves.push({ kind: 'billed', billed });
      if (bad.length) moves.push({ kind: 'failed', failures: bad.map((r) => ({ ref: r.key ?? r.task.id, code: r.task.status_code, message: r.task.status_message })) });
      return moves;
    }
  }
}

/** Every name an outcome's tasks go by in it (ledger keys and the service's ids). */
function namesOf(o: Outcome): string[] {
  switch (o.kind) {
    case 'failed': return [o.ref];
    case 'calling': case 'released': return o.keys;
    case 'call_failed': return o.failures.map((f) => f.ref);
    case 'posted': return o.posted.flatMap((p) => [p.key, p.serviceId]);
    case 'answered': return [...o.keys, ...(o.posted ? [o.posted.serviceId] : [])];
    case 'collected': return o.results.flatMap((r) => (r.key ? [r.key, r.task.id] : [r.task.id]));
    case 'archived': return [];
  }
}

const ORDER: readonly LedgerMove['kind'][] = ['posting', 'post_failed', 'posted', 'released', 'loaded', 'billed', 'failed'];

/**
 * A batch's ledger moves, merged: a move per task was three statements per task_get, most of a small task's
 * cost (docs/journal/performance-2026-11-22-to-2026-11-27.md, "The writer's statements, three a task no more"). Outcomes on disjoint tasks
 * commute, so a run of them is applied kind by kind, each kind as one move; an outcome naming a task already in
 * the run starts a new run, which keeps every task's moves in the order its outcomes came.
 */
export function mergeMoves(batch: readonly Outcome[]): LedgerMove[] {
  const out: LedgerMove[] = [];
  let run: LedgerMove[] = [];
  const names = new Set<string>();
  const flush = () => {
    for (const kind of ORDER) {
      const merged = new Map<string, LedgerMove>();
      for (const m of run) {
        if (m.kind !== kind) continue;
        const group = m.kind === 'posting' ? undefined : m.kind === 'loaded' ? `p${m.pages ?? ''}` : m.kind === 'released' ? m.reason : '';
        const into = group === undefined ? undefined : merged.get(group);
        if (!into) {
          const copy = copyMove(m);
          if (group === undefined) out.push(copy);
          else merged.set(group, copy);
          continue;
        }
        append(into, m);
      }
      for (const m of merged.values()) out.push(m);
    }
    run = [];
    names.clear();
  };
  for (const o of batch) {
    const own = namesOf(o);
    if (own.some((n) => names.has(n))) flush();
    for (const n of own) names.add(n);
    run.push(...movesOf(o));
  }
  flush();
  return out;
}

function copyMove(m: LedgerMove): LedgerMove {
  switch (m.kind) {
    case 'posting': return { kind: m.kind, keys: [...m.keys] };
    case 'released': return { kind: m.kind, keys: [...m.keys], reason: m.reason };
    case 'post_failed': return { kind: m.kind, failures: [...m.failures] };
    case 'posted': return { kind: m.kind, posted: [...m.posted] };
    case 'loaded': return { kind: m.kind, refs: [...m.refs], ...(m.pages === undefined ? {} : { pages: m.pages }) };
    case 'billed': return { kind: m.kind, billed: [...m.billed] };
    case 'failed': return { kind: m.kind, failures: [...m.failures] };
  }
}

/** Adds `m`'s tasks to `into`, a move of the same kind and group. */
function append(into: LedgerMove, m: LedgerMove): void {
  if (into.kind === 'released' && m.kind === 'released') into.keys.push(...m.keys);
  else if (into.kind === 'post_failed' && m.kind === 'post_failed') into.failures.push(...m.failures);
  else if (into.kind === 'posted' && m.kind === 'posted') into.posted.push(...m.posted);
  else if (into.kind === 'loaded' && m.kind === 'loaded') into.refs.push(...m.refs);
  else if (into.kind === 'billed' && m.kind === 'billed') into.billed.push(...m.billed);
  else if (into.kind === 'failed' && m.kind === 'failed') into.failures.push(...m.failures);
}

/** A ledger move, in the open transaction of `conn`. */
async function applyMove(conn: DuckDBConnection, runId: string, m: LedgerMove): Promise<void> {
  switch (m.kind) {
    case 'failed': await markFailed(conn, runId, m.failures); return;
    case 'posting': await markPosting(conn, runId, m.keys); return;
    case 'post_failed': await markPostFailed(conn, runId, m.failures); return;
    case 'posted': await markPosted(conn, runId, m.posted); return;
    case 'released': await markReleased(conn, runId, m.keys, { reason: m.reason }); return;
    case 'loaded': await markLoaded(conn, runId, m.refs, { collected: true, ...(m.pages === undefined ? {} : { pages: m.pages }) }); return;
    case 'billed': await recordBilled(conn, runId, m.billed);
  }
}
