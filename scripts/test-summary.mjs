// Runs vitest with its JSON reporter beside the default one and prints the plain closing line CI reads. Beside it,
// the guard against tests that depend on the day they run: the files of test/date-sensitive.txt run once more under
// libfaketime on another day (a leap day, by default), and their counts join the closing line. The guard runs at
// the same time as the main pass, its output held and printed after it: the suite is bound by two cores' CPU, and
// the guard's start and its last long file left a core idle when it ran after.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, existsSync } from 'node:fs';

/**
 * Runs vitest over `args` (under `prefix`, e.g. faketime), its JSON report in `out`; resolves with its counts and,
 * when `hold` is set, the output it held instead of printing.
 */
function vitest(args, { prefix = [], env = process.env, out = '.vitest-results.json', hold = false } = {}) {
  rmSync(out, { force: true });
  const cmd = [...prefix, 'npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args];
  const child = spawn(cmd[0], cmd.slice(1), { stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
  const held = [];
  if (hold) for (const s of [child.stdout, child.stderr]) s.on('data', (c) => held.push(c));
  return new Promise((resolve) => child.on('close', (status) => {
    let passed = 0, failed = 0, skipped = 0;
    if (existsSync(out)) {
      const r = JSON.parse(readFileSync(out, 'utf8'));
      passed = r.numPassedTests ?? 0;
      failed = (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0) + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
      skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    } else {
      failed = 1;
    }
    if (status !== 0 && failed === 0) failed = 1;
    resolve({ passed, failed, skipped, ok: status === 0 && failed === 0, output: Buffer.concat(held).toString('utf8') });
  }));
}

const args = process.argv.slice(2);
// Only for the whole suite: a run of chosen files (`node scripts/test-summary.mjs test/x.test.ts`) is just that.
const shiftTo = process.env.DATE_GUARD_DAY ?? '2028-02-29 12:00:00';
const guarded = args.length === 0 && shiftTo !== 'off';
const files = guarded ? readFileSync('test/date-sensitive.txt', 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')) : [];
const faketime = guarded && spawnSync('faketime', ['-f', '+0', 'true']).status === 0;
// Monotonic time stays real, so timers and timeouts behave; only the calendar moves.
const guard = faketime
  ? vitest(files, { prefix: ['faketime', '-f', `@${shiftTo}`], env: { ...process.env, FAKETIME_DONT_FAKE_MONOTONIC: '1' }, out: '.vitest-results-dates.json', hold: true })
  : undefined;
const total = await vitest(args);
if (guarded && !faketime) {
  console.log('date guard: faketime is not installed (make test installs it); counted as a failure');
  total.failed += 1;
  total.ok = false;
} else if (guard) {
  const shifted = await guard;
  console.log(`\ndate guard: ${files.length} date-sensitive file(s) again on ${shiftTo} (libfaketime), beside the main pass`);
  process.stdout.write(shifted.output);
  total.passed += shifted.passed;
  total.failed += shifted.failed;
  total.skipped += shifted.skipped;
  total.ok &&= shifted.ok;
}
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.ok ? 0 : 1);
