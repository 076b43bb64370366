/**
 * What collection hands to its one sink: every way a result arrives ends as one of these values.
 *
 *   collected  results fetched or received for tasks posted earlier (each result names its own ledger task)
 *   answered   one call's answer (a live or list call, its pages, or a tasks_fixed list) for the ledger tasks
 *              `keys`; `posted` records the call's id and cost in the same transaction as its rows
 *   failed     the service answered a posted task with an error
 */
import type { CollectedTask } from '../normalize/extract.js';
import type { PostedTask } from '../ledger/index.js';

export type Outcome =
  | { kind: 'collected'; results: CollectedTask[] }
  | { kind: 'answered'; keys: string[]; results: CollectedTask[]; pages: number; posted?: PostedTask }
  | { kind: 'failed'; ref: string; code: number; message: string };

/** Loads an outcome's rows and moves its ledger state in one transaction (the run wires it to the writer). */
export type Sink = (outcome: Outcome) => Promise<void>;
