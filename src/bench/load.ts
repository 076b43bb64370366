/**
 * Benchmark: normalize + load of a generated raw archive (keyword results with 12 monthly_searches each, plus
 * merchant and technology results) through the nightly's own path (Warehouse.loadTasks: the JS extractor streaming
 * rows into appenders, as loadArchiveFiles drives it), against DuckDB's own read_json (schema auto-detected) + unnest
 * building the same keyword tables (same columns, same row ids) from the same gzip NDJSON files, in the same run. The
 * baseline reads every archive file and keeps the keyword lines; ours loads every table.
 *
 * The runs alternate, round after round, so that a busy machine slows them alike; the figure is best against
 * best, and the ratio of each round (and their median) is listed beside it. Both sides write a fresh DuckDB file
 * and stop the clock after a CHECKPOINT.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { runChild } from './child.js';
import { breakdownTable, describeLimit, profileReport, reportRows, startProfiler, type ProfileReport } from './profile.js';
import { ArchiveWriter } from '../archive/writer.js';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE, type StorageOptions } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { lit } from '../catalog/quote.js';
import { generateKeywordData } from '../sandbox/families/keywords_data/data.js';
import { generateMerchant } from '../sandbox/families/merchant/data.js';
import { domainItem } from '../sandbox/families/domain_analytics/data.js';

type Figure = { value: number; unit: string; goal: string; how: string };
const NOW = Date.UTC(2026, 0, 15);
/** The path segments the bench's archives were written with. */
export const ENGINES = { engine_a: 'engine_a', engine_b: 'engine_b', engine_c: 'engine_c', engine_d: 'engine_d', keywords_data: 'engine_a_ads', keywords_data_legacy: 'engine_a', merchant: 'engine_a' };

function uuid(i: number, kind: number): string {
  const h = (i >>> 0).toString(16).padStart(12, '0');
  return `0000${kind}000-0000-4000-8000-${h}`;
}

function envelope(version: string, task: Record<string, unknown>): string {
  return JSON.stringify({ version, status_code: 20000, status_message: 'Ok.', time: '0.0123 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [task] });
}

/** Writes the archive: `keywordResults` keyword results (20 per task), plus merchant and technology pages. */
export async function generateArchive(dir: string, keywordResults: number, merchant: number, tech: number): Promise<string[]> {
  const w = new ArchiveWriter({ dir, runId: 'bench', maxBytes: 32 * 1024 * 1024, now: () => new Date(NOW) });
  const perTask = 20;
  for (let i = 0; i * perTask < keywordResults; i++) {
    const id = uuid(i, 1);
    const params = { target: `site${i}.example.com`, location_code: 2840, language_code: 'en' };
    const result = generateKeywordData(params, perTask, i + 1, { now: NOW }).map((r) => (r.monthly_searches ? r : { ...r, monthly_searches: generateKeywordData(params, 1, i + 7, { now: NOW })[0].monthly_searches }));
    const task = { id, status_code: 20000, status_message: 'Ok.', time: '0.0100 sec.', cost: 0, result_count: result.length, path: ['v3', 'keywords_data', 'engine_a', 'keywords_for_site', 'task_get', id], data: { api: 'keywords_data', function: 'keywords_for_site', se: 'engine_a', tag: `t${i}`, ...params }, result };
    await w.append({ endpointId: 'keywords_for_site.task_get', method: 'GET', path: `/${task.path.join('/')}`, httpStatus: 200, body: envelope('0.1.20221214', task) });
  }
  for (let i = 0; i < merchant; i++) {
    const id = uuid(i, 2);
    const result = [generateMerchant({ keyword: `product ${i}`, location_code: 2840, language_code: 'en' }, 'engine_a', 20, i + 1, { now: NOW, allTypes: i % 5 === 0 })];
    const task = { id, status_code: 20000, status_message: 'Ok.', time: '0.0100 sec.', cost: 0, result_count: 1, path: ['v3', 'merchant', 'engine_a', 'products', 'task_get', 'advanced', id], data: { api: 'merchant', function: 'products', se: 'engine_a', se_type: 'shopping', keyword: `product ${i}` }, result };
    await w.append({ endpointId: 'merchant.google.products.task_get.advanced', method: 'GET', path: `/${task.path.join('/')}`, httpStatus: 200, body: envelope('0.1.20240801', task) });
  }
  for (let i = 0; i < tech; i++) {
    const id = uuid(i, 3);
    const items = Array.from({ length: 50 }, (_, k) => domainItem(i + 1, k, 10_000, NOW, { search_terms: ['shop'] }));
    const task = { id, status_code: 20000, status_message: 'Ok.', time: '0.0100 sec.', cost: 0, result_count: 1, path: ['v3', 'domain_analytics', 'technologies', 'domains_by_html_terms', 'live'], data: { api: 'domain_analytics', function: 'domains_by_html_terms', search_terms: ['shop'] }, result: [{ total_count: 10_000, items_count: items.length, offset: i * 50, offset_token: `tok${i}`, items }] };
    await w.append({ endpointId: 'domain_analytics.technologies.domains_by_html_terms.live', method: 'POST', path: '/v3/domain_analytics/technologies/domains_by_html_terms/live', httpStatus: 200, body: envelope('0.1.20240801', task) });
  }
  await w.close();
  return w.closedFiles;
}

/** Samples RSS while `fn` runs; returns its time and the peak RSS seen. */
async function measured<T>(fn: () => Promise<T>): Promise<{ ms: number; peakRss: number; value: T }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  const start = performance.now();
  try {
    const value = await fn();
    return { ms: performance.now() - start, peakRss: Math.max(peak, process.memoryUsage().rss), value };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Child mode (this module run as a script with a JSON spec): loads the files into a fresh warehouse and reports the
 * process's peak RSS (the kernel's maxRSS), so that the figure is that load alone and not what the baselines or
 * earlier rounds left in the allocator of the bench process.
 */
interface ChildSpec { files: string[]; db: string; resultFile: string; storage: StorageOptions; profile?: boolean }
interface ChildAnswer { ms: number; maxRssMb: number; rows: number; profile?: ProfileReport }

async function loadInChild(spec: ChildSpec): Promise<void> {
  rmSync(spec.db, { force: true });
  rmSync(`${spec.db}.wal`, { force: true });
  const wh = await Warehouse.open(spec.db, spec.storage);
  await wh.ensureSchema();
  const profiler = spec.profile ? await startProfiler() : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await loadArchiveFiles(wh, spec.files, { engines: ENGINES });
  await wh.connection.run('CHECKPOINT');
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const profile = profiler ? profileReport(await profiler.stop(), Math.round((cpu.user + cpu.system) / 1000)) : undefined;
  wh.close();
  const answer: ChildAnswer = { ms, maxRssMb: process.resourceUsage().maxRSS / 1024, rows: Object.values(r.rows).reduce((a, b) => a + b, 0), profile };
  writeFileSync(spec.resultFile, JSON.stringify(answer));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await loadInChild(JSON.parse(process.argv[2]) as ChildSpec);
}

async function peakInChild(dir: string, files: string[], name: string, storage: StorageOptions, profile = false): Promise<ChildAnswer> {
  return runChild<ChildAnswer>('load', { files, db: path.join(dir, `${name}.duckdb`), resultFile: path.join(dir, `${name}.json`), storage, profile }, { timeoutMs: 600_000 });
}

/** Our archive load, as `seo-etl reprocess` runs it (the configured storage), into a fresh file. */
async function ours(dir: string, files: string[], name: string, storage: StorageOptions) {
  const file = path.join(dir, `${name}.duckdb`);
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  const wh = await Warehouse.open(file, storage);
  try {
    await wh.ensureSchema();
    return await measured(async () => {
      const r = await loadArchiveFiles(wh, files, { engines: ENGINES });
      await wh.connection.run('CHECKPOINT');
      return r;
    });
  } finally {
    wh.close();
  }
}

/** DuckDB alone: read_json + unnest into the same three keyword tables (same columns and ids). */
export async function baseline(dir: string, files: string[]) {
  const file = path.join(dir, 'baseline.duckdb');
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  const inst = await DuckDBInstance.create(file);
  const c = await inst.connect();
  const list = `[${files.map(lit).join(', ')}]`;
  // DuckDB's defaults otherwise (every line is far below the default 16 MB maximum object size).
  const src = `read_json(${list})`;
  try {
    return await measured(async () => {
      await c.run(`CREATE TEMP TABLE kd_raw AS
        SELECT t.id || ':' || (i - 1) AS _id, t.id AS _task_id, run_id AS _run_id, now() AS _loaded_at, (i - 1)::INTEGER AS _list_idx,
               COALESCE(t.data."function", 'keywords_for_site') AS "function", r
        FROM (SELECT run_id, t, unnest(t.result) AS r, generate_subscripts(t.result, 1) AS i
              FROM (SELECT run_id, unnest(response.tasks) AS t FROM ${src} WHERE endpoint_id IN ('keywords_for_site.task_get', 'keywords_for_keywords.task_get'))
              WHERE t.status_code < 40000)`);
      await c.run(`CREATE TABLE keyword_data AS SELECT _id, _task_id, _run_id, _loaded_at, _list_idx, "function", r.keyword, r.location_code::BIGINT AS location_code, r.language_code, r.search_partners,
        r.competition::DOUBLE AS competition, r.cpc::DOUBLE AS cpc, r.search_volume::BIGINT AS search_volume, NULL::JSON AS extra FROM kd_raw`);
      await c.run(`CREATE TABLE keyword_data__monthly_searches AS SELECT _pid || ':' || (j - 1) AS _id, _task_id, _run_id, _loaded_at, _pid AS _parent_id, (j - 1)::INTEGER AS _list_idx,
        m."year"::INTEGER AS "year", m."month"::INTEGER AS "month", m.search_volume::BIGINT AS search_volume, NULL::JSON AS extra
        FROM (SELECT _id AS _pid, _task_id, _run_id, _loaded_at, unnest(r.monthly_searches) AS m, generate_subscripts(r.monthly_searches, 1) AS j FROM kd_raw)`);
      await c.run(`CREATE TABLE keyword_data__categories AS SELECT _pid || ':' || (j - 1) AS _id, _task_id, _run_id, _loaded_at, _pid AS _parent_id, (j - 1)::INTEGER AS _list_idx, v::BIGINT AS category_code, NULL::JSON AS extra
        FROM (SELECT _id AS _pid, _task_id, _run_id, _loaded_at, unnest(r.categories) AS v, generate_subscripts(r.categories, 1) AS j FROM kd_raw)`);
      await c.run('CHECKPOINT');
      const n = await c.runAndReadAll(`SELECT (SELECT count(*) FROM keyword_data) + (SELECT count(*) FROM keyword_data__monthly_searches) + (SELECT count(*) FROM keyword_data__categories)`);
      return Number(n.getRows()[0][0]);
    });
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

export async function benchLoad(opts: { quick: boolean; dir: string; root: string; log?: (line: string) => void }): Promise<Record<string, Figure>> {
  const log = opts.log;
  const storage: StorageOptions = { ...WAREHOUSE_STORAGE };
  const dir = path.resolve(opts.dir, 'bench-load');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const kw = opts.quick ? 5_000 : 100_000;
  const merchant = opts.quick ? 50 : 1000;
  const tech = opts.quick ? 20 : 200;
  const files = await generateArchive(path.join(dir, 'raw'), kw, merchant, tech);
  const half = files.slice(0, Math.max(1, Math.floor(files.length / 2)));
  // Best of two: a third round (about 15 s) never changed the best by more than the rounds differ.
  const rounds = opts.quick ? 1 : 2;
  let best = Infinity, bestAuto = Infinity, peak = 0;
  let result: Awaited<ReturnType<typeof ours>>['value'] | undefined;
  let baseRows = 0;
  const perRound: string[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const a = await baseline(dir, files);
    bestAuto = Math.min(bestAuto, a.ms);
    baseRows = a.value;
    const o = await ours(dir, files, 'ours', storage);
    if (o.ms < best) result = o.value;
    best = Math.min(best, o.ms);
    peak = Math.max(peak, o.peakRss);
    perRound.push(`${(o.ms / a.ms).toFixed(2)} (${(o.ms / 1000).toFixed(1)} s / ${(a.ms / 1000).toFixed(1)} s)`);
    ratios.push(o.ms / a.ms);
  }
  const fullChild = await peakInChild(dir, files, 'child-full', storage);
  const rows = Object.values(result!.rows).reduce((x, y) => x + y, 0);
  const halfChild = await peakInChild(dir, half, 'child-half', storage);
  // The profile is a load of its own (half the archive again), so the profiler's cost stays out of the figures.
  const profLoad = os.loadavg()[0].toFixed(1);
  const profChild = await peakInChild(dir, half, 'child-profile', storage, true);
  const goalRowsS = rows / ((1.1 * bestAuto) / 1000);
  const limit = `limit: ${describeLimit(profChild.profile)} (a CPU profile of loadArchiveFiles + CHECKPOINT over half of the same files in a separate child, ${(profChild.ms / 1000).toFixed(1)} s, load average ${profLoad}-${os.loadavg()[0].toFixed(1)}); the goal needs ${Math.round(goalRowsS).toLocaleString('en-US')} rows/s (all rows in 1.1x DuckDB's time), ours loaded ${Math.round(rows / (best / 1000)).toLocaleString('en-US')} rows/s`;
  log?.(`  where the load spends its main thread (docs/performance.md):\n${breakdownTable(reportRows(`load (${files.length} files)`, profChild.profile))}`);
  const t = result!.timings;
  const kwRows = (result!.rows.keyword_data ?? 0) + (result!.rows.keyword_data__monthly_searches ?? 0) + (result!.rows.keyword_data__categories ?? 0);
  if (kwRows !== baseRows) throw new Error(`bench: our keyword tables have ${kwRows} rows, DuckDB's ${baseRows}`);
  const how = `${kw} keyword results (20 per task, 12 monthly_searches each), ${merchant} merchant and ${tech} technology responses in ${files.length} gzip NDJSON archive file(s); best of ${rounds}`;
  const mb = (b: number) => Math.round(b / 1048576);
  return {
    load_vs_duckdb: { value: round(best / bestAuto), unit: 'ratio', goal: '<= 1.1', how: `${limit}. Our loadArchiveFiles through the nightly's path (all tables, ${rows} rows) / DuckDB read_json (auto-detected schema) + unnest building keyword_data, monthly_searches, categories (${baseRows} rows, same columns and ids); ${how}; each round: ${perRound.join(', ')} (median ${median(ratios).toFixed(2)})` },
    load_ms: { value: Math.round(best), unit: 'ms', goal: 'informational', how: `our load time; DuckDB ${Math.round(bestAuto)} ms; in our best run the batches' loads (normalize + append + commit, Warehouse.loadTasks) took ${Math.round(t.loadMs)} ms and reading the archive (gunzip, parse) waited ${Math.round(t.waitMs)} ms for them` },
    rows_per_s: { value: Math.round(rows / (best / 1000)), unit: 'rows/s', goal: 'informational', how: `all rows of all tables loaded by loadArchiveFiles per second (${result!.tasks} tasks, every one through the JS extractor)` },
    load_peak_rss_mb: { value: Math.round(fullChild.maxRssMb), unit: 'MB', goal: 'flat as the archive grows', how: `peak RSS (maxRSS) of a child process loading the whole archive (${files.length} files, ${fullChild.rows} rows); half of it (${half.length} files, ${halfChild.rows} rows): ${Math.round(halfChild.maxRssMb)} MB. Sampled in the bench process during the timed runs (after the baselines): ${mb(peak)} MB` },
  };
}

const round = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
