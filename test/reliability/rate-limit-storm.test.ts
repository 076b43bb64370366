/**
 * Live and list calls under a rate-limit storm (issue 31, point 1): a call answered 40202 on every retry used to be
 * recorded `failed` with error_code 0, `resume` said there was nothing to resume and the night's rows were gone.
 * Answers of a service that did nothing keep the task `planned` with the code; the run makes its passes, ends
 * `aborted` (exit 1) naming them, and `resume` calls them once the storm is over: rows loaded once, nothing billed
 * twice. The free list calls, the paid live calls and the tasks_fixed list are all in the storm.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import path from 'node:path';
import { ROOT, queryFile, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, closeProject, resumeInProcess, runInProcess, tableSnapshot } from './helpers.js';

const STORM = path.join(ROOT, 'test', 'reliability', 'pipelines', 'storm.yaml');
const RETRIES = 2;
const LIVE = '/v3/content_generation/';

let reference: Record<string, string[]>;
let referenceBilled = 0;
let q: TestProject;
const opened: TestProject[] = [];

beforeAll(async () => {
  const p = await startProject(SANDBOX_EXTRA);
  opened.push(p);
  const r = await runInProcess(p, { api: { retries: RETRIES } }, STORM);
  expect(r.exitCode, r.log.slice(-3000)).toBe(0);
  reference = await tableSnapshot(path.join(p.dataDir, 'warehouse.duckdb'));
  referenceBilled = p.sandbox.controls.billed();
  q = await startProject(SANDBOX_EXTRA);
  opened.push(q);
});
afterAll(async () => {
  for (const p of opened) await closeProject(p);
});

describe('a rate-limit storm over live and list calls', () => {
  test('the tasks stay planned with 40202, the run is aborted, resume loads them once and bills nothing twice', async () => {
    // Every call of the run is answered 40202: the first call's retries and every later pass's.
    q.sandbox.controls.setFaults([{ path: '/v3/serp/', rateLimitBurst: 10_000 }, { path: LIVE, rateLimitBurst: 10_000 }]);
    const r = await runInProcess(q, { api: { retries: RETRIES } }, STORM);
    expect(r.exitCode, r.log.slice(-3000)).toBe(1);
    expect(r.status).toBe('aborted');
    const published = path.join(q.dataDir, 'warehouse.duckdb');
    const left = await queryFile(published, `SELECT step, state, error_code FROM _tasks ORDER BY step`);
    expect(left.map((t) => t.step)).toEqual(['events_locations', 'fixed', 'paraphrases', 'paraphrases', 'paraphrases', 'serp_endpoints']);
    for (const t of left) expect([t.step, t.state, t.error_code]).toEqual([t.step, 'planned', 40202]);
    expect(r.out).toMatch(/not posted: 3 x 40202 .*\(step paraphrases\)/);
    expect(r.out).toMatch(/run storm-\S+ aborted/);
    // Each call was tried retries + 1 times in the run and in each of its retries later passes.
    const calls = q.sandbox.controls.calls();
    expect(calls.filter((c) => c.path === '/v3/serp/endpoints')).toHaveLength((RETRIES + 1) * (RETRIES + 1));
    expect(calls.filter((c) => c.path.startsWith(LIVE))).toHaveLength(3 * (RETRIES + 1) * (RETRIES + 1));
    // The tasks_fixed list is asked once collection is over, not in the passes.
    expect(calls.filter((c) => c.path.endsWith('/tasks_fixed'))).toHaveLength(RETRIES + 1);
    expect(q.sandbox.controls.billed()).toBe(0);

    // The storm is over: resume calls what is planned, once.
    q.sandbox.controls.setFaults([]);
    const before = calls.length;
    const again = await resumeInProcess(q, { api: { retries: RETRIES } });
    if ('nothing' in again) throw new Error(`resume found nothing to resume: ${again.nothing}`);
    expect(again.exitCode, again.log.slice(-3000)).toBe(0);
    expect(again.status).toBe('completed');
    const resumed = q.sandbox.controls.calls().slice(before);
    expect(resumed.filter((c) => c.path.startsWith(LIVE))).toHaveLength(3);
    expect(resumed.filter((c) => c.path === '/v3/serp/endpoints')).toHaveLength(1);
    expect(resumed.filter((c) => c.path.endsWith('/tasks_fixed'))).toHaveLength(1);
    const charges = q.sandbox.controls.charges();
    expect(new Set(charges.map((c) => c.taskId)).size).toBe(charges.length);
    expect(q.sandbox.controls.billed()).toBeCloseTo(referenceBilled, 6);
    expect(referenceBilled).toBeGreaterThan(0);
    const tables = await tableSnapshot(published);
    for (const t of Object.keys(reference)) expect(tables[t], `table ${t}`).toEqual(reference[t]);
    expect(tables.serp_endpoints?.length).toBeGreaterThan(0);
    expect(tables.events_locations?.length).toBeGreaterThan(0);
    const [{ n }] = await queryFile(published, `SELECT count(*)::INT AS n FROM _tasks WHERE state <> 'loaded'`);
    expect(n).toBe(0);
  });
});
