/**
 * Pause points: moments a crash test kills the job at (test/reliability). The job calls the hook it was given;
 * production passes none. The CLI builds one from the environment (src/run/test-pause.ts).
 *
 *   posted   a task_post batch was answered, before the answer is recorded in the ledger
 *   live     a live call was answered, before its rows and ledger state are written
 *   load     inside a load transaction: rows written, ledger moved, not committed
 *   parquet  a Parquet file written under its temporary name, before the rename
 *   publish  the run's changes applied to the published file before COMMIT, or a copy written beside it before the rename
 *   postgres the PostgreSQL destination's rows staged (work/postgres-stage-<pid>/), before its transaction
 *   lake     a lake publish: @file after its first data file is up (others in flight), @part after the first part
 *            of a multipart upload, @manifests once every data file is up, before the first manifest
 *   report   the report written and alerts delivered, before the run is marked published
 */
export const PAUSE_POINTS = ['posted', 'live', 'load', 'parquet', 'publish', 'postgres', 'lake', 'report'] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

/** Resolves when the job may go on (a test's hook never resolves at the point it waits for). */
export type PauseHook = (point: PausePoint, step?: string) => Promise<void>;

export const noPause: PauseHook = () => Promise.resolve();
