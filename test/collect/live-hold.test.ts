import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { ApiClient, TaskOutcome } from '../../src/api/client.js';
import { createLogger } from '../../src/log/logger.js';
import { Budget, type PipelineStep } from '../../src/pipeline/index.js';
import { callStep } from '../../src/collect/live.js';
import type { CollectContext, Outcome } from '../../src/collect/index.js';
import type { LedgerTask } from '../../src/ledger/index.js';
import { ROOT } from '../helpers/project.js';
import { channelOf } from '../helpers/channel.js';

// Live calls answer with their results: like task_gets, they are sent only once the load channel has room for
// their answers, so a step of large answers never holds more than holdBytes of them however many workers call.

const LIVE = 'ai_optimization.chat_gpt.llm_responses.live';
const config = loadConfig({ root: ROOT, env: {} });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function callAll(n: number, holdBytes: number) {
  const seen = { inFlight: 0, maxInFlight: 0, first: [] as string[] };
  /** Answers received and not committed yet, at most. */
  let held = 0;
  let maxHeld = 0;
  const committed = new Map<string, number>();
  const client = {
    live: async (_id: string, params: Record<string, unknown>): Promise<TaskOutcome> => {
      const id = String(params.keyword);
      seen.first.push(`start ${id}`);
      seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
      await tick(5);
      seen.inFlight--;
      seen.first.push(`end ${id}`);
      maxHeld = Math.max(maxHeld, ++held);
      return { ok: true, task: { id: `svc-${id}`, status_code: 20000, status_message: 'Ok.', path: [], data: {}, cost: 0, result: [] } as never, cost: 0, bytes: 10 };
    },
  } as unknown as ApiClient;
  const load = channelOf(async (results) => {
    await tick(10);
    for (const r of results) {
      committed.set(r.task.id, (committed.get(r.task.id) ?? 0) + 1);
      held--;
    }
  }, { holdBytes, maxBytes: 8, quietMs: 5 });
  const tasks: LedgerTask[] = Array.from({ length: n }, (_, i) => ({
    runId: 'r', key: `k${i}`, seq: i, step: 'live', stepIndex: 0, endpointId: LIVE, collect: 'live', params: { keyword: `q${i}` },
    tag: null, userTag: null, price: 0, state: 'planned', serviceId: null, cost: null,
  }) as unknown as LedgerTask);
  const ctx = {
    config, runId: 'r', client, logger: createLogger({ level: 'silent' }),
    ledger: { pages: async function* () { yield tasks; } },
    progress: { add: () => undefined, counts: { costUsd: 0 } },
    load,
    sink: async (o: Outcome) => (await load.admit(o, { now: true })).done,
    budget: new Budget(1e9, async () => 0),
    pause: async () => undefined,
  } as unknown as CollectContext;
  await callStep(ctx, { name: 'live', endpointId: LIVE } as PipelineStep);
  await load.idle();
  return { seen, maxHeld, committed };
}

describe('a live step waits for room in the load channel before each call', () => {
  test('answers of a known size: a few calls at a time, each answer committed once', async () => {
    const r = await callAll(12, 25);
    expect(r.committed.size).toBe(12);
    expect([...r.committed.values()].every((k) => k === 1)).toBe(true);
    // Until the endpoint has answered once its size is unknown: the first call goes alone.
    expect(r.seen.first.slice(0, 2)).toEqual(['start q0', 'end q0']);
    // holdBytes (25) over 10 per answer: two in flight or waiting to commit, and one more let through when none is.
    expect(r.seen.maxInFlight).toBeLessThanOrEqual(2);
    expect(r.maxHeld).toBeLessThanOrEqual(3);
  });

  test('without the bound the workers call all at once (what the reservation prevents)', async () => {
    const r = await callAll(12, 1e9);
    expect(config.collect.live_concurrency).toBeGreaterThan(2);
    expect(r.seen.maxInFlight).toBeGreaterThan(2);
    expect(r.committed.size).toBe(12);
  });
});
