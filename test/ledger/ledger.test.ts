import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Ledger, markCollected, markFailed, markLoaded, markReady, seqSpan, toPlannedTask } from '../../src/ledger/index.js';
import type { PlannedTask } from '../../src/pipeline/index.js';

const RUN = 'nightly-2024-05-01';
const open: { instance: DuckDBInstance; conns: DuckDBConnection[] }[] = [];

async function warehouse(file = ':memory:') {
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  const second = await instance.connect();
  open.push({ instance, conns: [conn, second] });
  return { instance, conn, second };
}
function closeAll() {
  for (const o of open.splice(0)) {
    for (const c of o.conns) c.closeSync();
    o.instance.closeSync();
  }
}
afterEach(closeAll);

function task(key: string, over: Partial<PlannedTask> = {}): PlannedTask {
  return {
    key,
    runId: RUN,
    step: 'events',
    stepIndex: 0,
    endpointId: 'serp.events.task_post',
    params: { keyword: `kw ${key}`, location_code: 2840, tag: `seo-etl/nightly/events/${key}` },
    collect: 'tasks_ready',
    price: 0.0006,
    ...over,
  };
}
const keys = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
/** Keys in the planner's format (24 hex characters), which the ledger matches by key alone. */
const hexKeys = (n: number) => Array.from({ length: n }, (_, i) => i.toString(16).padStart(24, '0'));
let clockMs = Date.parse('2024-05-01T02:00:00Z');
const clock = () => new Date((clockMs += 1000));

/** A ledger on the test clock with run RUN open, on a fresh warehouse (`file` or in memory). */
async function ledgerWithRun(file?: string) {
  const db = await warehouse(file);
  const ledger = await Ledger.open(db.conn, { clock });
  await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
  return { ...db, ledger };
}

describe('runs', () => {
  test('a run id opened again is a resume; runs list newest first; the last unfinished run', async () => {
    const { conn } = await warehouse();
    const ledger = await Ledger.open(conn, { clock });
    const first = await ledger.openRun({ runId: 'nightly-2024-04-30', pipeline: 'nightly', runDate: '2024-04-30', pipelineFile: 'pipelines/nightly.yaml', budgetUsd: 2 });
    expect(first).toMatchObject({ resumed: false, run: { status: 'running', attempts: 1, budgetUsd: 2 } });
    await ledger.finishRun('nightly-2024-04-30', 'completed');
    await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
    await ledger.finishRun(RUN, 'stopped_budget', 'next batch would pass $2');
    const again = await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
    expect(again).toMatchObject({ resumed: true, run: { status: 'running', attempts: 2, finishedAt: null } });
    await ledger.openRun({ runId: 'weekly-2024-05-01', pipeline: 'weekly', runDate: '2024-05-01' });
    expect((await ledger.runs()).map((r) => r.runId)).toEqual(['weekly-2024-05-01', RUN, 'nightly-2024-04-30']);
    expect((await ledger.runs({ pipeline: 'nightly' })).map((r) => r.runId)).toEqual([RUN, 'nightly-2024-04-30']);
    expect((await ledger.lastUnfinishedRun('nightly'))?.runId).toBe(RUN);
    await ledger.finishRun(RUN, 'completed');
    expect(await ledger.lastUnfinishedRun('nightly')).toBeUndefined();
    expect((await ledger.run('nightly-2024-04-30'))?.pipelineFile).toBe('pipelines/nightly.yaml');
  });
});

describe('task states', () => {
  test('planned -> posting -> posted -> ready -> collected -> loaded, with costs and by-id/by-tag lookups', async () => {
    const { conn, ledger } = await ledgerWithRun();
    const planned = keys(5).map((k) => task(k, k === 'k001' ? { userTag: 'campaign-7', params: { keyword: 'x', tag: 'seo-etl/nightly/events/k001/campaign-7' } } : {}));
    expect(await ledger.planTasks(planned)).toEqual({ inserted: 5, existing: 0 });
    expect((await ledger.tasks(RUN, { states: ['planned'] })).map((t) => t.key)).toEqual(keys(5));

    const batch = await ledger.beginPost(RUN, ['k000', 'k001', 'k002']);
    expect(batch.keys.sort()).toEqual(['k000', 'k001', 'k002']);
    expect((await ledger.ambiguous(RUN)).map((t) => [t.key, t.batchId, t.attempts])).toEqual([['k000', batch.batchId, 1], ['k001', batch.batchId, 1], ['k002', batch.batchId, 1]]);
    // Keys already posting are not handed out again.
    expect((await ledger.beginPost(RUN, ['k001', 'k003'])).keys).toEqual(['k003']);
    expect((await ledger.tasks(RUN, { states: ['planned'] })).map((t) => t.key)).toEqual(['k004']);

    const posted = await ledger.recordPosted(RUN, [
      { key: 'k000', serviceId: '11111111-0000-4000-8000-000000000000', cost: 0.0006 },
      { key: 'k001', serviceId: '11111111-0000-4000-8000-000000000001', cost: 0.0018 },
      { key: 'k002', serviceId: '11111111-0000-4000-8000-000000000002', cost: 0.0006 },
    ]);
    expect(posted.sort()).toEqual(['k000', 'k001', 'k002']);
    expect(await ledger.spentUsd(RUN)).toBe(0.003);
    const t1 = await ledger.byServiceId('11111111-0000-4000-8000-000000000001');
    expect(t1).toMatchObject({ key: 'k001', state: 'posted', cost: 0.0018, userTag: 'campaign-7', tag: 'seo-etl/nightly/events/k001/campaign-7' });
    expect((await ledger.byKey(RUN, 'k002'))!.tag).toBe('seo-etl/nightly/events/k002');
    expect((await ledger.tasks(RUN, { states: ['posted', 'ready'] })).map((t) => t.key)).toEqual(['k000', 'k001', 'k002']);

    expect(await markReady(conn, RUN, ['11111111-0000-4000-8000-000000000000', 'k004'], { now: clock() })).toEqual(['k000']); // k004 was never posted
    expect(await markCollected(conn, RUN, ['k000', 'k001'], { now: clock() })).toHaveLength(2);
    expect((await ledger.tasks(RUN, { states: ['posted', 'ready'] })).map((t) => t.key)).toEqual(['k002']);
    expect((await ledger.tasks(RUN, { states: ['collected'] })).map((t) => t.key)).toEqual(['k000', 'k001']);
    expect(await markLoaded(conn, RUN, ['k000'], { now: clock() })).toEqual(['k000']);
    // A loaded task is never moved back to collected, and loading again (a re-parsed task) is allowed.
    expect(await markCollected(conn, RUN, ['k000'], { now: clock() })).toEqual([]);
    expect(await markLoaded(conn, RUN, ['k000'], { now: clock() })).toEqual(['k000']);
    expect(await markFailed(conn, RUN, [{ ref: '11111111-0000-4000-8000-000000000002', code: 40102, message: 'No Search Results.' }], { now: clock() })).toEqual(['k002']);
    expect(await markFailed(conn, RUN, [{ ref: 'k000', code: 40102, message: 'No Search Results.' }], { now: clock() })).toEqual([]); // loaded is final

    const k0 = (await ledger.byKey(RUN, 'k000'))!;
    expect(k0.state).toBe('loaded');
    for (const at of [k0.plannedAt, k0.postingAt, k0.postedAt, k0.readyAt, k0.collectedAt, k0.loadedAt]) expect(at).toMatch(/^2024-05-01T02:/);
    expect(Date.parse(k0.postingAt!)).toBeLessThan(Date.parse(k0.postedAt!));

    const summary = (await ledger.summary(RUN))!;
    expect(summary.byState).toEqual({ planned: 1, posting: 1, posted: 0, ready: 0, collected: 1, loaded: 1, failed: 1 });
    expect(summary.tasks).toBe(5);
    expect(summary.costUsd).toBe(0.003);
    expect(summary.failures).toEqual([{ code: 40102, message: 'No Search Results.', step: 'events', count: 1 }]);
    expect(summary.steps).toEqual([expect.objectContaining({ step: 'events', tasks: 5, costUsd: 0.003 })]);
  });

  test('post refusals: retryable ones go back to planned with the error kept, others fail; release', async () => {
    const { ledger } = await ledgerWithRun();
    await ledger.planTasks(keys(4).map((k) => task(k)));
    await ledger.beginPost(RUN, keys(4));
    const moved = await ledger.recordPostFailed(RUN, [
      { ref: 'k000', code: 40202, message: 'The rate-limit per minute has been exceeded.', retry: true },
      { ref: 'k001', code: 40501, message: "Invalid Field: 'keyword'" },
    ]);
    expect(moved.sort()).toEqual(['k000', 'k001']);
    expect(await ledger.byKey(RUN, 'k000')).toMatchObject({ state: 'planned', errorCode: 40202, attempts: 1 });
    expect(await ledger.byKey(RUN, 'k001')).toMatchObject({ state: 'failed', errorCode: 40501, errorMessage: "Invalid Field: 'keyword'" });
    expect(await ledger.releasePosting(RUN, ['k002'], 'connection refused before sending')).toEqual(['k002']);
    expect((await ledger.tasks(RUN, { states: ['planned'] })).map((t) => t.key)).toEqual(['k000', 'k002']);
    expect((await ledger.beginPost(RUN, ['k000'])).keys).toEqual(['k000']);
    expect((await ledger.byKey(RUN, 'k000'))!.attempts).toBe(2);
  });

  test('live calls: posted with the cost of every page, collected with its pages', async () => {
    const { conn, ledger } = await ledgerWithRun();
    const live = task('live1', { endpointId: 'domain_analytics.technologies.domains_by_html_terms.live', collect: 'live', price: 0.01, paging: { maxPages: 3, pageSize: 100 } });
    await ledger.planTasks([live]);
    await ledger.beginPost(RUN, ['live1']);
    await ledger.recordPosted(RUN, [{ key: 'live1', serviceId: '22222222-0000-4000-8000-000000000000', cost: 0.02 }]);
    await markCollected(conn, RUN, ['live1'], { pages: 2 });
    const row = (await ledger.byKey(RUN, 'live1'))!;
    expect(row).toMatchObject({ state: 'collected', cost: 0.02, pages: 2, paging: { maxPages: 3, pageSize: 100 }, collect: 'live' });
    expect(toPlannedTask(row)).toEqual(live);
  });
});

describe('transactions and resume', () => {
  test('a result\'s rows and its state commit together: a rolled back load leaves the task collected', async () => {
    const { conn, second, ledger } = await ledgerWithRun();
    await ledger.planTasks(keys(3).map((k) => task(k)));
    await ledger.beginPost(RUN, keys(3));
    await ledger.recordPosted(RUN, keys(2).map((k, i) => ({ key: k, serviceId: `sid-${i}`, cost: 0.0006 })));
    await markCollected(conn, RUN, ['k000', 'k001']);
    await second.run('CREATE TABLE results (task_key VARCHAR, v INTEGER)');

    await second.run('BEGIN');
    await second.run(`INSERT INTO results VALUES ('k000', 1)`);
    expect(await markLoaded(second, RUN, ['k000'])).toEqual(['k000']);
    await second.run('ROLLBACK');
    expect((await ledger.byKey(RUN, 'k000'))!.state).toBe('collected');
    expect(Number((await conn.runAndReadAll('SELECT count(*) FROM results')).getRows()[0][0])).toBe(0);

    // While a load transaction is open on one connection, posting writes on the other commit on their own.
    await second.run('BEGIN');
    await second.run(`INSERT INTO results VALUES ('k001', 1)`);
    await markLoaded(second, RUN, ['k001']);
    await ledger.recordPosted(RUN, [{ key: 'k002', serviceId: 'sid-2', cost: 0.0006 }]);
    expect((await ledger.byKey(RUN, 'k002'))!.state).toBe('posted');
    expect((await ledger.byKey(RUN, 'k001'))!.state).toBe('collected'); // not yet visible outside the transaction
    await second.run('COMMIT');
    expect((await ledger.byKey(RUN, 'k001'))!.state).toBe('loaded');
  });

  test('a crash between marking a batch posting and recording it leaves it ambiguous after reopening; posted tasks are never handed out again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-ledger-'));
    const file = path.join(dir, 'warehouse.duckdb');
    {
      const { conn, ledger } = await ledgerWithRun(file);
      await ledger.planTasks(hexKeys(250).map((k) => task(k)));
      const first = await ledger.beginPost(RUN, hexKeys(100));
      await ledger.recordPosted(RUN, first.keys.map((k) => ({ key: k, serviceId: `sid-${k}`, cost: 0.0006 })));
      await ledger.beginPost(RUN, hexKeys(200).slice(100)); // sent, then the process died before recording
      closeAll();
    }
    const { conn } = await warehouse(file);
    const ledger = await Ledger.open(conn, { clock });
    const resumed = await ledger.openRun({ runId: RUN, pipeline: 'nightly', runDate: '2024-05-01' });
    expect(resumed).toMatchObject({ resumed: true, run: { attempts: 2 } });
    // Planning the same tasks again changes nothing.
    expect(await ledger.planTasks(hexKeys(250).map((k) => task(k)))).toEqual({ inserted: 0, existing: 250 });
    expect((await ledger.ambiguous()).map((t) => t.key)).toEqual(hexKeys(200).slice(100));
    expect((await ledger.tasks(RUN, { states: ['posted', 'ready'] })).map((t) => t.serviceId)).toEqual(hexKeys(100).map((k) => `sid-${k}`));
    expect((await ledger.tasks(RUN, { states: ['planned'] })).map((t) => t.key)).toEqual(hexKeys(250).slice(200));
    expect((await ledger.beginPost(RUN, hexKeys(250))).keys.sort()).toEqual(hexKeys(250).slice(200));
    expect(await ledger.spentUsd(RUN)).toBe(0.06);
    expect((await ledger.summary(RUN))!.byState).toEqual({ planned: 0, posting: 150, posted: 100, ready: 0, collected: 0, loaded: 0, failed: 0 });
  });
});

describe('writes that find their tasks by seq span', () => {
  test('seq grows across runs; a batch posted with its span moves only its run\'s tasks, and the same keys of another run stay as they were', async () => {
    const { conn } = await warehouse();
    const ledger = await Ledger.open(conn, { clock });
    const other = 'nightly-2024-04-30';
    for (const runId of [other, RUN]) {
      await ledger.openRun({ runId, pipeline: 'nightly', runDate: runId.slice(-10) });
      await ledger.planTasks(hexKeys(300).map((k) => task(k, { runId })));
    }
    const mine = await ledger.tasks(RUN);
    expect(mine.map((t) => t.seq)).toEqual(Array.from({ length: 300 }, (_, i) => 300 + i));
    expect((await ledger.tasks(other)).map((t) => t.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i));

    const batch = mine.slice(100, 200);
    const span = seqSpan(batch);
    expect(span).toEqual({ from: 400, to: 499 });
    expect((await ledger.beginPost(RUN, batch.map((t) => t.key), { span })).keys).toEqual(batch.map((t) => t.key));
    // Some of them again, with one more: only the new one moves (found by the batch id, not by the count).
    const again = mine.slice(195, 205);
    expect((await ledger.beginPost(RUN, again.map((t) => t.key), { span: seqSpan(again) })).keys).toEqual(again.slice(5).map((t) => t.key));
    const posted = await ledger.recordPosted(RUN, batch.slice(0, 3).map((t, i) => ({ key: t.key, serviceId: `svc-${i}`, cost: 0.5 })), { span });
    expect(posted).toEqual(batch.slice(0, 3).map((t) => t.key));
    // Already posted, or not posting at all (still planned): nothing moves, and the ids stay those first given.
    const notPosting = mine[0];
    expect(await ledger.recordPosted(RUN, [{ key: batch[0].key, serviceId: 'svc-x', cost: 9 }, { key: batch[3].key, serviceId: 'svc-3', cost: 0.5 }, { key: notPosting.key, serviceId: 'svc-y', cost: 9 }], { span: seqSpan([batch[0], batch[3], notPosting]) }))
      .toEqual([batch[3].key]);
    expect(await ledger.byKey(RUN, batch[0].key)).toMatchObject({ state: 'posted', serviceId: 'svc-0', cost: 0.5 });
    expect(await ledger.byKey(RUN, notPosting.key)).toMatchObject({ state: 'planned', serviceId: null });
    expect(await ledger.spentUsd(RUN)).toBe(2);
    expect((await ledger.summary(RUN))!.byState).toMatchObject({ planned: 195, posting: 101, posted: 4 });
    expect((await ledger.summary(other))!.byState).toMatchObject({ planned: 300, posting: 0, posted: 0 });
  });

  test('a span much wider than its keys is not used to search: the keys are still found by a semi-join', async () => {
    const { ledger } = await ledgerWithRun();
    await ledger.planTasks(hexKeys(400).map((k) => task(k)));
    const all = await ledger.tasks(RUN);
    const scattered = [all[0], all[399]];
    expect((await ledger.beginPost(RUN, scattered.map((t) => t.key), { span: seqSpan(scattered) })).keys).toEqual(scattered.map((t) => t.key));
    expect((await ledger.summary(RUN))!.byState).toMatchObject({ planned: 398, posting: 2 });
  });

  test('markLoaded with collected: one move sets collected and loaded (and pages); a task loaded before keeps when it was collected', async () => {
    const { conn, ledger } = await ledgerWithRun();
    await ledger.planTasks(keys(3).map((k) => task(k)));
    await ledger.beginPost(RUN, keys(3));
    await ledger.recordPosted(RUN, keys(3).map((k) => ({ key: k, serviceId: `svc-${k}`, cost: 0 })));
    const first = clock();
    expect((await markLoaded(conn, RUN, ['svc-k000', 'k001'], { now: first, collected: true, pages: 2 })).sort()).toEqual(['k000', 'k001']);
    expect(await ledger.byKey(RUN, 'k000')).toMatchObject({ state: 'loaded', collectedAt: first.toISOString(), loadedAt: first.toISOString(), pages: 2 });
    const later = clock();
    expect((await markLoaded(conn, RUN, ['k000', 'k002'], { now: later, collected: true, pages: 1 })).sort()).toEqual(['k000', 'k002']);
    expect(await ledger.byKey(RUN, 'k000')).toMatchObject({ collectedAt: first.toISOString(), loadedAt: later.toISOString(), pages: 2 });
    expect(await ledger.byKey(RUN, 'k002')).toMatchObject({ collectedAt: later.toISOString(), loadedAt: later.toISOString(), pages: 1 });
  });
});
