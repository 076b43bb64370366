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
 *
 * The modules follow that line: moves.ts holds the moves that join the caller's transaction, ledger.ts the Ledger
 * (writes that commit on their own, and the reads), rows.ts the rows and values both use.
 */
export { TASK_STATES, RUN_STATUSES, type TaskState, type RunStatus } from './schema.js';
export { acquireRunLock, acquireRunLockWaiting, parseWait, DEFAULT_WAIT_MS, readRunLock, LockedError, type LockInfo, type RunLock, type AcquireOptions } from './lock.js';
export { toPlannedTask, type Failure, type LedgerTask, type PollScope, type PostedTask, type RunRow, type RunSummary, type TaskFilter, type TaskPosition, type TaskRef, type WaitingTask } from './rows.js';
export { markCollected, markFailed, markLoaded, markPostFailed, markPosted, markPosting, markReady, markReleased, recordBilled, seqSpan, type SeqSpan } from './moves.js';
export { Ledger, TASK_PAGE, type OpenRunInput, type ReadGate, type WriteQueue } from './ledger.js';
