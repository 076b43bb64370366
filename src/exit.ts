/** Exit codes that cron and schedulers act on; the README's table is written from this one. */
export const EXIT = {
  ok: 0,
  taskFailures: 1,
  badInput: 2,
  locked: 3,
  budget: 4,
  refused: 5,
  /** The run completed into DuckDB and Parquet, but publishing to PostgreSQL failed; the next run catches it up. */
  postgres: 6,
  /** The service could not be reached at all (connection refused, unknown host, no answer): nothing was posted. */
  unreachable: 7,
  /** The run completed into DuckDB and Parquet, but publishing to the lake failed; the next run catches it up. */
  lake: 8,
  internal: 70,
} as const;

/** One line per exit code, for `run --help` and `resume --help` (the README's table says more). */
export const EXIT_MEANINGS: Readonly<Record<number, string>> = {
  [EXIT.ok]: 'the run completed; every task is loaded',
  [EXIT.taskFailures]: 'finished, but some tasks failed or were not collected (seo-etl status; seo-etl resume); reprocess, ingest: bad lines or tasks named and left out, the rest loaded',
  [EXIT.badInput]: 'bad input (pipeline, config, flag, credentials, sandbox/live mix, a destination holding other data); nothing was posted',
  [EXIT.locked]: 'another run holds the warehouse (--wait waits for it)',
  [EXIT.budget]: 'budget_usd left tasks unposted; everything posted was collected',
  [EXIT.refused]: 'the service refused the account (credentials, payment, access)',
  [EXIT.postgres]: 'completed into DuckDB and Parquet, but publishing to PostgreSQL failed',
  [EXIT.unreachable]: 'the service could not be reached; nothing was posted',
  [EXIT.lake]: 'completed into DuckDB and Parquet, but publishing to the lake failed',
  130: 'interrupted by Ctrl-C (143: SIGTERM); seo-etl resume continues it',
  [EXIT.internal]: 'internal error (a bug: please report it with the log)',
};

/** An error the user caused and can fix (a pipeline, a config, a flag): exit 2, printed without a stack. */
export class UserError extends Error {
  readonly exitCode: number = EXIT.badInput;
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** The service could not be reached at all (exit 7): said in one line, without a stack. */
export class UnreachableError extends Error {
  readonly exitCode: number = EXIT.unreachable;
  constructor(message: string) {
    super(message);
    this.name = 'UnreachableError';
  }
}

export function exitCodeOf(err: unknown): number {
  if (err && typeof err === 'object') {
    const code = (err as { exitCode?: unknown }).exitCode;
    if (typeof code === 'number') return code;
    const name = (err as { name?: unknown }).name;
    if (name === 'ConfigError' || name === 'PipelineError' || name === 'UserError') return EXIT.badInput;
  }
  return EXIT.internal;
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    // ApiError: the service refused the account (credentials, payment, limits); its message says what to do.
    const known = ['ConfigError', 'PipelineError', 'UserError', 'LockedError', 'ApiError', 'UnreachableError'].includes(err.name);
    return known || !err.stack ? err.message : err.stack;
  }
  return String(err);
}
