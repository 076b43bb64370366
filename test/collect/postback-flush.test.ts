import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/queue/index.js';
import { createLogger } from '../../src/log/logger.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import { Collector } from '../../src/collect/index.js';
import type { Envelope } from '../../src/api/envelope.js';
import { ROOT } from '../helpers/project.js';
import { channelOf } from '../helpers/channel.js';
import type { LoadChannel } from '../../src/load/index.js';

// Postbacks arriving while a load runs are loaded together by the next ones, in whole batches: a flood of results
// must not turn into a train of tiny loads (each a transaction with its fixed cost), and none may be lost or loaded twice.

const POST = 'keywords_for_site.task_post';
const config = loadConfig({ root: ROOT, env: {} });

function collector(sink: (r: CollectedTask[]) => Promise<void>, batchSize: number, flushQuietMs?: number): Collector & { load: LoadChannel } {
  // No call is made in these tests: postbacks carry their results.
  const client = new ApiClient({
    baseUrl: 'http://127.0.0.1:9', credentials: { login: 'x', password: 'y' }, engines: config.paths,
    limiter: new RateLimiter({ calls: 10, windowMs: 1000, concurrency: 1 }), timeoutMs: 1000, retries: 0, retryBaseMs: 1, tasksPerPost: 100,
    logger: createLogger({ level: 'silent' }),
  });
  const load = channelOf(sink, { maxCount: batchSize, ...(flushQuietMs ? { quietMs: flushQuietMs } : {}) });
  return Object.assign(new Collector({ client, engines: config.paths, logger: createLogger({ level: 'silent' }), load }), { load });
}

const envelope = (id: string): Envelope => ({
  version: '0.1', status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
  tasks: [{ id, status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, result_count: 0, path: [], data: {}, result: [] }],
} as unknown as Envelope);

describe('collector flushes of postback results', () => {
  test('results pushed while a load runs are loaded in whole batches next, however many times a flush was asked for', async () => {
    const loads: number[] = [];
    const loaded = new Map<string, number>();
    const gates: (() => void)[] = [];
    const c = collector(async (batch) => {
      loads.push(batch.length);
      for (const r of batch) loaded.set(r.task.id, (loaded.get(r.task.id) ?? 0) + 1);
      await new Promise<void>((resolve) => gates.push(resolve));
    }, 10, 3_600_000); // partial batches wait for an explicit flush here
    const ids = Array.from({ length: 60 }, (_, i) => `t${i}`);
    c.track(ids.map((id, i) => ({ key: `k${i}`, serviceId: id, postId: POST, mode: 'postback' as const })));
    const until = async (n: number) => { while (gates.length < n) await new Promise((r) => setImmediate(r)); };

    for (const id of ids.slice(0, 10)) expect(await c.onPostback(envelope(id))).toBe(true);
    await until(1); // the first load runs (and waits)
    for (const id of ids.slice(10, 55)) await c.onPostback(envelope(id)); // 45 more, each over the batch size
    gates[0]();
    await until(2); // the second load runs: a whole batch of the 45
    for (const id of ids.slice(55)) await c.onPostback(envelope(id)); // 5 more: with the 35 left, four batches
    for (let g = 1; g < 6; g++) {
      gates[g]();
      await until(Math.min(g + 2, 6));
    }
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(loads).toEqual([10, 10, 10, 10, 10, 10]);

    await c.load.flush(); // as the drain loop does: nothing is left
    expect(loads).toHaveLength(6);
    expect([...loaded.keys()].sort()).toEqual([...ids].sort());
    expect([...loaded.values()].every((n) => n === 1)).toBe(true);
  });

  test('a partial batch is loaded once results stop arriving, without waiting for the drain loop', async () => {
    const loads: string[][] = [];
    const c = collector(async (batch) => { loads.push(batch.map((r) => r.task.id)); }, 100);
    const ids = Array.from({ length: 7 }, (_, i) => `q${i}`);
    c.track(ids.map((id, i) => ({ key: `k${i}`, serviceId: id, postId: POST, mode: 'postback' as const })));
    for (const id of ids) await c.onPostback(envelope(id));
    for (let i = 0; i < 400 && !loads.length; i++) await new Promise((r) => setTimeout(r, 5));
    expect(loads).toEqual([ids]);
  });
});
