/** `seo-etl status` tells dead runs from live ones, failed runs from completed ones, and groups failures. */
import { expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Ledger } from '../../src/ledger/index.js';
import { runCli } from '../reliability/helpers.js';
import type { RunSummary } from '../../src/ledger/index.js';
import { TASK_STATES } from '../../src/ledger/schema.js';
import { groupFailures, runCondition, statusLines } from '../../src/run/status-view.js';

function summary(status: RunSummary['run']['status'], states: Partial<Record<(typeof TASK_STATES)[number], number>>, failures: RunSummary['failures'] = []): RunSummary {
  const byState = Object.fromEntries(TASK_STATES.map((s) => [s, states[s] ?? 0])) as RunSummary['byState'];
  return {
    run: { runId: 'p-2026-01-15', pipeline: 'p', runDate: '2026-01-15', pipelineFile: null, budgetUsd: 1, status, attempts: 1, startedAt: '2026-01-15 02:00:00', updatedAt: '', finishedAt: null, note: null },
    tasks: Object.values(byState).reduce((a, b) => a + b, 0), byState, costUsd: 0.5, steps: [], failures,
  };
}

test('a run the ledger calls running is running only while a live process holds its lock', () => {
  expect(runCondition(summary('running', { posted: 3 }), 'p-2026-01-15')).toBe('running');
  expect(runCondition(summary('running', { posted: 3 }), undefined)).toBe('interrupted');
  expect(runCondition(summary('running', { posted: 3 }), 'other-run')).toBe('interrupted');
  expect(statusLines([summary('running', { posted: 3 })], undefined)[0]).toMatch(/ interrupted .*seo-etl resume/);
});

test('a completed run is failed when every task failed, completed with failures when some did', () => {
  expect(runCondition(summary('completed', { failed: 40 }), undefined)).toBe('failed');
  expect(runCondition(summary('completed', { failed: 1, loaded: 39 }), undefined)).toBe('completed with failures');
  expect(runCondition(summary('completed', { loaded: 40 }), undefined)).toBe('completed');
  expect(runCondition(summary('stopped_budget', { loaded: 2, planned: 3 }), undefined)).toBe('stopped at budget');
});

test('failures are grouped by code and message across steps, at most three lines a run', () => {
  const failures = [
    { code: 40401, message: 'Task Not Found.', step: 'a', count: 20 },
    { code: 40401, message: 'Task Not Found.', step: 'b', count: 20 },
    { code: 40501, message: 'Invalid Field', step: 'a', count: 2 },
    { code: 40503, message: 'POST Data Is Invalid', step: 'a', count: 1 },
    { code: 50000, message: 'Internal Error', step: 'c', count: 1 },
  ];
  expect(groupFailures(failures)[0]).toEqual({ code: 40401, message: 'Task Not Found.', count: 40, steps: ['a', 'b'] });
  const lines = statusLines([summary('completed', { failed: 44 }, failures)], undefined);
  expect(lines.slice(1)).toEqual([
    '    failed: 40 x 40401 Task Not Found. (steps a, b)',
    '    failed: 2 x 40501 Invalid Field (step a)',
    '    failed: 1 x 40503 POST Data Is Invalid (step a)',
    '    failed: 1 more, of 1 other kinds (seo-etl status --json lists them)',
  ]);
});

test('seo-etl status on a warehouse whose run was killed says interrupted, not running', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-status-'));
  try {
    mkdirSync(path.join(dir, 'config'));
    writeFileSync(path.join(dir, 'config', 'local.yaml'), `warehouse:\n  dir: ${path.join(dir, 'data')}\n`);
    mkdirSync(path.join(dir, 'data', 'work'), { recursive: true });
    const instance = await DuckDBInstance.create(path.join(dir, 'data', 'work', 'warehouse.duckdb'));
    const conn = await instance.connect();
    const ledger = await Ledger.open(conn);
    await ledger.openRun({ runId: 'p-2026-01-15', pipeline: 'p', runDate: '2026-01-15', budgetUsd: 1 });
    conn.closeSync();
    instance.closeSync();
    const r = await runCli(['status', '--root', dir], { env: { ...process.env }, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^p-2026-01-15  interrupted  tasks 0 .*seo-etl resume/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
