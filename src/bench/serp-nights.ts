/**
 * Generated nights of rank tracking for the publish benches and tests: each night an archive file of `keywords`
 * keywords on desktop and mobile, one organic (advanced) page of 20 results each, under that night's run id, and
 * its `_runs` row in the ledger, as a nightly run leaves them.
 */
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ArchiveWriter } from '../archive/writer.js';
import { generateSerpPage } from '../sandbox/families/serp/data.js';
import { LEDGER_DDL } from '../ledger/schema.js';

const DAY = 86_400_000;
/** The first night's collection time. */
export const FIRST_NIGHT = Date.UTC(2025, 0, 1, 3);

export const nightDay = (night: number): string => new Date(FIRST_NIGHT + night * DAY).toISOString().slice(0, 10);
export const nightRunId = (night: number): string => `${nightDay(night).replace(/-/g, '')}T030000Z-nightly`;

/** The service id of a generated night's task `seq` (the night's tasks are numbered on from `firstSeq`). */
export const serpNightTaskId = (seq: number): string => `00000500-0000-4000-8000-${seq.toString(16).padStart(12, '0')}`;

/**
 * Writes night `night`'s archive under `dir` and returns its files. Task ids are the night's own; `recollect`
 * writes the same tasks again with other results (a re-collection, tasks_fixed). `at` (the collection time),
 * `runId` and `firstSeq` (its first task's number) default to the night's own.
 */
export async function writeSerpNight(dir: string, night: number, keywords: number, opts: { recollect?: boolean; runId?: string; at?: number; firstSeq?: number } = {}): Promise<string[]> {
  const at = opts.at ?? FIRST_NIGHT + night * DAY;
  const runId = opts.runId ?? nightRunId(night);
  const first = opts.firstSeq ?? night * keywords * 2;
  const w = new ArchiveWriter({ dir: path.join(dir, runId), runId, maxBytes: 64 * 1024 * 1024, now: () => new Date(at) });
  let n = 0;
  for (let k = 0; k < keywords; k++) {
    for (const device of ['desktop', 'mobile']) {
      const seq = first + n++;
      const id = serpNightTaskId(seq);
      const params = { keyword: `running shoes ${k}`, location_code: 2840, language_code: 'en', device, depth: 20 };
      const result = [generateSerpPage(params, 'google', 'organic', 'advanced', seq + (opts.recollect ? 7_000_000 : 0), at, 20).result];
      const task = { id, status_code: 20000, status_message: 'Ok.', time: '0.0100 sec.', cost: 0, result_count: 1, path: ['v3', 'serp', 'google', 'organic', 'task_get', 'advanced', id], data: { api: 'serp', function: 'task_get', se: 'google', se_type: 'organic', ...params }, result };
      await w.append({ endpointId: 'serp.google.organic.task_get.advanced', method: 'GET', path: `/${task.path.join('/')}`, httpStatus: 200, body: JSON.stringify({ version: '0.1.20240801', status_code: 20000, status_message: 'Ok.', time: '0.01 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [task] }) });
    }
  }
  await w.close();
  return w.closedFiles;
}

/** The ledger's `_runs` row of a finished run (the tables created when missing). */
export async function recordRun(conn: DuckDBConnection, runId: string, night: number): Promise<void> {
  for (const sql of LEDGER_DDL) await conn.run(sql);
  const at = new Date(FIRST_NIGHT + night * DAY).toISOString().replace('T', ' ').replace('Z', '');
  await conn.run(`INSERT OR REPLACE INTO _runs (run_id, pipeline, run_date, status, attempts, started_at, updated_at, finished_at) VALUES ($1, 'nightly', $2, 'completed', 1, $3::TIMESTAMP, $3::TIMESTAMP, $3::TIMESTAMP)`, [runId, nightDay(night), at]);
}
