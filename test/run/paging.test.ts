import { afterEach, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';

// The job posts planned tasks a page of batches at a time from the ledger (never the whole step at once). With
// 4 tasks per POST a page is 40 tasks: a step of 90 spans three pages, and every one of them must be posted once.

let p: TestProject | undefined;
afterEach(async () => { await p?.close(); p = undefined; });

describe('posting walks the planned tasks page by page', () => {
  test('every page is posted, each task exactly once, in batches of tasks_per_post', async () => {
    p = await startProject();
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pipe-'));
    writeFileSync(path.join(dir, 'targets.txt'), Array.from({ length: 90 }, (_, i) => `site-${i}.example.com`).join('\n'));
    const file = path.join(dir, 'p.yaml');
    writeFileSync(file, 'name: paging\nbudget_usd: 100\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: { file: targets.txt }\n');
    const overrides = { ...p.overrides, api: { ...(p.overrides.api as object), tasks_per_post: 4 } };
    const r = await runJob({ root: ROOT, pipelineFile: file, runDate: '2026-01-05', env: p.env, configOverrides: overrides, progress: false, out: collectStream(), logDestination: collectStream() });
    expect(r.status).toBe('completed');
    expect(r.summary!.byState.loaded).toBe(90);
    const postings = p.sandbox.controls.postings();
    expect(postings).toHaveLength(90);
    expect(new Set(postings.map((x) => x.tag)).size).toBe(90);
    const posts = p.sandbox.controls.calls().filter((c) => c.endpointId === 'keywords_for_site.task_post');
    expect(posts).toHaveLength(Math.ceil(90 / 4));
  });
});
