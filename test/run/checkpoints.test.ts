import { afterEach, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { EXIT } from '../../src/exit.js';
import { ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';

let p: TestProject | undefined;
afterEach(async () => { await p?.close(); p = undefined; });

/** A pipeline of `n` keywords_for_site targets read from a file, with a budget that lets one batch be posted. */
function bigPipeline(n: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-ckpt-'));
  writeFileSync(path.join(dir, 'targets.txt'), Array.from({ length: n }, (_, i) => `site-${i}.example.com`).join('\n') + '\n');
  const file = path.join(dir, 'p.yaml');
  writeFileSync(file, 'name: big\nbudget_usd: 10\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: { file: targets.txt }\n');
  return file;
}

type Line = { msg: string; after?: string; wal_bytes?: number; done?: boolean; tasks?: number };

describe('checkpoints of a night', () => {
  test('the ledger\'s own writes are checkpointed as they pass the writer\'s log size, before the first load', async () => {
    p = await startProject();
    const log = collectStream();
    const r = await runJob({ root: ROOT, pipelineFile: bigPipeline(10_000), runDate: '2026-01-07', env: { ...p.env, SEO_ETL_LOG_LEVEL: 'debug' }, configOverrides: p.overrides, checkpointWalBytes: 1e6, progress: false, stderrLog: false, out: collectStream(), logDestination: log });
    expect(r.exitCode).toBe(EXIT.budget);
    expect(r.summary!.byState.loaded).toBe(133); // 133 x 0.075 = 9.975 of 10: the budget posts part of the second batch
    const lines = log.text().trim().split('\n').map((l) => JSON.parse(l) as Line);
    const checkpoints = lines.filter((l) => l.msg === 'warehouse checkpoint');
    const firstLoad = lines.findIndex((l) => l.msg === 'results loaded');
    expect(firstLoad).toBeGreaterThan(0);
    // Planning 10,000 tasks writes more than 1MB of log: it is checkpointed before any result is loaded.
    const ledgerCheckpoint = lines.findIndex((l) => l.msg === 'warehouse checkpoint' && l.after === 'ledger' && l.done === true);
    expect(ledgerCheckpoint).toBeGreaterThan(-1);
    expect(ledgerCheckpoint).toBeLessThan(firstLoad);
    expect(checkpoints[0].wal_bytes).toBeGreaterThanOrEqual(1e6);
    expect(lines.filter((l) => l.msg === 'results loaded').reduce((a, l) => a + (l.tasks ?? 0), 0)).toBe(133);
  });

  test('an unknown SEO_ETL_LOG_LEVEL is refused before anything is posted, with the levels it takes', async () => {
    p = await startProject();
    await expect(runJob({ root: ROOT, pipelineFile: bigPipeline(10), env: { ...p.env, SEO_ETL_LOG_LEVEL: 'verbose' }, configOverrides: p.overrides, progress: false, out: collectStream(), logDestination: collectStream() }))
      .rejects.toThrow("SEO_ETL_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, got 'verbose'");
    expect(p.sandbox.controls.postings()).toHaveLength(0);
  });
});
