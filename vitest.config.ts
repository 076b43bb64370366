import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run for tens of seconds (child processes killed and resumed, whole jobs, the quick benchmark), in
 * the order they should start: the suite takes as long as its longest chain, so the long files start first and
 * the short ones fill the other workers around them. Vitest's own order is by the last run's durations when it
 * has them, and by file size on a clean clone (as in CI), which started the longest file late.
 */
const SLOW_FIRST = [
  'test/reliability/crash.test.ts',
  'test/reliability/pause-points.test.ts',
  'test/bench/quick.test.ts',
  'test/publish/postgres.test.ts',
  'test/lake/lake.test.ts',
  'test/lake/resume.test.ts',
  'test/reliability/faults.test.ts',
  'test/reliability/webhooks.test.ts',
  'test/reliability/postback-race.test.ts',
  'test/reliability/bad-input.test.ts',
  'test/publish/readers.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // A timeout finds a hang; it is not a speed check. On 2 cores beside another heavy process a test takes 3 to 5
    // times as long as alone: at 30 s (and files' own 60-180 s) 12 tests timed out on a machine at load 8-10. One
    // bound for every test and hook (files set their own only above it: the crash and quick bench files).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Each worker process runs its files one after another in one module graph: loading the code, DuckDB's binding
    // and vitest anew for every file took 100 s of the suite's CPU. Tests therefore inject their seams (no module
    // mocks) and restore what they change in process.env.
    poolOptions: { forks: { isolate: false } },
    // The long files mostly wait (on child processes, the sandbox's completion delays, timers): on 2 cores, three
    // files at a time keep both cores busy. Vitest's default there is one file at a time (cores - 1).
    maxWorkers: 3,
    // As many as maxWorkers: with fewer, vitest 3.2 stops a shared worker between files ("Terminating worker thread").
    minWorkers: 3,
    sequence: { sequencer: SlowFirst },
  },
});
