/**
 * A postback must match what was posted before it is loaded (issue 22, point 3; issue 31, point 2). The service does
 * not sign callbacks: whoever learns the receiver's address (it is echoed in every task's data) can post results for
 * a real task. Here forged postbacks with the right secret and a real task id arrive before the service has
 * completed the tasks, one forgery per task: no tag, a wrong tag, a wrong keyword, the tag alone (with the
 * endpoint's names: it used to be loaded, and the genuine postback turned away), and a full copy of the real echo.
 * The first four are refused and the genuine postbacks that follow are loaded; the full copy cannot be told from
 * the service's own (a stated limit, docs/reliability.md): it is loaded and the genuine one is refused.
 */
import { afterAll, expect, test } from 'vitest';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pipelineFile, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, closeProject, runInProcess, snapshotOf, withDb } from './helpers.js';

const KEYWORDS = ['camping tent', 'sleeping bag', 'hiking boots', 'trail shoes', 'camp stove'];
const PIPELINE = pipelineFile(`name: forgeries
budget_usd: 5.00
steps:
  - name: products
    endpoint: merchant.google.products.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keyword: [${KEYWORDS.join(', ')}]
    collect: postback
`);
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

test('each forgery for a real task is refused but the full copy; the genuine postbacks of the refused ones are loaded', async () => {
  // The service takes 2 s per task: the forged bodies come first.
  p = await startProject({ ...SANDBOX_EXTRA, sandbox: { ...SANDBOX_EXTRA.sandbox, completion_delay_ms: 2000 } });
  const project = p;
  const statuses: Record<string, number> = {};
  let attacking: Promise<void> | undefined;
  const watch = setInterval(() => {
    const posted = project.sandbox.controls.postings().filter((x) => typeof (x.data as Record<string, unknown>).postback_url === 'string');
    if (attacking || posted.length < KEYWORDS.length) return;
    attacking = (async () => {
      await new Promise((r) => setTimeout(r, 300)); // the run has recorded and tracked them
      const byKeyword = new Map(posted.map((x) => [(x.data as Record<string, unknown>).keyword as string, x]));
      const [noTag, wrongTag, wrongKeyword, tagOnly, fullCopy] = KEYWORDS.map((k) => byKeyword.get(k)!);
      const echo = (x: typeof noTag) => x.data as Record<string, unknown>;
      const { tag: _tag, ...untagged } = echo(noTag);
      const e = echo(tagOnly);
      const forgeries: [string, typeof noTag, Record<string, unknown>][] = [
        ['no tag', noTag, untagged],
        ['wrong tag', wrongTag, { ...echo(wrongTag), tag: echo(wrongKeyword).tag }],
        ['wrong keyword', wrongKeyword, { ...echo(wrongKeyword), keyword: 'FORGED keyword' }],
        ['tag only', tagOnly, { api: e.api, function: e.function, se: e.se, tag: e.tag }],
        ['full copy', fullCopy, { ...echo(fullCopy) }],
      ];
      for (const [name, x, data] of forgeries) {
        const url = String(echo(x).postback_url).replace('$id', x.id).replace('$tag', 'x');
        const res = await fetch(url, { method: 'POST', body: forged(x.id, data), headers: { 'content-encoding': 'gzip' } });
        await res.arrayBuffer();
        statuses[name] = res.status;
      }
    })();
  }, 5);
  try {
    const r = await runInProcess(project, { collect: { straggler_after_ms: 60_000 } }, PIPELINE);
    await attacking;
    expect(r.exitCode, r.log.slice(-3000)).toBe(0);
    expect(statuses, 'what the receiver answered each forgery').toEqual({ 'no tag': 404, 'wrong tag': 404, 'wrong keyword': 404, 'tag only': 404, 'full copy': 200 });
    expect(r.log).toMatch(/postback does not match the task posted/);
    await withDb(path.join(project.dataDir, 'warehouse.duckdb'), async (query) => {
      const states = await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL`);
      expect(states).toEqual([{ state: 'loaded', n: KEYWORDS.length }]);
      // The four refused forgeries' tasks have their genuine results (one row each, their own keyword); the full
      // copy's task has the forged row, as the rules say.
      const keywords = await query(`SELECT keyword FROM merchant_shopping ORDER BY keyword`);
      expect(keywords.map((k) => k.keyword)).toEqual(['FORGED', 'camping tent', 'hiking boots', 'sleeping bag', 'trail shoes']);
    });
    // The genuine ones came by postback, not by a fetch the run made after a straggler wait.
    expect(project.sandbox.controls.calls().filter((c) => /task_get/.test(c.path)).length).toBe(0);
  } finally {
    clearInterval(watch);
  }
});
