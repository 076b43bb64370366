/**
 * A transaction's ledger moves, merged (commit.ts mergeMoves): a batch of task_get results is one move of each
 * kind, not three statements a task, and a task named by two outcomes of a batch still moves in their order.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { LoadChannel, commitThrough, mergeMoves, type Outcome } from '../../src/load/index.js';
import { Writer } from '../../src/load/writer.js';
import { Ledger } from '../../src/ledger/index.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import type { PlannedTask } from '../../src/pipeline/index.js';

const result = (key: string, cost = 0, status = 20000): CollectedTask => ({
  endpointId: 'keywords_data.google_ads.search_volume.task_get',
  key,
  version: '0.1',
  bytes: 1,
  task: { id: `s-${key}`, status_code: status, status_message: status === 20000 ? 'Ok.' : 'No Search Results.', time: '0 sec.', cost, result_count: 0, path: [], data: {}, result: status === 20000 ? [] : null } as never,
});
const collected = (key: string, cost = 0, status = 20000): Outcome => ({ kind: 'collected', results: [result(key, cost, status)] });

describe('mergeMoves', () => {
  test('results of distinct tasks: one loaded move and one billed move for the whole batch', () => {
    const batch = Array.from({ length: 50 }, (_, i) => collected(`k${i}`, i % 2 ? 0.002 : 0));
    const moves = mergeMoves(batch);
    expect(moves.map((m) => m.kind)).toEqual(['loaded', 'billed']);
    expect(moves[0]).toEqual({ kind: 'loaded', refs: batch.map((_, i) => `k${i}`) });
    expect(moves[1].kind === 'billed' && moves[1].billed.length).toBe(25);
  });

  test('a task named twice starts a new run: its moves keep the order of its outcomes', () => {
    const moves = mergeMoves([collected('a'), { kind: 'failed', ref: 's-b', code: 40501, message: 'x' }, { kind: 'failed', ref: 's-a', code: 40501, message: 'x' }, collected('b')]);
    expect(moves.map((m) => [m.kind, m.kind === 'loaded' ? m.refs : m.kind === 'failed' ? m.failures.map((f) => f.ref) : []])).toEqual([
      // a's failure and b's result begin the second run: a loaded then failed, b failed then (not) loaded.
      ['loaded', ['a']], ['failed', ['s-b']], ['loaded', ['b']], ['failed', ['s-a']],
    ]);
  });

  test('calls about to be sent stay one move each (their batch id names the call); answers merge by pages', () => {
    const moves = mergeMoves([
      { kind: 'calling', keys: ['l1'] }, { kind: 'calling', keys: ['l2'] },
      { kind: 'answered', keys: ['l3'], results: [result('l3')], pages: 1 },
      { kind: 'answered', keys: ['l4'], results: [result('l4')], pages: 2 },
      { kind: 'answered', keys: ['l5'], results: [result('l5')], pages: 1, posted: { key: 'l5', serviceId: 's-l5', cost: 0.01 } },
    ]);
    expect(moves).toEqual([
      { kind: 'posting', keys: ['l1'] }, { kind: 'posting', keys: ['l2'] },
      { kind: 'posted', posted: [{ key: 'l5', serviceId: 's-l5', cost: 0.01 }] },
      { kind: 'loaded', refs: ['l3', 'l5'], pages: 1 }, { kind: 'loaded', refs: ['l4'], pages: 2 },
    ]);
  });
});

describe('merged moves in the ledger', () => {
  const RUN = 'nightly-2024-05-01';
  let writer: Writer | undefined;
  afterEach(() => { writer?.abandon(); writer = undefined; });

  test('one transaction of many results: each task loaded with its own billed cost; a failure before a success of the same task stands', async () => {
    writer = await Writer.open(':memory:', '256MB');
    const ledger = await Ledger.open(await writer.connect(), { queue: (w) => writer!.queue(w) });
    await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
    const keys = ['k1', 'k2', 'k3', 'k4'];
    const planned: PlannedTask[] = keys.map((key, i) => ({ key, runId: RUN, step: 'volumes', stepIndex: 0, endpointId: 'keywords_data.google_ads.search_volume.task_post', params: { keywords: [`kw ${i}`] }, collect: 'tasks_ready', price: 0.05 }));
    await ledger.planTasks(planned);
    await ledger.beginPost(RUN, keys);
    await ledger.recordPosted(RUN, keys.map((key) => ({ key, serviceId: `s-${key}`, cost: 0.05 })));
    const channel = new LoadChannel({ maxCount: 10, quietMs: 3_600_000, commit: commitThrough({ writer, runId: RUN, engines: [] }) });
    const done = [
      channel.put(collected('k1', 0.0031)),
      channel.put(collected('k2', 0.0047)),
      channel.put({ kind: 'failed', ref: 's-k3', code: 40102, message: 'No Search Results.' }),
      channel.put(collected('k3', 0.001)),
      channel.put(collected('k4', 0, 40102)),
    ];
    await channel.flush();
    await Promise.all(done);
    expect(channel.stats.transactions).toBe(1);
    const tasks = Object.fromEntries((await ledger.tasks(RUN)).map((t) => [t.key, [t.state, t.cost]]));
    expect(tasks).toEqual({ k1: ['loaded', 0.0031], k2: ['loaded', 0.0047], k3: ['failed', 0.001], k4: ['failed', 0.05] });
  });
});
