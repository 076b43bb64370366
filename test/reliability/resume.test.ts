/**
 * `seo-etl resume` continues what an earlier attempt left and nothing else (issue 22, point 1): after a finished
 * run of another day, `resume <pipeline>` used to start today's run and post every task again (paid twice), and a
 * plain `resume` exited 2 (bad input). Both now say there is nothing to resume, exit 0 and post nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import path from 'node:path';
import { startProject, queryFile, type TestProject } from '../helpers/project.js';
import { CRASH_PIPELINE, SANDBOX_EXTRA, childEnv, closeProject, runCli, runInProcess } from './helpers.js';

describe('resume with nothing unfinished', () => {
  let p: TestProject;
  let postings = 0;
  let billed = 0;

  beforeAll(async () => {
    p = await startProject(SANDBOX_EXTRA);
    // A backfill: the run is for a day that is not today.
    const r = await runInProcess(p);
    expect(r.exitCode, r.log.slice(-2000)).toBe(0);
    postings = p.sandbox.controls.postings().length;
    billed = p.sandbox.controls.billed();
    expect(postings).toBeGreaterThan(0);
  });
  afterAll(() => closeProject(p));

  const runs = async () => queryFile(path.join(p.dataDir, 'warehouse.duckdb'), `SELECT run_id, status FROM _runs ORDER BY run_id`);

  test('resume <pipeline> posts nothing, starts no run of today, says so and exits 0', async () => {
    const before = await runs();
    const r = await runCli(['resume', CRASH_PIPELINE, '--no-progress'], { env: childEnv(p), timeoutMs: 120_000 });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toMatch(/nothing to resume/);
    expect(p.sandbox.controls.postings().length, 'tasks posted by the resume').toBe(postings);
    expect(p.sandbox.controls.billed()).toBeCloseTo(billed, 6);
    expect(await runs(), 'a new run was opened').toEqual(before);
  });

  test('plain resume says there is nothing to resume and exits 0, not 2', async () => {
    const r = await runCli(['resume', '--no-progress'], { env: childEnv(p), timeoutMs: 120_000 });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toMatch(/nothing to resume/);
    expect(r.stderr).not.toMatch(/seo-etl: /);
    expect(p.sandbox.controls.postings().length).toBe(postings);
  });
});
