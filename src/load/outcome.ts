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
 */
import type { CollectedTask } from '../normalize/extract.js';
import type { Failure, PostedTask } from '../ledger/index.js';

export type Outcome =
  | { kind: 'collected'; results: CollectedTask[] }
  | { kind: 'answered'; keys: string[]; results: CollectedTask[]; pages: number; posted?: PostedTask }
  | { kind: 'failed'; ref: string; code: number; message: string }
  | { kind: 'calling'; keys: string[] }
  | { kind: 'call_failed'; failures: (Failure & { retry?: boolean })[] }
  | { kind: 'posted'; posted: PostedTask[] }
  | { kind: 'released'; keys: string[]; reason: string };

/** Hands an outcome to the load channel; resolves once it is committed (rows and ledger state together). */
export type Sink = (outcome: Outcome) => Promise<void>;

/** The results an outcome loads (none for a ledger move alone). */
export function resultsOf(o: Outcome): readonly CollectedTask[] {
  return o.kind === 'collected' || o.kind === 'answered' ? o.results : [];
}

/** Answer bytes an outcome holds in memory until it is committed (TaskOutcome.bytes, summed). */
export function bytesOfOutcome(o: Outcome): number {
  let n = 0;
  for (const r of resultsOf(o)) n += r.bytes ?? 0;
  return n;
}
