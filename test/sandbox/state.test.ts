/**
 * A sandbox given a state file remembers its tasks across processes, as the live service does: after a restart,
 * posted tasks are fetched by id, uncollected ones are listed, collected ones are not, and nothing is billed again.
 */
import { afterAll, expect, test } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { manualClock, startSandbox } from '../../src/sandbox/index.js';
import { client, pathOf, testConfig } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-sbstate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const POST = pathOf('keywords_for_site.task_post');
const READY = pathOf('keywords_for_site.tasks_ready');

test('tasks, collection and re-listing survive a restart; a torn last line is ignored', async () => {
  const stateFile = path.join(dir, 'sandbox', 'tasks.ndjson');
  const config = testConfig({ completion_delay_ms: 1000, reparse_share: 0 });
  const clock = manualClock(Date.UTC(2026, 10, 1, 12));
  const first = await startSandbox({ config, port: 0, clock, stateFile });
  const api1 = client(first);
  const posted = (await api1.post(POST, [1, 2, 3].map((i) => ({ target: `site${i}.example.com`, location_code: 2840, tag: `t${i}` })))).json.tasks;
  const ids: string[] = posted.map((t: { id: string }) => t.id);
  clock.advance(1000);
  expect((await api1.get(pathOf('keywords_for_site.task_get', ids[0]))).json.tasks[0].status_code).toBe(20000);
  await first.close();
  // A kill can cut the last line short.
  appendFileSync(stateFile, '{"e":"collect","id":"');

  const second = await startSandbox({ config, port: 0, clock, stateFile });
  const api2 = client(second);
  const listed = (await api2.get(READY)).json.tasks[0].result.map((r: { id: string }) => r.id).sort();
  expect(listed).toEqual([ids[1], ids[2]].sort());
  const again = (await api2.get(pathOf('keywords_for_site.task_get', ids[1]))).json.tasks[0];
  expect([again.status_code, again.data.tag]).toEqual([20000, 't2']);
  expect(second.controls.billed()).toBe(0);
  await second.close();

  // The file was compacted to one line per task, and a third start still knows all three.
  expect(readFileSync(stateFile, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(3);
  const third = await startSandbox({ config, port: 0, clock, stateFile });
  expect((await client(third).get(pathOf('keywords_for_site.task_get', ids[2]))).json.tasks[0].status_code).toBe(20000);
  expect((await client(third).get(READY)).json.tasks[0].result).toEqual([]);
  await third.close();
});

test('without a state file the sandbox forgets, as before', async () => {
  const config = testConfig({ completion_delay_ms: 0 });
  const a = await startSandbox({ config, port: 0 });
  const id = (await client(a).post(POST, [{ target: 'x.example.com', location_code: 2840 }])).json.tasks[0].id;
  await a.close();
  const b = await startSandbox({ config, port: 0 });
  expect((await client(b).get(pathOf('keywords_for_site.task_get', id))).json.tasks[0].status_code).toBe(40401);
  await b.close();
});
