/**
 * docs/api-live.md: the job's behaviour for each account answer, a retired endpoint and the preflight (issue 17's
 * account half, issue 19's points 3 and 4): each stops posting with one clear line and its exit code, loses
 * nothing, leaves nothing `posting`, and the run resumes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { runJob } from '../../src/run/job.js';
import { describeError, exitCodeOf, EXIT } from '../../src/exit.js';
import { checkCommand } from '../../src/check/index.js';
import type { PauseHook } from '../../src/pause.js';
import { ROOT, collectStream, pipelineFile, queryFile, startProject, type TestProject } from '../helpers/project.js';

let p: TestProject | undefined;
afterEach(async () => { await p?.close(); p = undefined; });

const SITES = (n: number, budget = 100) => pipelineFile(
  `name: sites\nbudget_usd: ${budget}\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [${Array.from({ length: n }, (_, i) => `site${i}.example.com`).join(', ')}]\n`,
);

async function run(file: string, runDate: string, opts: { env?: NodeJS.ProcessEnv; overrides?: Record<string, unknown>; resume?: boolean; pause?: PauseHook } = {}) {
  const out = collectStream();
  const r = await runJob({
    root: ROOT, pipelineFile: file, runDate, resume: opts.resume, pause: opts.pause, env: opts.env ?? p!.env, configOverrides: { ...p!.overrides, ...opts.overrides },
    progress: false, out, logDestination: collectStream(), stderrLog: false,
  });
  return { ...r, text: out.text() };
}

const states = async (file: string, runId: string) =>
  Object.fromEntries((await queryFile(file, `SELECT state, count(*)::INT AS n FROM _tasks WHERE run_id = '${runId}' GROUP BY state`)).map((r) => [String(r.state), Number(r.n)]));
const runStatus = async (file: string, runId: string) => String((await queryFile(file, `SELECT status FROM _runs WHERE run_id = '${runId}'`))[0].status);

describe('account answers stop posting, keep everything and resume (exit 5)', () => {
  it('[account.preflight] wrong credentials: the preflight stops the run before anything is planned or posted; a summary, no stack', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    const file = SITES(5);
    const r = await run(file, '2026-02-01', { env: { ...p.env, SEO_ETL_PASSWORD: 'wrong' } });
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.status).toBe('aborted');
    expect(r.text).toMatch(/stopped posting: .*HTTP 401.*check SEO_ETL_LOGIN and SEO_ETL_PASSWORD/);
    expect(r.text).not.toMatch(/\n\s+at /);
    expect(p.sandbox.controls.postings()).toHaveLength(0);
    expect((await states(r.publishedPath, r.runId)).posting ?? 0).toBe(0);
    expect(await runStatus(r.publishedPath, r.runId)).toBe('aborted');
    // Fixed: resume posts and loads everything, once.
    const again = await run(file, '2026-02-01', { resume: true });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(again.summary!.byState.loaded).toBe(5);
    expect(p.sandbox.controls.postings()).toHaveLength(5);
  });

  const midRun = (name: string, account: Record<string, number>, code: number, advice: RegExp) => async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    p.sandbox.controls.setAccount(account);
    const file = SITES(25);
    const batches = { api: { ...(p.overrides.api as object), tasks_per_post: 10 } };
    // 0.075 a task: the first POST of 10 spends 0.75, then the account refuses the next (${name}).
    const r = await run(file, '2026-02-02', { overrides: batches });
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.text).toMatch(advice);
    expect(r.text).toContain(`not posted: 15 x ${code} `);
    expect(p.sandbox.controls.postings()).toHaveLength(10);
    expect(await states(r.publishedPath, r.runId)).toEqual({ loaded: 10, planned: 15 });
    const [{ tasks }] = await queryFile(r.publishedPath, `SELECT count(DISTINCT _task_id)::INT AS tasks FROM keyword_data`);
    expect(tasks).toBe(10);

    p.sandbox.controls.setAccount({ funds: 1000, dailyCostLimit: null });
    const again = await run(file, '2026-02-02', { resume: true, overrides: batches });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(await states(again.publishedPath, again.runId)).toEqual({ loaded: 25 });
    expect(p.sandbox.controls.postings()).toHaveLength(25);
  };
  it('[account.job_payment] 402 mid-run: the refused batch goes back to planned, what was posted is loaded, resume posts the rest once (exit 5)',
    midRun('402', { funds: 0.75 }, 40200, /top up the balance/), 90_000);
  it('[account.job_cost_limit] 40203 mid-run: the same, with the daily cost limit\'s advice (exit 5)',
    midRun('40203', { dailyCostLimit: 0.75 }, 40203, /daily cost limit is reached/), 90_000);

  it('[account.job_access] 40204 no access to the endpoint: nothing posted, exit 5, the step named', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    p.sandbox.controls.setAccount({ deniedEndpoints: ['keywords_for_site.task_post'] });
    const r = await run(SITES(5), '2026-02-03');
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.text).toMatch(/stopped posting: .*40204.*no access to this endpoint.*\(step sites\)/);
    expect(await states(r.publishedPath, r.runId)).toEqual({ planned: 5 });
  });

  it('[account.job_duplicates] 40205 duplicate-task limit: the repeated tasks go back to planned, posting stops, exit 5', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    const file = SITES(5);
    p.sandbox.controls.setAccount({ duplicatesPerHour: 1 });
    expect((await run(file, '2026-02-04')).exitCode).toBe(EXIT.ok);
    const r = await run(file, '2026-02-05');
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.text).toMatch(/stopped posting: 40205 .*duplicate-task limit per hour/);
    expect(await states(r.publishedPath, r.runId)).toEqual({ planned: 5 });
    p.sandbox.controls.setAccount({ duplicatesPerHour: null });
    const again = await run(file, '2026-02-05', { resume: true });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(await states(again.publishedPath, again.runId)).toEqual({ loaded: 5 });
  });

  it('[account.job_collect] access withdrawn while collecting: the posted tasks stay posted, exit 5, resume collects them', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    const file = SITES(3);
    const cut: PauseHook = async (point) => {
      if (point === 'posted') p!.sandbox.controls.setAccount({ deniedEndpoints: ['keywords_for_site.tasks_ready', 'keywords_for_site.task_get'] });
    };
    const r = await run(file, '2026-02-09', { pause: cut });
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.text).toMatch(/stopped posting: .*40204/);
    expect(await states(r.publishedPath, r.runId)).toEqual({ posted: 3 });
    expect(await runStatus(r.publishedPath, r.runId)).toBe('aborted');
    p.sandbox.controls.setAccount({ deniedEndpoints: [] });
    const again = await run(file, '2026-02-09', { resume: true });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(await states(again.publishedPath, again.runId)).toEqual({ loaded: 3 });
    expect(p.sandbox.controls.postings()).toHaveLength(3);
  });
});

describe('a retired endpoint (HTTP 404)', () => {
  it('[events.retired] HTTP 404 fails its step with the endpoint and step named, loads the other steps, exits 1, and is not asked again', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    // The whole family is gone, as on the live service since 2026-09-15 (docs/api-live.md).
    p.sandbox.controls.setAccount({ retiredEndpoints: ['serp.events.task_post', 'serp.events.tasks_ready', 'serp.events.tasks_fixed', 'serp.events.task_get.advanced'] });
    const file = pipelineFile(`name: mixed\nbudget_usd: 10\nsteps:\n  - name: events\n    endpoint: serp.events.task_post\n    params: { language_code: en, location_code: 2840 }\n    for_each:\n      keyword: [concerts, theatre, festivals]\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [a.example.com, b.example.com]\n`);
    const r = await run(file, '2026-02-06');
    expect(r.exitCode).toBe(EXIT.taskFailures);
    expect(r.text).toMatch(/endpoint gone: the service has no endpoint \/v3\/serp\/\S+\/events\/task_post \(HTTP 404.*step events \(serp\.events\.task_post\) failed/);
    expect(await states(r.publishedPath, r.runId)).toEqual({ failed: 3, loaded: 2 });
    const eventCalls = () => p!.sandbox.controls.calls().filter((c) => c.path.includes('/events/task_post')).length;
    expect(eventCalls()).toBe(1);
    const again = await run(file, '2026-02-06');
    expect(again.exitCode).toBe(EXIT.taskFailures);
    expect(eventCalls()).toBe(1);
    expect(p.sandbox.controls.postings()).toHaveLength(2);
  });
});

describe('preflight', () => {
  it('[account.preflight_unreachable] a refused connection stops the run at once with one clear line (exit 7), nothing posting, the run not left running', async () => {
    p = await startProject();
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => { const a = s.address() as { port: number }; s.close(() => resolve(a.port)); });
    });
    const started = Date.now();
    const r = await run(SITES(3), '2026-02-07', { env: { ...p.env, SEO_ETL_API_BASE_URL: `http://127.0.0.1:${port}` }, overrides: { api: { ...(p.overrides.api as object), base_url: `http://127.0.0.1:${port}` } } });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.exitCode).toBe(EXIT.unreachable);
    expect(r.text).toMatch(new RegExp(`stopped posting: the service at http://127\\.0\\.0\\.1:${port} could not be reached \\(.*ECONNREFUSED`));
    expect(r.text).not.toMatch(/\n\s+at /);
    expect(await runStatus(r.publishedPath, r.runId)).toBe('aborted');
    expect((await states(r.publishedPath, r.runId)).posting ?? 0).toBe(0);
    // `seo-etl check` says the same with the same code.
    const err = await checkCommand({ root: ROOT, env: { ...p.env, SEO_ETL_API_BASE_URL: `http://127.0.0.1:${port}` }, out: () => undefined }).then(() => undefined, (e: unknown) => e);
    expect(exitCodeOf(err)).toBe(EXIT.unreachable);
    expect(describeError(err)).toMatch(/^appendix\.user_data: the service could not be reached: .*ECONNREFUSED/);
  });

  it('[account.preflight_balance] an account with no money left is stopped before posting (exit 5)', async () => {
    p = await startProject();
    p.sandbox.controls.setAccount({ funds: 0 });
    const r = await run(SITES(3), '2026-02-08');
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.text).toMatch(/stopped posting: the account's balance is \$0\.0000 \(the account has no money left/);
    expect(p.sandbox.controls.calls().filter((c) => c.path.includes('task_post'))).toHaveLength(0);
  });
});
