/**
 * A hook for the reliability tests only (test/reliability): with SEO_ETL_TEST_PAUSE_AT=<point> the job prints
 * `seo-etl test pause: <point>` to stderr when it first reaches that point and waits there, so a test can SIGKILL
 * it at exactly that moment. Inert unless the variable names the point. `<point>@<step>` pauses only in that step.
 *
 *   posted   a task_post batch was answered, before the answer is recorded in the ledger
 *   live     a live call was answered, before its rows and ledger state are written
 *   load     inside a load transaction: rows written, ledger moved, not committed
 *   parquet  a Parquet file written under its temporary name, before the rename
 *   publish  the published copy written beside the old one, before the rename
 */
export const PAUSE_POINTS = ['posted', 'live', 'load', 'parquet', 'publish'] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

export const PAUSE_MARKER = 'seo-etl test pause:';

const reached = new Set<PausePoint>();

export function pauseAt(point: PausePoint, env: NodeJS.ProcessEnv = process.env, step?: string): Promise<void> {
  const wanted = env.SEO_ETL_TEST_PAUSE_AT;
  if (!wanted || reached.has(point) || (wanted !== point && wanted !== `${point}@${step}`)) return Promise.resolve();
  reached.add(point);
  process.stderr.write(`\n${PAUSE_MARKER} ${wanted}\n`);
  // Never resolves; the timer keeps the process alive until the test kills it.
  return new Promise<void>(() => setInterval(() => undefined, 1 << 30));
}
