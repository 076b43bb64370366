/**
 * tasks_ready lists only tasks completed in the last three days (the live service's help page on completed tasks,
 * docs/api-live.md [limits.tasks_ready]): a resumed run collects tasks an earlier attempt posted more than three
 * days before by id, straight from the ledger, instead of waiting for a listing that never comes; so it does with
 * postback tasks, which tasks_ready never lists. The ledger and
 * the collect stage run on injected clocks.
 */
import { afterEach, expect, test } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { Ledger } from '../../src/ledger/index.js';
import { resumeOutstanding, READY_WINDOW_MS } from '../../src/collect/recover.js';
import type { Collector, TrackedTask } from '../../src/collect/index.js';
import type { CollectContext } from '../../src/collect/context.js';
import type { PlannedTask } from '../../src/pipeline/index.js';
import { createLogger } from '../../src/log/logger.js';

const RUN = 'nightly-2024-05-01';
let close: (() => void) | undefined;
afterEach(() => close?.());

const task = (key: string): PlannedTask => ({
  key, runId: RUN, step: 'events', stepIndex: 0, endpointId: 'serp.events.task_post',
  params: { keyword: `kw ${key}`, location_code: 2840, tag: `seo-etl/nightly/events/${key}` }, collect: 'tasks_ready', price: 0.0006,
});

test('a resume collects by id the tasks posted over three days before, and waits for tasks_ready to list the others', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  close = () => { conn.closeSync(); instance.closeSync(); };
  let clockMs = Date.parse('2024-05-01T02:00:00Z');
  const ledger = await Ledger.open(conn, { clock: () => new Date(clockMs) });
  await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
  await ledger.planTasks([...['a1', 'a2', 'b1'].map(task), { ...task('p1'), step: 'products', stepIndex: 1, endpointId: 'merchant.google.products.task_post', collect: 'postback' }]);
  const post = async (key: string) => {
    await ledger.beginPost(RUN, [key]);
    await ledger.recordPosted(RUN, [{ key, serviceId: `svc-${key}`, cost: 0.0006 }]);
  };
  await post('a1');
  await post('a2');
  clockMs += 2 * 24 * 3600 * 1000; // two days later, the rest
  await post('b1');
  await post('p1');

  const tracked: TrackedTask[] = [];
  const fetched: TrackedTask[] = [];
  const collector = { track: (ts: TrackedTask[]) => tracked.push(...ts), fetchNow: (ts: TrackedTask[]) => fetched.push(...ts), awaitTags: () => undefined } as unknown as Collector;
  const resumeAt = (ms: number) => resumeOutstanding({
    ledger, runId: RUN, logger: createLogger({ level: 'silent' }), progress: { add: () => undefined, counts: {} }, rawDir: '/nonexistent', now: () => ms,
  } as unknown as CollectContext, collector);

  // A day after the last post: all three are within tasks_ready's window.
  await resumeAt(clockMs + 24 * 3600 * 1000);
  // A postback task is never listed (L1): fetched by id whatever its age.
  expect({ tracked: tracked.map((t) => t.key).sort(), fetched: fetched.map((t) => t.key) }).toEqual({ tracked: ['a1', 'a2', 'b1'], fetched: ['p1'] });
  fetched.length = 0;

  // Three days and an hour after the first posts: a1 and a2 are fetched by id, b1 still waits to be listed.
  tracked.length = 0;
  await resumeAt(clockMs - 2 * 24 * 3600 * 1000 + READY_WINDOW_MS + 3600 * 1000);
  expect({ tracked: tracked.map((t) => t.key), fetched: fetched.map((t) => t.key).sort() }).toEqual({ tracked: ['b1'], fetched: ['a1', 'a2', 'p1'] });
  expect(fetched.map((t) => t.serviceId).sort()).toEqual(['svc-a1', 'svc-a2', 'svc-p1']);
});
