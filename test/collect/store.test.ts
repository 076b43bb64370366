import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/queue/index.js';
import { createLogger } from '../../src/log/logger.js';
import { sandboxClient } from '../helpers/api-client.js';
import { channelOf } from '../helpers/channel.js';
import { ROOT } from '../helpers/project.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import { Collector, type TrackedTask, type WaitingStore } from '../../src/collect/index.js';

// With a store (the job's is the ledger), polled tasks wait outside the collector: it holds only the tasks it is
// fetching, so its memory does not grow with the number of tasks posted. These tests fail if tracking went back
// to keeping every posted task in memory, or if tasks waiting in the store were not collected.

const POST = 'keywords_for_site.task_post';
let config: Config;
let sandbox: Sandbox;
beforeAll(async () => {
  config = loadConfig({ root: ROOT, env: {}, overrides: { sandbox: { completion_delay_ms: 0, keywords_per_site_task: 1 } } });
  sandbox = await startSandbox({ config, port: 0 });
});
afterAll(async () => { await sandbox?.close(); });

function client(): ApiClient {
  return sandboxClient(sandbox, config, { limiter: new RateLimiter({ calls: 10_000, windowMs: 1000, concurrency: 8 }), timeoutMs: 3000, retries: 2 });
}

/** A store as the job's ledger behaves: a task waits until its result is recorded (the sink). */
class MapStore implements WaitingStore {
  readonly tasks = new Map<string, TrackedTask & { postedAt: number }>();
  lookups = 0;
  async waiting() {
    const by = new Map<string, number>();
    for (const t of this.tasks.values()) by.set(t.postId, (by.get(t.postId) ?? 0) + 1);
    return [...by].map(([postId, count]) => ({ postId, count }));
  }
  async lookup(ids: readonly string[]) {
    this.lookups++;
    return ids.flatMap((id) => (this.tasks.has(id) ? [this.tasks.get(id)!] : []));
  }
  async overdue(before: number, limit: number) {
    return [...this.tasks.values()].filter((t) => t.postedAt < before).sort((a, b) => a.postedAt - b.postedAt).slice(0, limit);
  }
}

async function post(c: ApiClient, n: number, prefix: string): Promise<TrackedTask[]> {
  const outcomes = await c.postTasks(POST, Array.from({ length: n }, (_, i) => ({ target: `${prefix}-${i}.example.com`, location_code: 2840, language_code: 'en' })));
  return outcomes.map((o, i) => {
    if (!o.ok) throw new Error(`post ${i}: ${o.error.message}`);
    return { key: `${prefix}${i}`, serviceId: o.task.id, postId: POST, mode: 'tasks_ready' as const };
  });
}

describe('a collector with a store', () => {
  test('holds none of the tracked polled tasks, counts them from the store, and collects every one by polling', async () => {
    const c = client();
    const store = new MapStore();
    const loaded: CollectedTask[] = [];
    let maxHeld = 0;
    const collector = new Collector({
      client: c, engines: config.paths, logger: createLogger({ level: 'silent' }), store, maxInFlight: 4, pollMinMs: 5, pollMaxMs: 20,
      load: channelOf(async (results) => {
        maxHeld = Math.max(maxHeld, collector.held);
        for (const r of results) {
          loaded.push(r);
          store.tasks.delete(r.task.id);
        }
      }, { maxCount: 10, onFailed: async (id) => { store.tasks.delete(id); } }),
    });
    const tasks = await post(c, 120, 'site');
    for (const t of tasks) store.tasks.set(t.serviceId, { ...t, postedAt: Date.now() });
    collector.track(tasks);
    expect(collector.held).toBe(0);
    expect(await collector.outstanding()).toBe(120);
    expect(await collector.drain(Date.now() + 20_000)).toBe(0);
    expect(loaded.map((r) => r.task.id).sort()).toEqual(tasks.map((t) => t.serviceId).sort());
    // Each result names its ledger key (the job's ledger finds a task by key without reading the whole run).
    const keyOf = new Map(tasks.map((t) => [t.serviceId, t.key]));
    expect(loaded.map((r) => r.key)).toEqual(loaded.map((r) => keyOf.get(r.task.id)));
    expect(store.tasks.size).toBe(0);
    expect(collector.held).toBe(0);
    // While collecting it held the tasks being fetched and recorded, never all of them.
    expect(maxHeld).toBeLessThan(120);
    expect(store.lookups).toBeGreaterThan(0);
  });

  test('a waiting task no poll lists is fetched by id once it is overdue', async () => {
    const c = client();
    const store = new MapStore();
    const loaded: string[] = [];
    const collector = new Collector({
      client: c, engines: config.paths, logger: createLogger({ level: 'silent' }), store, pollMinMs: 5, pollMaxMs: 20, stragglerAfterMs: 50,
      load: channelOf(async (results) => { for (const r of results) { loaded.push(r.task.id); store.tasks.delete(r.task.id); } }, { onFailed: async (id) => { store.tasks.delete(id); } }),
    });
    const [t] = await post(c, 1, 'straggler');
    // Collected already by someone else's task_get, so tasks_ready no longer lists it: only the lookup by id finds it.
    expect((await c.taskGet('keywords_for_site.task_get', t.serviceId)).ok).toBe(true);
    store.tasks.set(t.serviceId, { ...t, postedAt: Date.now() - 1000 });
    collector.track([t]);
    expect(await collector.drain(Date.now() + 10_000)).toBe(0);
    expect(loaded).toEqual([t.serviceId]);
    expect(store.lookups).toBe(0); // no poll listed it
  });
});

describe('fetchNow', () => {
  test('fetches by id, at once, tasks of any mode it never tracked, counts them until loaded, and skips those it holds', async () => {
    const c = client();
    const loaded: CollectedTask[] = [];
    const collector = new Collector({
      // A straggler period far beyond the test: only fetchNow can make these tasks be fetched in time.
      client: c, engines: config.paths, logger: createLogger({ level: 'silent' }), store: new MapStore(), maxInFlight: 4, pollMinMs: 5, pollMaxMs: 20, stragglerAfterMs: 600_000,
      load: channelOf(async (results) => { loaded.push(...results); }, { maxCount: 5 }),
    });
    const tasks = (await post(c, 6, 'left')).map((t) => ({ ...t, mode: 'postback' as const }));
    collector.fetchNow(tasks);
    collector.fetchNow(tasks.slice(0, 3)); // already held: not fetched twice
    expect(await collector.outstanding()).toBeGreaterThan(0);
    const started = Date.now();
    expect(await collector.drain(Date.now() + 20_000)).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(loaded.map((r) => r.task.id).sort()).toEqual(tasks.map((t) => t.serviceId).sort());
    expect(collector.stats.taskGets).toBe(6);
  });
});
