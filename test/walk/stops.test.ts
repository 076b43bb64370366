/**
 * Issue 32, point 4: stops that say what happened. Ctrl-C names what was interrupted and what resume does; the
 * resume that waits for a batch sent without a clear answer says what for and until when; a service that accepts
 * connections and never answers is given up after two attempts, and --quiet's one line names the reason.
 * Every case is the built CLI, as a user or cron runs it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, runCli } from '../reliability/helpers.js';
import { ROOT, pipelineFile } from '../helpers/project.js';

const PIPELINE = pipelineFile(`name: stops
budget_usd: 5
steps:
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[camping tent], [sleeping bag], [hiking boots], [trail shoes]]
    collect: tasks_ready
`);

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const folder = () => { const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-stops-')); dirs.push(d); return d; };
const fast = (dir: string): NodeJS.ProcessEnv => ({
  ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '', SEO_ETL_LOG_LEVEL: 'info',
  SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200', SEO_ETL_COLLECT_AMBIGUOUS_GRACE_MS: '1500',
});

/** A child `seo-etl` sent `signal` once `marker` appears on stderr. */
function interrupted(args: string[], env: NodeJS.ProcessEnv, marker: string, signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sent = false;
    const hard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (!sent && stderr.includes(marker)) { sent = true; child.kill(signal); }
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(hard); resolve({ code, stderr }); });
  });
}

test('Ctrl-C while posting says what was interrupted and what resume does; resume says what it waits for, until when', async () => {
  const dir = folder();
  const env = fast(dir);
  const r = await interrupted(['run', PIPELINE, '--run-date', '2026-11-20', '--no-progress', '--sandbox'], { ...env, SEO_ETL_TEST_PAUSE_AT: 'posted' }, 'seo-etl test pause: posted', 'SIGINT');
  expect(r.code, r.stderr).toBe(130);
  expect(r.stderr).toMatch(/interrupted \(SIGINT\) with 0 of 4 task\(s\) done/);
  expect(r.stderr).toMatch(/'seo-etl resume' collects the posted tasks/);
  expect(r.stderr).toMatch(/up to 2 s \(collect\.ambiguous_grace_ms\)/);

  const resumed = await runCli(['--sandbox', 'resume', PIPELINE, '--no-progress'], { env, timeoutMs: 60_000 });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/task\(s\) were being posted without a clear answer .*looking for them .* until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(collect\.ambiguous_grace_ms = 2 s\)/);
});

let silent: Server;
let port = 0;
const sockets: Socket[] = [];
let accepted = 0;
beforeAll(async () => {
  // Accepts connections and never answers.
  silent = createServer((s) => { accepted++; sockets.push(s); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(() => { for (const s of sockets) s.destroy(); silent.close(); });

test('a service that never answers is given up after two attempts, and --quiet names the reason', async () => {
  const dir = folder();
  const env = { ...fast(dir), SEO_ETL_API_BASE_URL: `http://127.0.0.1:${port}`, SEO_ETL_API_TIMEOUT_MS: '800', SEO_ETL_API_RETRY_BASE_MS: '20', SEO_ETL_LOGIN: 'a', SEO_ETL_PASSWORD: 'b' };
  accepted = 0;
  const r = await runCli(['--sandbox', 'run', PIPELINE, '--run-date', '2026-11-20', '--quiet'], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(7);
  // Two attempts of the account check (and one look after it); the configured five retries made seven. Under a
  // load average near 20 one more connection was seen once (an attempt's socket opened again), so 4 is allowed.
  expect(accepted).toBeLessThanOrEqual(4);
  const line = r.stdout.trim().split('\n')[0]; // the outcome line (a report line may follow)
  expect(line).toMatch(/exit 7, .*could not be reached/);
});
