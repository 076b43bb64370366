/**
 * Issue 32, point 5: a postback pipeline against the live service with no reachable webhook.public_url is warned
 * about by `plan` and `run` before anything is posted, naming tasks_ready as the choice behind NAT; a run whose
 * callbacks never arrive says in its summary how many tasks it fetched by id instead.
 *
 * The "live service" here is this test's sandbox reached at http://[::ffff:127.0.0.1]:<port>: the same machine,
 * but not an address src/config/service.ts counts as a sandbox (so the run treats it as the live service).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile, startProject, type TestProject } from '../helpers/project.js';
import { callbackWarning } from '../../src/pipeline/callbacks.js';

const PIPELINE = pipelineFile(`name: callbacks
budget_usd: 5
steps:
  - name: products
    endpoint: merchant.google.products.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keyword: [camping tent, sleeping bag]
    collect: postback
`);

let p: TestProject;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  p = await startProject();
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-callbacks-'));
  const live = p.sandbox.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
  env = {
    ...p.env, SEO_ETL_API_BASE_URL: live, SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '', SEO_ETL_LOG_LEVEL: 'info',
    SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200', SEO_ETL_COLLECT_STRAGGLER_AFTER_MS: '500', SEO_ETL_API_RETRY_BASE_MS: '20',
    // A public address that refuses every callback, as a home router's would.
    SEO_ETL_WEBHOOK_PUBLIC_URL: 'http://127.0.0.1:1',
  };
});
afterAll(async () => { await p?.close(); rmSync(dir, { recursive: true, force: true }); });

test('plan warns before anything is posted, naming tasks_ready', async () => {
  const r = await runCli(['plan', PIPELINE], { env: { ...env, SEO_ETL_WEBHOOK_PUBLIC_URL: '' }, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/warning: step\(s\) products \(postback\) collect by callback, but webhook\.public_url is empty/);
  expect(r.stdout).toMatch(/Behind NAT or a firewall use collect: tasks_ready/);
});

test('run warns before posting, recovers every task, and its summary counts the callbacks that never came', async () => {
  const r = await runCli(['run', PIPELINE, '--run-date', '2026-11-20', '--no-progress'], { env, timeoutMs: 90_000 });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/webhook\.public_url \(http:\/\/127\.0\.0\.1:1\) is a private address/);
  expect(r.stdout).toMatch(/tasks: 2 \(loaded 2\)/);
  expect(r.stdout).toMatch(/callbacks: 2 never came; fetched by id \(check webhook\.public_url; NAT: tasks_ready\)/);
});

test('no warning for a public address, a polled pipeline, or a sandbox', () => {
  const steps = [{ name: 's', collect: 'postback' as const }];
  expect(callbackWarning(steps, { api: { base_url: 'https://api.dataforseo.com' }, webhook: { public_url: 'https://etl.example.com' } })).toBeUndefined();
  expect(callbackWarning([{ name: 's', collect: 'tasks_ready' as const }], { api: { base_url: 'https://api.dataforseo.com' }, webhook: { public_url: '' } })).toBeUndefined();
  expect(callbackWarning(steps, { api: { base_url: 'sandbox' }, webhook: { public_url: '' } })).toBeUndefined();
  expect(callbackWarning(steps, { api: { base_url: 'https://api.dataforseo.com' }, webhook: { public_url: 'http://192.168.1.20:8080' } })).toMatch(/private address/);
});
