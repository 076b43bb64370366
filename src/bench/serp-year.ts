/**
 * Benchmark: the SERP views in PostgreSQL at a year of nightly SERPs. A generated archive of `keywords` keywords
 * on desktop and mobile, one organic (advanced) page of 20 results a night for 365 nights, is loaded into a fresh
 * warehouse, published to the throwaway PostgreSQL server, and each SERP view is read whole, in PostgreSQL and
 * in DuckDB (issue 32: v_serp_features took 1.3-1.9 s at 18-30k items in PostgreSQL, 0.05 s in DuckDB).
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { ArchiveWriter } from '../archive/writer.js';
import { generateSerpPage } from '../families/serp/data.js';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { publishWarehouse } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { publishToPostgres } from '../publish/postgres/index.js';
import { SERP_VIEWS } from '../families/serp/views.js';
import { ENGINES } from './load.js';

const DAY = 86_400_000;
const LAST = Date.UTC(2026, 0, 15, 3);

export interface SerpYear { items: number; pages: number; publishMs: number; views: { view: string; pgMs: number; duckMs: number; rows: number }[] }

export async function serpYear(dir: string, url: string, keywords: number, nights = 365): Promise<SerpYear> {
  const w = new ArchiveWriter({ dir: path.join(dir, 'raw-serp'), runId: 'bench-serp', maxBytes: 32 * 1024 * 1024, now: () => new Date(LAST) });
  let n = 0;
  for (let night = 0; night < nights; night++) {
    const at = LAST - night * DAY;
    for (let k = 0; k < keywords; k++) {
      for (const device of ['desktop', 'mobile']) {
        const id = `00000400-0000-4000-8000-${(n++).toString(16).padStart(12, '0')}`;
        const params = { keyword: `running shoes ${k}`, location_code: 2840, language_code: 'en', device, depth: 20 };
        const result = [generateSerpPage(params, 'google', 'organic', 'advanced', n, at, 20).result];
        const task = { id, status_code: 20000, status_message: 'Ok.', time: '0.0100 sec.', cost: 0, result_count: 1, path: ['v3', 'serp', 'google', 'organic', 'task_get', 'advanced', id], data: { api: 'serp', function: 'task_get', se: 'google', se_type: 'organic', ...params }, result };
        await w.append({ endpointId: 'serp.google.organic.task_get.advanced', method: 'GET', path: `/${task.path.join('/')}`, httpStatus: 200, body: JSON.stringify({ version: '0.1.20240801', status_code: 20000, status_message: 'Ok.', time: '0.01 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [task] }) });
      }
    }
  }
  await w.close();
  const work = path.join(dir, 'serp-year-work.duckdb');
  const published = path.join(dir, 'serp-year.duckdb');
  const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
  try {
    await wh.ensureSchema();
    await loadArchiveFiles(wh, w.closedFiles, { engines: ENGINES, loadedAt: new Date(LAST) });
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
  await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews(), ...WAREHOUSE_STORAGE });
  const t0 = performance.now();
  const o = await publishToPostgres({ url, schema: 'serp_year', warehouse: published, stageDir: path.join(dir, 'stage-serp') });
  const publishMs = performance.now() - t0;
  if (o.status !== 'published') throw new Error(`publish failed: ${o.error}`);

  const duck = await DuckDBInstance.create(published, { access_mode: 'READ_ONLY' });
  const dc = await duck.connect();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET search_path TO serp_year, public');
    // As docs/postgres.md sets it for the readers' role: JIT compiling a view's plan took seconds here.
    await client.query('SET jit = off');
    const items = Number((await client.query('SELECT count(*) AS n FROM serp_results__items')).rows[0].n);
    const views = [];
    for (const v of SERP_VIEWS) {
      const p0 = performance.now();
      const rows = (await client.query(`SELECT * FROM ${v.name}`)).rowCount ?? 0;
      const pgMs = performance.now() - p0;
      const d0 = performance.now();
      await dc.runAndReadAll(`SELECT * FROM ${v.name}`);
      views.push({ view: v.name, pgMs: Math.round(pgMs), duckMs: Math.round(performance.now() - d0), rows });
    }
    return { items, pages: n, publishMs: Math.round(publishMs), views };
  } finally {
    await client.end();
    dc.closeSync();
    duck.closeSync();
  }
}
