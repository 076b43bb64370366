/**
 * The reliability tests' pause hook, built at the edge (the CLI) from SEO_ETL_TEST_PAUSE_AT=<point>[@<step>]: the
 * job prints `seo-etl test pause: <point>` to stderr when it first reaches that point and waits there, so a test
 * can SIGKILL it at exactly that moment. Points: src/pause.ts.
 */
import { noPause, type PauseHook, type PausePoint } from '../pause.js';

export { PAUSE_POINTS, type PausePoint } from '../pause.js';

export const PAUSE_MARKER = 'seo-etl test pause:';

/** The hook SEO_ETL_TEST_PAUSE_AT asks for; no pause at all when it is unset. */
export function pauseFromEnv(env: NodeJS.ProcessEnv): PauseHook {
  const wanted = env.SEO_ETL_TEST_PAUSE_AT;
  if (!wanted) return noPause;
  const reached = new Set<PausePoint>();
  return (point, step) => {
    if (reached.has(point) || (wanted !== point && wanted !== `${point}@${step}`)) return Promise.resolve();
    reached.add(point);
    process.stderr.write(`\n${PAUSE_MARKER} ${wanted}\n`);
    // Never resolves; the timer keeps the process alive until the test kills it.
    return new Promise<void>(() => setInterval(() => undefined, 1 << 30));
  };
}
