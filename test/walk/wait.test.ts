/**
 * Issue 32, point 7 (the lock): a second run exited 3 at once, and its message told the user to delete a lock the
 * next run recovers by itself. `--wait[=duration]` waits for the holder; the message agrees with the README.
 */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, runCli } from '../reliability/helpers.js';
import { ROOT, pipelineFile } from '../helpers/project.js';

const PIPELINE = pipelineFile(`name: waiting
budget_usd: 1
steps:
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[camping tent]]
    collect: tasks_ready
`);
const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-wait-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '', SEO_ETL_LOG_LEVEL: 'warn',
  SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200' };
const run = (...flags: string[]) => runCli(['--sandbox', 'run', PIPELINE, '--run-date', '2026-11-20', '--no-progress', ...flags], { env, timeoutMs: 60_000 });
// This test process is alive on this host: its lock is a live run's.
const hold = () => writeFileSync(path.join(dir, 'run.lock'), `${JSON.stringify({ pid: process.pid, host: hostname(), started_at: '2026-11-20T02:00:00.000Z', run_id: 'nightly-2026-11-20' })}\n`);

test('without --wait: exit 3 at once, naming --wait, and saying a dead holder\'s lock is recovered by itself', async () => {
  hold();
  const r = await run();
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(/Pass --wait \(or --wait=2h\) to wait for it to finish/);
  expect(r.stderr).toMatch(/a lock left by a process that is gone is recovered automatically/);
  expect(r.stderr).not.toMatch(/delete the lock file/);
});

test('--wait=1s gives up after the wait with the same exit 3, saying until when it waited', async () => {
  hold();
  const r = await run('--wait=1s');
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(/waiting until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(--wait\) for the run that holds the warehouse \(pid \d+, run nightly-2026-11-20\)/);
});

test('--wait runs once the holder finishes', async () => {
  hold();
  // The holder finishes once the waiting run has said it waits.
  const child = spawn(process.execPath, [CLI, '--sandbox', 'run', PIPELINE, '--run-date', '2026-11-20', '--no-progress', '--wait=60s'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => {
    const before = stderr.includes('waiting until');
    stderr += c.toString();
    if (!before && stderr.includes('waiting until')) setTimeout(() => unlinkSync(path.join(dir, 'run.lock')), 300);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  expect(stdout).toMatch(/completed/);
});

test('a duration that is not one is bad input', async () => {
  const r = await run('--wait=soon');
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/must be a duration such as 90s, 30m, 2h or 1d/);
});
