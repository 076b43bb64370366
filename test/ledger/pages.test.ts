import { afterEach, describe, expect, test } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Ledger, type LedgerTask } from '../../src/ledger/index.js';
import type { PlannedTask } from '../../src/pipeline/index.js';

// The job never reads a run's tasks whole: it walks them a page at a time. These tests pin the paging down, so a
// change that brought back "read every task" (memory growing with the night) fails here rather than in a bench.

const RUN = 'paging-2024-05-01';
let instance: DuckDBInstance | undefined;
let conn: DuckDBConnection | undefined;
afterEach(() => {
  conn?.closeSync();
  instance?.closeSync();
  conn = instance = undefined;
});

async function ledgerWith(steps: { name: string; index: number; n: number }[]): Promise<Ledger> {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  const ledger = await Ledger.open(conn);
  await ledger.openRun({ runId: RUN, pipeline: 'paging', runDate: '2024-05-01' });
  for (const s of steps) {
    const tasks: PlannedTask[] = Array.from({ length: s.n }, (_, i) => ({
      key: `${s.index}${i.toString(16).padStart(23, '0')}`,
      runId: RUN,
      step: s.name,
      stepIndex: s.index,
      endpointId: 'keywords_for_site.task_post',
      params: { target: `site-${s.index}-${i}.example.com`, tag: `t-${s.index}-${i}` },
      collect: 'tasks_ready',
      price: 0.075,
    }));
    await ledger.planTasks(tasks);
  }
  return ledger;
}

async function walk(pages: AsyncIterable<LedgerTask[]>, each?: (page: LedgerTask[]) => Promise<void>): Promise<LedgerTask[][]> {
  const out: LedgerTask[][] = [];
  for await (const page of pages) {
    out.push(page);
    await each?.(page);
  }
  return out;
}

describe('ledger paging', () => {
  test('a limit caps the answer, and pages walk every task once, in planning order, at most a page at a time', async () => {
    const ledger = await ledgerWith([{ name: 'b', index: 1, n: 1300 }, { name: 'a', index: 0, n: 1200 }]);
    expect(await ledger.tasks(RUN, { states: ['planned'], limit: 7 })).toHaveLength(7);
    const pages = await walk(ledger.pages(RUN, { states: ['planned'] }, 1000));
    expect(pages.map((p) => p.length)).toEqual([1000, 1000, 500]);
    const seen = pages.flat().map((t) => [t.stepIndex, t.seq]);
    const sorted = [...seen].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    expect(seen).toEqual(sorted);
    expect(new Set(pages.flat().map((t) => t.key)).size).toBe(2500);
    // A step filter walks that step alone.
    const b = await walk(ledger.pages(RUN, { states: ['planned'], step: 'b' }, 500));
    expect(b.map((p) => p.length)).toEqual([500, 500, 300]);
    expect(b.flat().every((t) => t.step === 'b')).toBe(true);
  });

  test('tasks leaving the filter while it is walked skip nothing, and tasks coming back behind it are not met twice', async () => {
    const ledger = await ledgerWith([{ name: 'a', index: 0, n: 250 }]);
    const met = new Map<string, number>();
    // What posting does: each page is sent (planned -> posting) and a few of it are refused back to planned.
    await walk(ledger.pages(RUN, { states: ['planned'] }, 100), async (page) => {
      for (const t of page) met.set(t.key, (met.get(t.key) ?? 0) + 1);
      const { keys } = await ledger.beginPost(RUN, page.map((t) => t.key));
      await ledger.releasePosting(RUN, keys.slice(0, 3), 'refused, to be posted again');
    });
    expect(met.size).toBe(250);
    expect([...met.values()].every((n) => n === 1)).toBe(true);
    // The refused ones are planned again, for the next walk.
    const again = await walk(ledger.pages(RUN, { states: ['planned'] }, 100));
    expect(again.flat()).toHaveLength(9);
  });

  test('counts by endpoint, step and last error come from the database', async () => {
    const ledger = await ledgerWith([{ name: 'a', index: 0, n: 30 }]);
    const page = await ledger.tasks(RUN, { states: ['planned'], limit: 10 });
    await ledger.beginPost(RUN, page.map((t) => t.key));
    await ledger.recordPostFailed(RUN, page.slice(0, 4).map((t) => ({ ref: t.key, code: 50000, message: 'Internal Error.', retry: true })));
    const counts = await ledger.countTasks(RUN, { states: ['planned'] });
    expect(counts).toEqual([
      { endpointId: 'keywords_for_site.task_post', step: 'a', errorCode: null, errorMessage: null, count: 20 },
      { endpointId: 'keywords_for_site.task_post', step: 'a', errorCode: 50000, errorMessage: 'Internal Error.', count: 4 },
    ]);
  });
});
