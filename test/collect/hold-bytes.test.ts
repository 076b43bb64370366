import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { ApiClient, TaskOutcome } from '../../src/api/client.js';
import { createLogger } from '../../src/log/logger.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import { Collector } from '../../src/collect/index.js';
import { ROOT } from '../helpers/project.js';
import { channelOf } from '../helpers/channel.js';

// Large results must not pile up: the collector fetches no more than the load channel's holdBytes of answers ahead
// of the loads (each at the largest size its endpoint answered), and a load transaction takes at most loadBytes of them.

const POST = 'keywords_data.google_ads.keywords_for_keywords.task_post';
const config = loadConfig({ root: ROOT, env: {} });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client whose task_get answers each task after `ms`, as an answer of `bytes(id)` characters. */
function fakeClient(bytes: (id: string) => number, ms: number, seen: { inFlight: number; maxInFlight: number; events: string[]; ends: string[] }): ApiClient {
  return {
    taskGet: async (_endpointId: string, id: string): Promise<TaskOutcome> => {
      seen.events.push(`start ${id}`);
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
      await tick(ms);
      seen.inFlight--;
      seen.ends.push(id);
      seen.events.push(`end ${id}`);
      return { ok: true, task: { id, status_code: 20000, status_message: 'Ok.', path: [], data: {}, result: [] } as never, cost: 0, bytes: bytes(id) };
    },
  } as unknown as ApiClient;
}

async function collect(n: number, opts: { bytes: (id: string) => number; holdBytes?: number; loadBytes?: number; batchSize?: number }) {
  const seen = { inFlight: 0, maxInFlight: 0, events: [] as string[], ends: [] as string[] };
  const loads: string[][] = [];
  const loaded = new Map<string, number>();
  /** Most answers held at once: fetched and not loaded yet, or being fetched. */
  let held = 0;
  const heldNow = () => seen.inFlight + seen.ends.length - [...loaded.values()].reduce((a, b) => a + b, 0);
  const c = new Collector({
    client: fakeClient(opts.bytes, 5, seen), engines: config.paths, logger: createLogger({ level: 'silent' }),
    load: channelOf(async (batch: CollectedTask[]) => {
      held = Math.max(held, heldNow());
      loads.push(batch.map((r) => r.task.id));
      await tick(10);
      for (const r of batch) loaded.set(r.task.id, (loaded.get(r.task.id) ?? 0) + 1);
    }, { maxCount: opts.batchSize ?? 100, quietMs: 5, ...(opts.holdBytes ? { holdBytes: opts.holdBytes } : {}), ...(opts.loadBytes ? { maxBytes: opts.loadBytes } : {}) }),
    pollMinMs: 5, pollMaxMs: 20, maxInFlight: 64,
  });
  const ids = Array.from({ length: n }, (_, i) => `t${i}`);
  c.fetchNow(ids.map((id, i) => ({ key: `k${i}`, serviceId: id, postId: POST, mode: 'tasks_ready' as const })));
  expect(await c.drain(Date.now() + 10_000)).toBe(0);
  return { seen, loads, loaded, held, ids };
}

describe('the collector bounds the answers it holds', () => {
  test('large answers: fetched a few at a time and loaded one per transaction, each once', async () => {
    const r = await collect(12, { bytes: () => 10, holdBytes: 25, loadBytes: 8 });
    expect([...r.loaded.keys()].sort()).toEqual([...r.ids].sort());
    expect([...r.loaded.values()].every((k) => k === 1)).toBe(true);
    // An answer larger than loadBytes is a transaction of its own.
    expect(r.loads.every((l) => l.length === 1)).toBe(true);
    // Until the endpoint has answered once its size is unknown: the first fetch goes alone.
    expect(r.seen.events.slice(0, 2)).toEqual(['start t0', 'end t0']);
    // holdBytes (25) over 10 per answer: two held, and one fetch always let through.
    expect(r.seen.maxInFlight).toBeLessThanOrEqual(2);
    expect(r.held).toBeLessThanOrEqual(3);
  });

  test('the same night without the bound fetches them all at once (what the bound prevents)', async () => {
    const r = await collect(12, { bytes: () => 10, holdBytes: 1e9, loadBytes: 1e9 });
    expect(r.seen.maxInFlight).toBeGreaterThan(6);
    expect(r.loads.some((l) => l.length > 1)).toBe(true);
  });

  test('small answers still load together, up to loadBytes and the batch size', async () => {
    const r = await collect(40, { bytes: () => 1, holdBytes: 1000, loadBytes: 8, batchSize: 100 });
    expect([...r.loaded.keys()].sort()).toEqual([...r.ids].sort());
    expect(r.loads.every((l) => l.length <= 8)).toBe(true);
    expect(Math.max(...r.loads.map((l) => l.length))).toBe(8);
  });
});
