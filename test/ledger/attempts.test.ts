/**
 * Issue 19 point 9: `v_runs.duration_seconds` is the time the run's attempts ran, one attempt at a time: a 1.4 s run
 * and a 2 s resume 50 s later read 3.4 s, not the 52 s from the first start to the last finish.
 */
import { describe, expect, test } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { Ledger } from '../../src/ledger/index.js';
import { ALWAYS_IN_USE } from '../../src/normalize/catalog.js';
import { curatedViews } from '../../src/publish/views.js';

describe('attempts of a run', () => {
  test('each open and finish is an attempt; v_runs sums them; a killed attempt counts nothing', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    let now = Date.parse('2026-03-01T02:00:00Z');
    const ledger = await Ledger.open(conn, { clock: () => new Date(now) });
    const input = { runId: 'p-2026-03-01', pipeline: 'p', runDate: '2026-03-01' };
    await ledger.openRun(input);
    now += 1400;
    await ledger.finishRun(input.runId, 'aborted');
    now += 50_000;
    await ledger.openRun(input); // resume
    now += 2000;
    await ledger.finishRun(input.runId, 'completed');
    // A second run killed mid-way (never finished), then resumed for 1 s.
    const other = { runId: 'p-2026-03-02', pipeline: 'p', runDate: '2026-03-02' };
    await ledger.openRun(other);
    now += 30_000;
    await ledger.openRun(other);
    now += 1000;
    await ledger.finishRun(other.runId, 'completed');

    const attempts = (await conn.runAndReadAll(`SELECT run_id, attempt, status, epoch(finished_at - started_at) AS s FROM _attempts ORDER BY run_id, attempt`)).getRowObjectsJS();
    expect(attempts).toEqual([
      { run_id: 'p-2026-03-01', attempt: 1, status: 'aborted', s: 1.4 },
      { run_id: 'p-2026-03-01', attempt: 2, status: 'completed', s: 2 },
      { run_id: 'p-2026-03-02', attempt: 1, status: 'running', s: null },
      { run_id: 'p-2026-03-02', attempt: 2, status: 'completed', s: 1 },
    ]);
    for (const sql of curatedViews(ALWAYS_IN_USE)) await conn.run(sql);
    const runs = (await conn.runAndReadAll(`SELECT run_id, attempts, duration_seconds FROM v_runs ORDER BY run_id`)).getRowObjectsJS();
    expect(runs).toEqual([
      { run_id: 'p-2026-03-01', attempts: 2, duration_seconds: 3.4 },
      { run_id: 'p-2026-03-02', attempts: 2, duration_seconds: 1 },
    ]);
    conn.closeSync();
    db.closeSync();
  });
});
