/**
 * The ledger sweep is a safety net that is never needed (issue 22, point 5). `collectLeftovers` fetches by id any
 * task the ledger still has as posted once the collector has nothing outstanding; it used to be what finished a
 * postback task the collector had lost (the race is reproduced and fixed in test/collect/postback-race.test.ts).
 * Here whole runs of postback tasks whose POSTs often lose their answer after the service created the tasks (so
 * they are adopted by their postbacks, the path of the race) finish with every task loaded by the collector
 * itself: the sweep never finds a task. (faults.test.ts checks the same under every kind of fault.)
 */
import { afterAll, expect, test } from 'vitest';
import path from 'node:path';
import { ROOT, startProject, type TestProject } from '../helpers/project.js';
import { LEFTOVERS_MESSAGE } from '../../src/collect/recover.js';
import type { PauseHook } from '../../src/pause.js';
import { SANDBOX_EXTRA, closeProject, logLines, runInProcess, tagsPostedTwice, withDb } from './helpers.js';

const PIPELINE = path.join(ROOT, 'test', 'reliability', 'pipelines', 'postback-stress.yaml');
const RUNS = Number(process.env.SEO_ETL_POSTBACK_RUNS ?? 3);
const opened: TestProject[] = [];
const slowLoads: PauseHook = (point) => (point === 'load' ? new Promise((r) => setTimeout(r, 60)) : Promise.resolve());
afterAll(async () => {
  for (const p of opened) await closeProject(p);
});

test(`${RUNS} runs of 18 postback tasks, 40% of their POSTs answered with a dropped connection: no task left to the sweep`, async () => {
  let adopted = 0;
  for (let i = 0; i < RUNS; i++) {
    // Tasks complete after their POST's unclear answer is handled: their postbacks adopt them during the drain.
    const p = await startProject({ ...SANDBOX_EXTRA, sandbox: { ...SANDBOX_EXTRA.sandbox, completion_delay_ms: 400 } });
    opened.push(p);
    p.sandbox.controls.setFaults([{ path: '/v3/merchant/', dropAfter: 0.4 }], 100 + i);
    // Each load holds the writer a while (as a large one does), so recording an adopted task's id waits its turn.
    const r = await runInProcess(p, { api: { retries: 6 }, collect: { ambiguous_grace_ms: 3000 } }, PIPELINE, slowLoads);
    const log = logLines(r.log);
    const where = `run ${i + 1}: ${r.out}\n${r.log.slice(-2000)}`;
    expect(r.exitCode, where).toBe(0);
    expect(log.filter((l) => l.msg === LEFTOVERS_MESSAGE), `${where}\nthe sweep found tasks`).toEqual([]);
    expect(tagsPostedTwice(p)).toEqual([]);
    adopted += log.filter((l) => l.msg === 'ambiguous POST resolved: the service has the task').length;
    await withDb(path.join(p.dataDir, 'warehouse.duckdb'), async (query) => {
      expect(await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL`)).toEqual([{ state: 'loaded', n: 18 }]);
    });
  }
  // The path of the race was taken: tasks were adopted by their postbacks (or listings) after an unclear POST.
  expect(adopted).toBeGreaterThan(0);
});
