/**
 * What producers hand the load channel (channel.ts): every way a result arrives, and every ledger move collection
 * needs, is one of these values. The channel commits each with its rows in one transaction (commit.ts).
 *
 *   collected    results fetched or received for tasks posted earlier (each result names its own ledger task)
 *   answered     one call's answer (a live or list call, its pages, or a tasks_fixed list) for the ledger tasks
 *                `keys`; `posted` records the call's id and cost in the same transaction as its rows
 *   failed       the service answered a posted task with an error
 *   calling      tasks about to be sent by a live, list or tasks_fixed call: `posting`, committed before the call
 *   call_failed  such a call got no answer to load: the tasks fail, or with `retry` go back to `planned`
 *   posted       the service's ids (and costs) of tasks: one whose POST got no clear answer turned up at the service,
 *                or the tasks a tasks_fixed list answered for
 *   released     such tasks the service never created: back to `planned`, to be posted again
 *   archived     archive lines being prepared for loading on a worker thread (reprocess, ingest): rows only
 */
import type { CollectedTask } from '../normalize/extract.js';
import type { Failure, PostedTask } from '../ledger/index.js';
import type { PreparedLoad } from './prepare.js';

export type Outcome =
  | { kind: 'collected'; results: CollectedTask[] }
  | { kind: 'answered'; keys: string[]; results: CollectedTask[]; pages: number; posted?: PostedTask }
  | { kind: 'failed'; ref: string; code: number; message: string }
  | { kind: 'calling'; keys: string[] }
  | { kind: 'call_failed'; failures: (Failure & { retry?: boolean })[] }
  | { kind: 'posted'; posted: PostedTask[] }
  | { kind: 'released'; keys: string[]; reason: string }
  | { kind: 'archived'; lines: number; bytes: number; load: Promise<PreparedLoad> };

/** Hands an outcome to the load channel; resolves once it is committed (rows and ledger state together). */
export type Sink = (outcome: Outcome) => Promise<void>;

/** The results an outcome loads (none for a ledger move alone). */
export function resultsOf(o: Outcome): readonly CollectedTask[] {
  return o.kind === 'collected' || o.kind === 'answered' ? o.results : [];
}

/** Answer bytes an outcome holds in memory until it is committed (TaskOutcome.bytes, summed). */
export function bytesOfOutcome(o: Outcome): number {
  if (o.kind === 'archived') return o.bytes;
  let n = 0;
  for (const r of resultsOf(o)) n += r.bytes ?? 0;
  return n;
}

/** Tasks an outcome counts for in a transaction's count: an archive line's are known once it is parsed, so a line. */
export function countOfOutcome(o: Outcome): number {
  return o.kind === 'archived' ? o.lines : 1;
}
