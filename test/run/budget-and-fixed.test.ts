import { afterEach, describe, expect, test } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { runJob } from '../../src/run/job.js';
import { EXIT } from '../../src/exit.js';
import { ROOT, collectStream, pipelineFile, queryFile, startProject, type TestProject } from '../helpers/project.js';

let p: TestProject | undefined;
afterEach(async () => { await p?.close(); p = undefined; });

const run = (file: string, runDate: string) =>
  runJob({ root: ROOT, pipelineFile: file, runDate, env: p!.env, configOverrides: p!.overrides, progress: false, out: collectStream(), logDestination: collectStream() });

describe('budget', () => {
  test('a run posts what fits (part of a batch), plans and posts a later step that still fits, says what was not posted and why, exits 4', async () => {
    p = await startProject({ sandbox: { keywords_per_site_task: 2 } });
    const targets = Array.from({ length: 250 }, (_, i) => `site${i}.example.com`);
    // 0.075 per task (config prices): 133 tasks cost 9.975, the 134th would pass 10. The events step after it
    // (0.0006 a task) still fits in what is left.
    const file = pipelineFile(`name: budget\nbudget_usd: 10\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [${targets.join(', ')}]\n  - name: events\n    endpoint: serp.events.task_post\n    params: { language_code: en, location_code: 2840 }\n    for_each:\n      keyword: [concerts, theatre, festivals]\n`);
    const out = collectStream();
    const r = await runJob({ root: ROOT, pipelineFile: file, runDate: '2026-01-05', env: p!.env, configOverrides: p!.overrides, progress: false, out, logDestination: collectStream() });
    expect(r.exitCode).toBe(EXIT.budget);
    expect(r.status).toBe('stopped_budget');
    expect(p.sandbox.controls.postings()).toHaveLength(136);
    expect(p.sandbox.controls.billed()).toBeCloseTo(9.975 + 3 * 0.0006, 6);
    expect(r.summary!.byState.loaded).toBe(136);
    expect(r.summary!.byState.planned).toBe(117);
    expect(r.summary!.steps.map((s) => [s.step, s.byState.loaded, s.byState.planned])).toEqual([['sites', 133, 117], ['events', 3, 0]]);
    expect(out.text()).toContain('not posted: 117 x - over the budget: it would pass budget_usd $10.00 (spent $9.975) (step sites)');
    const [{ tasks }] = await queryFile(r.publishedPath, `SELECT count(DISTINCT _task_id)::INT AS tasks FROM keyword_data`);
    expect(tasks).toBe(133);
    // The budget raised, `resume` posts the rest, once.
    writeFileSync(file, readFileSync(file, 'utf8').replace('budget_usd: 10', 'budget_usd: 100'));
    const again = await runJob({ root: ROOT, pipelineFile: file, resume: true, env: p!.env, configOverrides: p!.overrides, progress: false, out: collectStream(), logDestination: collectStream() });
    expect(again.exitCode).toBe(EXIT.ok);
    expect(again.summary!.byState.loaded).toBe(253);
    expect(p.sandbox.controls.postings()).toHaveLength(253);
  });
});

describe('budget and live steps', () => {
  test('a live step stopped at the budget leaves a later, cheaper live step what is left', async () => {
    p = await startProject();
    // keywords_ads live: 0.075 a call, one of three fits 0.1; the paraphrases (0.0001 each) still fit after it.
    const file = pipelineFile(`name: live\nbudget_usd: 0.1\nsteps:\n  - name: ads\n    endpoint: keywords_data.google_ads.keywords_for_site.live\n    params: { location_code: 2840, language_code: en }\n    for_each:\n      target: [a.example.com, b.example.com, c.example.com]\n  - name: texts\n    endpoint: content_generation.paraphrase.live\n    params: { creativity_index: 0.5 }\n    for_each:\n      text: [hello world, good night]\n`);
    const r = await run(file, '2026-01-06');
    expect(r.exitCode).toBe(EXIT.budget);
    expect(r.summary!.steps.map((s) => [s.step, s.byState.loaded, s.byState.planned])).toEqual([['ads', 1, 2], ['texts', 2, 0]]);
    expect(p.sandbox.controls.billed()).toBeCloseTo(0.0752, 6);
  });
});

describe('tasks_fixed', () => {
  test("the next run re-collects re-parsed results of an earlier run and replaces their rows", async () => {
    p = await startProject({ sandbox: { reparse_share: 0 } });
    const file = pipelineFile(`name: events\nbudget_usd: 1\nsteps:\n  - name: events\n    endpoint: serp.events.task_post\n    params: { language_code: en }\n    for_each:\n      keyword: [concerts, theatre, festivals]\n      location_code: [2840, 2826]\n  - name: fixed\n    endpoint: serp.events.tasks_fixed\n`);
    const first = await run(file, '2026-01-05');
    expect(first.exitCode).toBe(0);
    const firstIds = (await queryFile(first.publishedPath, `SELECT service_id FROM _tasks WHERE run_id = '${first.runId}' AND step = 'events'`)).map((r) => String(r.service_id));
    expect(firstIds).toHaveLength(6);
    const before = await queryFile(first.publishedPath, `SELECT _task_id, datetime FROM events_serp ORDER BY _task_id`);

    const reparsed = p.sandbox.controls.reparse(firstIds.slice(0, 2));
    expect(reparsed).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1100)); // the re-parse moves `datetime` to the second after

    const second = await run(file, '2026-01-06');
    expect(second.exitCode).toBe(0);
    const fixedListed = await queryFile(second.publishedPath, `SELECT fixed_task_id FROM fixed_tasks WHERE _run_id = '${second.runId}'`);
    expect(fixedListed.map((r) => String(r.fixed_task_id)).sort()).toEqual([...reparsed].sort());

    const after = await queryFile(second.publishedPath, `SELECT _task_id, datetime FROM events_serp WHERE list_contains(['${firstIds.join("','")}'], _task_id) ORDER BY _task_id`);
    expect(after).toHaveLength(before.length); // replaced, not added
    const changed = after.filter((row, i) => String(row.datetime) !== String(before[i].datetime)).map((r) => String(r._task_id));
    expect(changed.sort()).toEqual([...reparsed].sort());
    // Parquet reads the same: the earlier run's parts no longer hold the rows the second run replaced.
    for (const t of ['tasks', 'events_serp', 'events_serp__items']) {
      const [{ n }] = await queryFile(second.publishedPath, `SELECT count(*)::INT AS n FROM ${t}`);
      const [{ m }] = await queryFile(second.publishedPath, `SELECT count(*)::INT AS m FROM read_parquet('${p.dataDir}/parquet/${t}/**/*.parquet')`);
      expect(m, t).toBe(n);
    }
  });
});
