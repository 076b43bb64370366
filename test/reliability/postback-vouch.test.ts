/**
 * A postback must match what was posted before it is loaded (issue 22, point 3). The service does not sign callbacks:
 * whoever learns the receiver's address (it is echoed in every task's data) can post results for a real task. Here
 * forged postbacks with the right secret and a real task id arrive before the service has completed the task: one
 * with the task's real echo but another keyword, one with no echo at all. Neither is loaded, and the genuine
 * postbacks that follow are (they used to be turned away: the forged results had taken the task's place).
 */
import { afterAll, expect, test } from 'vitest';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, closeProject, runInProcess, snapshotOf, withDb } from './helpers.js';

const PIPELINE = path.join(ROOT, 'test', 'reliability', 'pipelines', 'postback.yaml');
let p: TestProject | undefined;
afterAll(() => closeProject(p));

function forged(id: string, data: Record<string, unknown>): Buffer {
  return gzipSync(JSON.stringify({
    version: '0.1.20240801', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
    tasks: [{
      id, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0.001, result_count: 1, path: ['v3', 'merchant', 'google', 'products', 'task_get', 'advanced', id], data,
      result: [{ keyword: 'FORGED', type: 'shopping', se_domain: 'google.com', location_code: 2840, language_code: 'en', check_url: 'https://forged.example', datetime: '2026-01-01 00:00:00 +00:00', item_types: ['shopping_serp'], items_count: 1,
        items: [{ type: 'shopping_serp', rank_group: 1, rank_absolute: 1, position: 'left', title: 'FORGED product', product_id: '1', price: 1, currency: 'USD' }] }],
    }],
  }));
}

test('forged postbacks for real tasks, sent before the service completed them, are not loaded; the genuine ones are', async () => {
  // The service takes 2 s per task: the forged bodies come first.
  p = await startProject({ ...SANDBOX_EXTRA, sandbox: { ...SANDBOX_EXTRA.sandbox, completion_delay_ms: 2000 } });
  const project = p;
  const statuses: number[] = [];
  let attacking: Promise<void> | undefined;
  const watch = setInterval(() => {
    const posted = project.sandbox.controls.postings().filter((x) => typeof (x.data as Record<string, unknown>).postback_url === 'string');
    if (attacking || posted.length < 2) return;
    attacking = (async () => {
      await new Promise((r) => setTimeout(r, 300)); // the run has recorded and tracked them
      const [a, b] = posted;
      const echo = a.data as Record<string, unknown>;
      const url = (id: string) => String(echo.postback_url).replace('$id', id).replace('$tag', 'x');
      const bodies = [forged(a.id, { ...echo, keyword: 'FORGED keyword' }), forged(b.id, {})];
      for (const [i, body] of bodies.entries()) {
        const res = await fetch(url(i === 0 ? a.id : b.id), { method: 'POST', body, headers: { 'content-encoding': 'gzip' } });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    })();
  }, 5);
  try {
    const r = await runInProcess(project, { collect: { straggler_after_ms: 60_000 } }, PIPELINE);
    await attacking;
    expect(r.exitCode, r.log.slice(-3000)).toBe(0);
    expect(statuses, 'the forged postbacks were taken').toEqual([404, 404]);
    expect(r.log).toMatch(/postback does not match the task posted/);
    await withDb(path.join(project.dataDir, 'warehouse.duckdb'), async (query) => {
      const states = await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL`);
      expect(states).toEqual([{ state: 'loaded', n: 4 }]);
      expect(JSON.stringify(await snapshotOf(query)), 'forged results in the warehouse').not.toContain('FORGED');
      // Every task has its genuine results: one merchant_shopping row each, with its own keyword.
      const keywords = await query(`SELECT keyword FROM merchant_shopping ORDER BY keyword`);
      expect(keywords.map((k) => k.keyword)).toEqual(['camping tent', 'hiking boots', 'sleeping bag', 'trail shoes']);
    });
    // They came by postback, not by a fetch the run made after a straggler wait.
    expect(project.sandbox.controls.calls().filter((c) => /task_get/.test(c.path)).length).toBe(0);
  } finally {
    clearInterval(watch);
  }
}, 120_000);
