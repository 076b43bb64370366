/**
 * One transaction of the load channel: the outcomes' results normalized and loaded, and each outcome's ledger
 * moves, in the writer's one transaction, so rows and ledger state change together or not at all.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { isTaskError } from '../api/status.js';
import { markFailed, markLoaded, markPostFailed, markPosted, markPosting, markReleased, recordBilled } from '../ledger/index.js';
import type { CollectedTask } from '../normalize/extract.js';
import { resultsOf, type Outcome } from './outcome.js';
import type { LoadSummary } from './warehouse.js';
import type { Writer } from './writer.js';

export interface CommitOptions {
  writer: Writer;
  runId: string;
  /** Engine path names stripped from item types. */
  engines: readonly string[];
  /** Inside a transaction that loads results, after the ledger's moves (the crash tests' `load` pause point). */
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
      inTransaction: async (conn) => {
        for (const x of batch) await applyMoves(conn, o.runId, x);
        if (results.length) await o.inTransaction?.();
      },
    });
    o.onCommitted?.(batch, summary);
  };
}

/** Whether a result carries rows (not a task-level error). */
export const isLoadable = (r: CollectedTask): boolean => !isTaskError(r.task.status_code) && Array.isArray(r.task.result);

/** An outcome's ledger moves, in the open transaction of `conn`. */
async function applyMoves(conn: DuckDBConnection, runId: string, o: Outcome): Promise<void> {
  switch (o.kind) {
    case 'failed':
      await markFailed(conn, runId, [{ ref: o.ref, code: o.code, message: o.message }]);
      return;
    case 'calling':
      await markPosting(conn, runId, o.keys);
      return;
    case 'call_failed':
      await markPostFailed(conn, runId, o.failures);
      return;
    case 'posted':
      await markPosted(conn, runId, o.posted);
      return;
    case 'released':
      await markReleased(conn, runId, o.keys, { reason: o.reason });
      return;
    case 'answered': {
      if (o.posted) await markPosted(conn, runId, [o.posted]);
      // One call's answer: its tasks failed only if no page of it succeeded.
      const bad = o.results.find((r) => !isLoadable(r));
      if (bad && !o.results.some(isLoadable)) await markFailed(conn, runId, o.keys.map((k) => ({ ref: k, code: bad.task.status_code, message: bad.task.status_message })));
      else await markLoaded(conn, runId, o.keys, { collected: true, pages: o.pages });
      return;
    }
    case 'collected': {
      const ok = o.results.filter(isLoadable);
      const bad = o.results.filter((r) => !isLoadable(r));
      await markLoaded(conn, runId, ok.map((r) => r.key ?? r.task.id), { collected: true });
      // A result that reports its cost (SERP, after refunds) replaces what posting reserved.
      await recordBilled(conn, runId, ok.filter((r) => typeof r.task.cost === 'number' && r.task.cost > 0).map((r) => ({ ref: r.key ?? r.task.id, cost: r.task.cost as number })));
      if (bad.length) await markFailed(conn, runId, bad.map((r) => ({ ref: r.key ?? r.task.id, code: r.task.status_code, message: r.task.status_message })));
    }
  }
}
