/**
 * The load channel (issue 30): one place decides the transactions and how much waits in memory for them. Tests on
 * an in-memory DuckDB, no sandbox: transactions cut at the count, at the bytes and on quiet; producers blocked at
 * the byte budget until a commit makes room; a transaction's rows and ledger moves together or not at all.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { LoadChannel, commitThrough, type Outcome } from '../../src/load/index.js';
import { Writer } from '../../src/load/writer.js';
import { Ledger } from '../../src/ledger/index.js';
import type { CollectedTask } from '../../src/normalize/extract.js';
import type { PlannedTask } from '../../src/pipeline/index.js';

const tick = () => new Promise((r) => setImmediate(r));
const settle = async () => { for (let i = 0; i < 20; i++) await tick(); };

/** A result of `bytes` answer bytes for ledger task `key` (service id `s-<key>`): one row in `tasks`. */
const result = (key: string, bytes = 1): CollectedTask => ({
  endpointId: 'keywords_data.google_ads.search_volume.task_get',
  key,
  version: '0.1',
  bytes,
  task: { id: `s-${key}`, status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, result_count: 0, path: ['v3', 'keywords_data', 'google_ads', 'search_volume', 'task_get', `s-${key}`], data: {}, result: [] } as never,
});
const collected = (key: string, bytes = 1): Outcome => ({ kind: 'collected', results: [result(key, bytes)] });
const keysOf = (batch: readonly Outcome[]) => batch.map((o) => (o.kind === 'collected' ? o.results[0].key : o.kind));

/** A channel whose commits are recorded and, while `gate` is set, wait for it. */
function recorded(opts: { maxCount?: number; maxBytes?: number; holdBytes?: number; quietMs?: number } = {}) {
  const commits: string[][] = [];
  const gates: (() => void)[] = [];
  let gated = false;
  const channel = new LoadChannel({
    quietMs: 3_600_000, // partial transactions wait for a flush, unless a test says otherwise
    ...opts,
    commit: async (batch) => {
      commits.push(keysOf(batch) as string[]);
      if (gated) await new Promise<void>((r) => gates.push(r));
    },
  });
  return { channel, commits, gates, gate: (on: boolean) => { gated = on; } };
}

describe('the load channel cuts transactions', () => {
  test('at the count: full transactions as outcomes arrive, the rest on flush', async () => {
    const { channel, commits } = recorded({ maxCount: 3 });
    const done = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => channel.put(collected(k)));
    await settle();
    expect(commits).toEqual([['a', 'b', 'c'], ['d', 'e', 'f']]);
    await channel.flush();
    await Promise.all(done);
    expect(commits).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
  });

  test('at the bytes: no transaction past maxBytes, a larger single answer alone', async () => {
    const { channel, commits } = recorded({ maxCount: 100, maxBytes: 10, holdBytes: 1e9 });
    const sizes: [string, number][] = [['a', 4], ['b', 4], ['c', 4], ['big', 25], ['d', 4], ['e', 4], ['f', 4]];
    const done = sizes.map(([k, n]) => channel.put(collected(k, n)));
    await channel.idle();
    await Promise.all(done);
    expect(commits).toEqual([['a', 'b'], ['c'], ['big'], ['d', 'e'], ['f']]);
  });

  test('on quiet: a partial transaction once nothing arrived for quietMs; `now` cuts at once', async () => {
    const { channel, commits } = recorded({ maxCount: 100, quietMs: 30 });
    void channel.put(collected('a'));
    void channel.put(collected('b'));
    await settle();
    expect(commits).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(commits).toEqual([['a', 'b']]);
    void channel.put(collected('c'));
    await channel.put({ kind: 'calling', keys: ['x'] }, { now: true });
    expect(commits).toEqual([['a', 'b'], ['c', 'calling']]);
  });
});

describe('the load channel bounds what it holds', () => {
  test('a producer past the byte budget waits until a commit makes room, then goes on', async () => {
    const { channel, commits, gates, gate } = recorded({ maxCount: 2, holdBytes: 10 });
    gate(true);
    const admitted: string[] = [];
    const produce = async (k: string) => { await channel.admit(collected(k, 4)); admitted.push(k); };
    const producers = ['a', 'b', 'c', 'd'].map(produce);
    await settle();
    // a and b (8 bytes) are held and being committed; c would pass 10: it and d behind it wait.
    expect(admitted).toEqual(['a', 'b']);
    expect(commits).toEqual([['a', 'b']]);
    expect(channel.heldBytes).toBe(8);
    expect(channel.stats.waits).toBe(2);
    gates.shift()!();
    await settle();
    expect(admitted).toEqual(['a', 'b', 'c', 'd']);
    gate(false);
    gates.shift()?.();
    await Promise.all(producers);
    await channel.idle();
    expect(commits).toEqual([['a', 'b'], ['c', 'd']]);
    expect(channel.stats.maxHeldBytes).toBeLessThanOrEqual(10);
  });

  test('a producer past the count budget waits too, however small its answers: two transactions of outcomes', async () => {
    const { channel, commits, gates, gate } = recorded({ maxCount: 2, holdBytes: 1e9 });
    gate(true);
    const admitted: string[] = [];
    const produce = async (k: string) => { await channel.admit(collected(k, 1)); admitted.push(k); };
    const producers = ['a', 'b', 'c', 'd', 'e', 'f'].map(produce);
    await settle();
    // a and b are being committed, c and d queued for the next transaction: e and f wait, whatever their bytes.
    expect(admitted).toEqual(['a', 'b', 'c', 'd']);
    expect(commits).toEqual([['a', 'b']]);
    gates.shift()!();
    await settle();
    expect(admitted).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    gate(false);
    gates.shift()?.();
    await Promise.all(producers);
    await channel.idle();
    expect(commits).toEqual([['a', 'b'], ['c', 'd'], ['e', 'f']]);
  });

  test('a reservation holds the largest answer of its kind until its outcome is handed over; the first of a kind goes alone', async () => {
    const { channel, commits, gates, gate } = recorded({ maxCount: 10, holdBytes: 10 });
    const first = await channel.reserve('get');
    let second = false;
    const waiting = channel.reserve('get').then((h) => { second = true; return h; });
    await settle();
    expect(second).toBe(false); // size unknown while another is reserved
    gate(true);
    first.admit(collected('a', 6), { now: true });
    await settle();
    expect(commits).toEqual([['a']]);
    expect(second).toBe(false); // 6 held + 6 reserved would pass 10
    gates.shift()!();
    const h = await waiting;
    gate(false);
    h.admit(collected('b', 6));
    await channel.idle();
    expect(commits).toEqual([['a'], ['b']]);
  });
});

describe('a transaction commits rows and ledger moves together or not at all', () => {
  const RUN = 'nightly-2024-05-01';
  let writer: Writer | undefined;
  afterEach(() => { writer?.abandon(); writer = undefined; });

  async function posted(keys: string[]) {
    writer = await Writer.open(':memory:', '256MB');
    const ledger = await Ledger.open(await writer.connect(), { queue: (w) => writer!.queue(w) });
    await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
    const planned: PlannedTask[] = keys.map((key, i) => ({ key, runId: RUN, step: 'volumes', stepIndex: 0, endpointId: 'keywords_data.google_ads.search_volume.task_post', params: { keywords: [`kw ${i}`], location_code: 2840 }, collect: 'tasks_ready', price: 0.05 }));
    await ledger.planTasks(planned);
    await ledger.beginPost(RUN, keys);
    await ledger.recordPosted(RUN, keys.map((key) => ({ key, serviceId: `s-${key}`, cost: 0.05 })));
    const state = async () => Object.fromEntries((await ledger.tasks(RUN)).map((t) => [t.key, t.state]));
    const rows = async () => Number((await writer!.query('SELECT count(*) FROM tasks'))[0][0]);
    return { ledger, state, rows };
  }

  test('a failure inside the transaction leaves neither the rows nor the ledger moves; the next one commits both', async () => {
    const { state, rows } = await posted(['k1', 'k2', 'k3']);
    let fail = true;
    const channel = new LoadChannel({
      maxCount: 2,
      commit: commitThrough({ writer: writer!, runId: RUN, engines: [], inTransaction: async () => { if (fail) throw new Error('killed before COMMIT'); } }),
    });
    const a = channel.put(collected('k1'));
    const b = channel.put(collected('k2'));
    await expect(a).rejects.toThrow('killed before COMMIT');
    await expect(b).rejects.toThrow('killed before COMMIT');
    expect(await rows()).toBe(0);
    expect(await state()).toEqual({ k1: 'posted', k2: 'posted', k3: 'posted' });

    fail = false;
    await Promise.all([channel.put(collected('k1')), channel.put({ kind: 'failed', ref: 's-k3', code: 40501, message: 'Invalid Field' }), channel.put(collected('k2'))]);
    await channel.idle();
    expect(await rows()).toBe(2);
    expect(await state()).toEqual({ k1: 'loaded', k2: 'loaded', k3: 'failed' });
    expect(channel.stats.transactions).toBe(2);
  });

  test('ledger moves alone (a call about to be sent, its failure, a release) commit in the same queue', async () => {
    const { ledger } = await posted([]);
    const planned: PlannedTask[] = ['l1', 'l2', 'l3'].map((key, i) => ({ key, runId: RUN, step: 'live', stepIndex: 1, endpointId: 'serp.endpoints', params: { n: i }, collect: 'tasks_ready', price: 0 }));
    await ledger.planTasks(planned);
    const channel = new LoadChannel({ commit: commitThrough({ writer: writer!, runId: RUN, engines: [] }) });
    await channel.put({ kind: 'calling', keys: ['l1', 'l2', 'l3'] }, { now: true });
    expect((await ledger.tasks(RUN)).map((t) => t.state)).toEqual(['posting', 'posting', 'posting']);
    await channel.put({ kind: 'call_failed', failures: [{ ref: 'l1', code: 40501, message: 'bad' }, { ref: 'l2', code: 50000, message: 'later', retry: true }] }, { now: true });
    await channel.put({ kind: 'released', keys: ['l3'], reason: 'never created' }, { now: true });
    expect(Object.fromEntries((await ledger.tasks(RUN)).map((t) => [t.key, [t.state, t.errorMessage]]))).toEqual({ l1: ['failed', 'bad'], l2: ['planned', 'later'], l3: ['planned', 'never created'] });
  });
});
