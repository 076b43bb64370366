import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadArchiveFiles } from '../../src/load/archive-load.js';
import { emptySummary, type Warehouse } from '../../src/load/warehouse.js';
import { CHANNEL_LIMITS } from '../../src/load/channel.js';
import type { PreparedLoad } from '../../src/load/prepare.js';

// Reprocess and ingest load an archive through the load channel, in transactions bounded by its lines' bytes as well as by a count of lines: a
// night of 20,000-keyword answers is not loaded as one transaction of 2,000 of them.

const dir = mkdtempSync(path.join(os.tmpdir(), 'archive-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const envelope = (id: string, pad: number) => JSON.stringify({
  version: '0.1', status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
  tasks: [{ id, status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, result_count: 0, path: ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', id], data: { pad: 'x'.repeat(pad) }, result: [] }],
});

/** A warehouse that records the tasks of each transaction instead of loading them. */
function recorder(loads: string[][]): Warehouse {
  return {
    layouts: async () => ({}),
    loadPrepared: async (prepared: readonly PreparedLoad[]) => { loads.push(prepared.flatMap((p) => p.taskRowIds.map((id) => id.split('@')[0]))); return emptySummary(); },
  } as unknown as Warehouse;
}

describe('loading an archive in batches', () => {
  test('a transaction ends before it passes the channel\'s bytes of lines, or at the count; every task is loaded once, in order', async () => {
    const big = Math.ceil(CHANNEL_LIMITS.loadBytes / 3); // three lines pass the channel's bytes a transaction
    const file = path.join(dir, 'big.ndjson');
    const ids = Array.from({ length: 7 }, (_, i) => `t${i}`);
    writeFileSync(file, ids.map((id) => envelope(id, big)).join('\n') + '\n');
    const loads: string[][] = [];
    const r = await loadArchiveFiles(recorder(loads), [file], { runId: 'r1' });
    expect(r.lines).toBe(7);
    expect(loads).toEqual([['t0', 't1'], ['t2', 't3'], ['t4', 't5'], ['t6']]);

    const small = path.join(dir, 'small.ndjson');
    writeFileSync(small, ids.map((id) => envelope(id, 10)).join('\n') + '\n');
    const byCount: string[][] = [];
    await loadArchiveFiles(recorder(byCount), [small], { runId: 'r1', batchTasks: 3 });
    expect(byCount).toEqual([['t0', 't1', 't2'], ['t3', 't4', 't5'], ['t6']]);
    const one: string[][] = [];
    await loadArchiveFiles(recorder(one), [small], { runId: 'r1' });
    expect(one).toEqual([ids]);
  });
});
