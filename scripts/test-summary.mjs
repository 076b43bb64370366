// Runs vitest with its JSON reporter beside the default one and prints the plain closing line CI reads. Then the
// guard against tests that depend on the day they run: the files of test/date-sensitive.txt run once more under
// libfaketime on another day (a leap day, by default), and their counts join the closing line.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, existsSync } from 'node:fs';

/** Runs vitest over `args` (under `prefix`, e.g. faketime) and returns its counts from the JSON report. */
function vitest(args, prefix = [], env = process.env) {
  const out = '.vitest-results.json';
  rmSync(out, { force: true });
  const cmd = [...prefix, 'npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args];
  const run = spawnSync(cmd[0], cmd.slice(1), { stdio: 'inherit', env });
  let passed = 0, failed = 0, skipped = 0;
  if (existsSync(out)) {
    const r = JSON.parse(readFileSync(out, 'utf8'));
    passed = r.numPassedTests ?? 0;
    failed = (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0) + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
    skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  } else {
    failed = 1;
  }
  if (run.status !== 0 && failed === 0) failed = 1;
  return { passed, failed, skipped, ok: run.status === 0 && failed === 0 };
}

const args = process.argv.slice(2);
const total = vitest(args);
// Only for the whole suite: a run of chosen files (`node scripts/test-summary.mjs test/x.test.ts`) is just that.
const shiftTo = process.env.DATE_GUARD_DAY ?? '2028-02-29 12:00:00';
if (args.length === 0 && shiftTo !== 'off') {
  const files = readFileSync('test/date-sensitive.txt', 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const faketime = spawnSync('faketime', ['-f', '+0', 'true']).status === 0;
  if (!faketime) {
    console.log('date guard: faketime is not installed (make test installs it); counted as a failure');
    total.failed += 1;
    total.ok = false;
  } else {
    console.log(`\ndate guard: ${files.length} date-sensitive file(s) again on ${shiftTo} (libfaketime)`);
    // Monotonic time stays real, so timers and timeouts behave; only the calendar moves.
    const shifted = vitest(files, ['faketime', '-f', `@${shiftTo}`], { ...process.env, FAKETIME_DONT_FAKE_MONOTONIC: '1' });
    total.passed += shifted.passed;
    total.failed += shifted.failed;
    total.skipped += shifted.skipped;
    total.ok &&= shifted.ok;
  }
}
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.ok ? 0 : 1);
