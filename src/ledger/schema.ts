/** The ledger's tables in the working warehouse; `_`-prefixed so they never mix with result tables. */

export const TASK_STATES = ['planned', 'posting', 'posted', 'ready', 'collected', 'loaded', 'failed'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const RUN_STATUSES = ['running', 'completed', 'stopped_budget', 'aborted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const LEDGER_DDL = [
  `CREATE TABLE IF NOT EXISTS _runs (
    run_id VARCHAR PRIMARY KEY,
    pipeline VARCHAR NOT NULL,
    run_date VARCHAR NOT NULL,
    pipeline_file VARCHAR,
    budget_usd DOUBLE,
    status VARCHAR NOT NULL,
    attempts INTEGER NOT NULL,
    started_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    note VARCHAR
  )`,
  // One row per attempt of a run (the first, then each resume): when it started and finished, and how it ended.
  // A killed attempt keeps finished_at null. v_runs sums the attempts, not the span from the first to the last.
  `CREATE TABLE IF NOT EXISTS _attempts (
    run_id VARCHAR NOT NULL,
    attempt INTEGER NOT NULL,
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status VARCHAR NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, attempt)
  )`,
  // The domains a run tracks (pipeline `targets:`), per step tied to a target: what the SERP views read a
  // tracked domain's rows from, including the days it did not rank.
  `CREATE TABLE IF NOT EXISTS _targets (
    run_id VARCHAR NOT NULL,
    step VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, step, domain)
  )`,
  // A task a later step of the run asked for too: posted once, by the first step that asked (its `_tasks.step`),
  // its results tracked for this step's targets as well (the SERP views read it with `_targets`).
  `CREATE TABLE IF NOT EXISTS _shared_tasks (
    run_id VARCHAR NOT NULL,
    task_key VARCHAR NOT NULL,
    step VARCHAR NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, task_key, step)
  )`,
  // One row per task and run. params is the JSON body sent; price what one call is billed by the price table;
  // cost what the service reported. Timestamps are UTC.
  `CREATE TABLE IF NOT EXISTS _tasks (
    run_id VARCHAR NOT NULL,
    task_key VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    step VARCHAR NOT NULL,
    step_index INTEGER NOT NULL,
    endpoint_id VARCHAR NOT NULL,
    collect VARCHAR NOT NULL,
    params VARCHAR NOT NULL,
    paging VARCHAR,
    tag VARCHAR,
    user_tag VARCHAR,
    price DOUBLE NOT NULL,
    state VARCHAR NOT NULL,
    service_id VARCHAR,
    cost DOUBLE,
    batch_id VARCHAR,
    attempts INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    error_code INTEGER,
    error_message VARCHAR,
    planned_at TIMESTAMP,
    posting_at TIMESTAMP,
    posted_at TIMESTAMP,
    ready_at TIMESTAMP,
    collected_at TIMESTAMP,
    loaded_at TIMESTAMP,
    failed_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, task_key)
  )`,
];
