/**
 * Benchmark: the lake. A generated night (as the PostgreSQL bench's) is loaded into a fresh warehouse, exported to
 * Parquet (timed: the local export every run does), then published to an S3-protocol server on 127.0.0.1 (s3rver,
 * started here; timed: the lake upload of the same night, its Parquet files and raw archive). Also: the warehouse's
 * bytes per row against the Parquet export's and the raw archive's, and the lake publish of one more night as the
 * history in the bucket grows (copies of the night filed under earlier days), against the DuckDB file's publish
 * (a copy of the whole working file) as its history grows the same way. The same bytes for a night of SERP pages,
 * the issue's own example (an analyst's day of 1,000 sandbox SERPs). `make bench` runs it as its `lake` section;
 * `node dist/bench/lake.js [--quick]` alone.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { lakeClient } from '../publish/lake/s3.js';
import { syncLake } from '../publish/lake/sync.js';
import { parseLakeUrl, type LakeLocation } from '../config/lake.js';
import { publishWarehouse } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { AVAILABLE_TABLES } from '../normalize/catalog.js';
import { allColumns } from '../catalog/table.js';
import { q } from '../load/ddl.js';
import { ENGINES, generateArchive } from './load.js';
import { nightDay, nightRunId, writeSerpNight } from './serp-nights.js';
import { startS3 } from './s3-server.js';
import { round, type Figures } from './figures.js';
import { runAlone } from './alone.js';

/** Bytes of every file under a folder. */
function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

/**
 * Loads `files` into a fresh warehouse as reprocess does, ends with the merging checkpoint a run ends with, and
 * exports the night to Parquet (timed). Returns the rows, the export's time and the free blocks the merge left in
 * the file (the next night's writes take them first).
 */
async function freshNight(file: string, parquet: string, files: string[], o: { loadedAt: Date; snapshotDate: string; runId: string }): Promise<{ rows: number; exportMs: number; freeBytes: number }> {
  const wh = await Warehouse.open(file, WAREHOUSE_STORAGE);
  try {
    await wh.ensureSchema();
    const r = await loadArchiveFiles(wh, files, { engines: ENGINES, loadedAt: o.loadedAt });
    const rows = Object.values(r.rows).reduce((a, b) => a + b, 0);
    await wh.mergingCheckpoint(128e6, '256MB'); // reprocess's last checkpoint (Writer.close), under the default memory_limit
    const t0 = performance.now();
    await wh.exportParquet(parquet, o.snapshotDate, o.runId);
    const exportMs = performance.now() - t0;
    const [free, block] = (await wh.connection.runAndReadAll(`SELECT free_blocks, block_size FROM pragma_database_size() WHERE database_name = current_database()`)).getRows()[0];
    return { rows, exportMs, freeBytes: Number(free) * Number(block) };
  } finally {
    wh.close();
  }
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

export async function benchLake(opts: { quick: boolean; dir: string; log?: (l: string) => void }): Promise<Figures> {
  // 1,000 tasks (330,000 rows) are a steady state for rates; 4,000 spent two of make bench's 10 minutes here.
  const tasks = opts.quick ? 100 : 1000;
  const history = opts.quick ? 3 : 60;
  const merchant = Math.round(tasks * 0.05);
  const tech = Math.round(tasks * 0.05);
  const keywordTasks = tasks - merchant - tech;
  const dir = path.resolve(opts.dir, 'bench-lake');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const raw = path.join(dir, 'raw');
  const files = await generateArchive(raw, keywordTasks * 20, merchant, tech);
  const file = path.join(dir, 'warehouse.duckdb');
  const parquet = path.join(dir, 'parquet');
  const night = day(history);
  const { rows, exportMs, freeBytes } = await freshNight(file, parquet, files, { loadedAt: new Date(`${night}T02:00:00Z`), snapshotDate: night, runId: 'bench' });
  const sizes = { warehouse: statSync(file).size, parquet: bytesUnder(parquet), raw: bytesUnder(raw) };
  // The issue's example: a day of SERP pages (1,000 tasks: desktop and mobile of 500 keywords, 20 results each).
  const serpKeywords = opts.quick ? 10 : 500;
  const serpFile = path.join(dir, 'serp.duckdb');
  const serpParquet = path.join(dir, 'serp-parquet');
  const serpRaw = path.join(dir, 'serp-raw');
  const serpFiles = await writeSerpNight(serpRaw, 0, serpKeywords);
  const serp = await freshNight(serpFile, serpParquet, serpFiles, { loadedAt: new Date(`${nightDay(0)}T03:00:00Z`), snapshotDate: nightDay(0), runId: nightRunId(0) });
  const serpSizes = { warehouse: statSync(serpFile).size, parquet: bytesUnder(serpParquet), raw: bytesUnder(serpRaw) };
  const server = await startS3(['seo-lake']);
  const client = lakeClient(server.env);
  const publish = async (location: LakeLocation, stateFile: string) => {
    const t0 = performance.now();
    const r = await syncLake({ client, location, parquetDir: parquet, rawDir: raw, stateFile });
    return { ms: performance.now() - t0, r };
  };
  const at = (url: string) => parseLakeUrl(url) as LakeLocation;
  try {
    const first = await publish(at('s3://seo-lake/one-night'), path.join(dir, 'state-one.json'));
    const sent = first.r.uploaded.bytes + first.r.raw.bytes;
    opts.log?.(`  lake: ${rows} rows; Parquet export ${Math.round(exportMs)} ms (${sizes.parquet} B); lake upload ${Math.round(first.ms)} ms (${sent} B in ${first.r.uploaded.files + first.r.raw.files} files)`);

    // History: the same night filed under `history` earlier days, published night by night; the last night is timed.
    const grown = at('s3://seo-lake/history');
    const state = path.join(dir, 'state-history.json');
    const tables = readdirSync(parquet);
    const fileNight = (n: number) => {
      for (const t of tables) cpSync(path.join(dir, 'parquet-night', t, `snapshot_date=${night}`), path.join(parquet, t, `snapshot_date=${day(n)}`), { recursive: true });
    };
    rmSync(path.join(dir, 'parquet-night'), { recursive: true, force: true });
    cpSync(parquet, path.join(dir, 'parquet-night'), { recursive: true });
    for (const t of tables) rmSync(path.join(parquet, t, `snapshot_date=${night}`), { recursive: true, force: true });
    fileNight(0);
    await publish(grown, state); // the raw archive goes up here, once
    fileNight(1);
    const early = await publish(grown, state);
    for (let n = 2; n < history; n++) {
      fileNight(n);
      await syncLake({ client, location: grown, parquetDir: parquet, rawDir: raw, stateFile: state });
    }
    fileNight(history);
    const late = await publish(grown, state);
    opts.log?.(`  lake: publishing one night with 1 night of history before it: ${Math.round(early.ms)} ms; with ${history}: ${Math.round(late.ms)} ms`);

    const duckNights = opts.quick ? 3 : 10;
    const { duckOne, duckMany, duckBytes } = await timeDuckdbPublish(file, path.join(dir, 'published.duckdb'), duckNights);
    opts.log?.(`  lake: the DuckDB file's publish with 1 night: ${Math.round(duckOne)} ms (${sizes.warehouse} B); with ${duckNights}: ${Math.round(duckMany)} ms (${duckBytes} B)`);

    const how = `a night of ${tasks} tasks (${keywordTasks} keyword tasks of 20 results, ${merchant} merchant, ${tech} technology; ${rows} rows, ${files.length} raw archive file(s)) loaded into a fresh DuckDB warehouse as reprocess does`;
    return {
      lake_upload_mb_per_s: { value: round(sent / 1e6 / (first.ms / 1000)), unit: 'MB/s', goal: 'informational', how: `the night's Parquet files and raw archive (${(sent / 1e6).toFixed(1)} MB in ${first.r.uploaded.files + first.r.raw.files} objects, 4 uploads in flight) sent to s3rver on 127.0.0.1 by the lake publish (hashing, manifests and _SUCCESS included), per second of the whole publish; ${how}` },
      lake_upload_vs_parquet_export: { value: round(first.ms / exportMs), unit: 'ratio', goal: 'informational', how: `lake publish ${Math.round(first.ms)} ms / the same night's local Parquet export ${Math.round(exportMs)} ms (DuckDB COPY, zstd); ${how}` },
      warehouse_bytes_per_row: { value: round(sizes.warehouse / rows), unit: 'B/row', goal: 'informational', how: `warehouse.duckdb after the load and the merging checkpoint a run ends with (${sizes.warehouse} B, ledger included, of which ${freeBytes} B free blocks the next night's writes reuse) / ${rows} rows; ${how}` },
      parquet_bytes_per_row: { value: round(sizes.parquet / rows), unit: 'B/row', goal: 'informational', how: `the night's Parquet export (${sizes.parquet} B, zstd) / ${rows} rows; the raw archive is ${round(sizes.raw / rows)} B/row (${sizes.raw} B gzip NDJSON)` },
      warehouse_vs_parquet_bytes_serp: { value: round(serpSizes.warehouse / serpSizes.parquet), unit: 'ratio', goal: 'informational', how: `warehouse.duckdb / its Parquet export for a night of ${serpKeywords * 2} SERP tasks (${serpKeywords} keywords on desktop and mobile, one organic page of 20 results each, every item type; ${serp.rows} rows) loaded into a fresh warehouse as reprocess does: ${serpSizes.warehouse} B (${round(serpSizes.warehouse / serp.rows)} B/row, ${serp.freeBytes} B of it free blocks the run's merge left, which the next night's writes take first; without them ${round((serpSizes.warehouse - serp.freeBytes) / serpSizes.parquet)}x) / ${serpSizes.parquet} B (${round(serpSizes.parquet / serp.rows)} B/row, zstd); the raw archive ${serpSizes.raw} B. The generated pages' templated text suits zstd far better than DuckDB's dictionary-and-FSST strings; the goal's measure of what grows is warehouse_vs_parquet_bytes_year (the same pages, a year of nights)` },
      warehouse_vs_parquet_bytes: { value: round(sizes.warehouse / sizes.parquet), unit: 'ratio', goal: '<= 3', how: `warehouse.duckdb bytes / Parquet export bytes for the same night (${sizes.warehouse} / ${sizes.parquet}); without the free blocks ${round((sizes.warehouse - freeBytes) / sizes.parquet)}` },
      duckdb_publish_growth: { value: round(duckMany / duckOne), unit: 'ratio', goal: 'informational', how: `the DuckDB file's publish (a copy of the working file, views, checkpoint, rename) with ${duckNights} nights in the warehouse (${Math.round(duckMany)} ms, ${duckBytes} B) / with 1 (${Math.round(duckOne)} ms, ${sizes.warehouse} B): the whole file is copied each time (no reflink on ext4), so the copy grows with the file; the rest (views, checkpoint) does not` },
      lake_publish_growth: { value: round(late.ms / early.ms), unit: 'ratio', goal: 'informational', how: `time to publish one more night to a lake holding ${history} earlier nights (${Math.round(late.ms)} ms, ${late.r.partitions} partitions changed) / to one holding one (${Math.round(early.ms)} ms): only the changed partitions are read and sent, the rest is a stat per file` },
    };
  } finally {
    client.destroy();
    await server.close();
  }
}

/**
 * The DuckDB file's publish copies the whole working file: timed with 1 night in it, then with `duckNights` (the
 * night's rows copied under other task ids).
 */
async function timeDuckdbPublish(file: string, publishedPath: string, duckNights: number): Promise<{ duckOne: number; duckMany: number; duckBytes: number }> {
  const duckPublish = async () => {
    const t0 = performance.now();
    await publishWarehouse({ workPath: file, publishedPath, statements: curatedViews, ...WAREHOUSE_STORAGE });
    return performance.now() - t0;
  };
  const duckOne = await duckPublish();
  const grow = await Warehouse.open(file, WAREHOUSE_STORAGE);
  try {
    // Only the tables this warehouse has: other sections of the bench put more of the catalog in use.
    const present = new Set((await grow.connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()`)).getRows().map((r) => String(r[0])));
    for (let n = 1; n < duckNights; n++) {
      // Task ids re-keyed, and the stored ids that begin with them; a derived `_id` follows by itself.
      const moved = (c: string) => `_task_id || '~n${n}' || substr(${c}, length(_task_id) + 1)`;
      for (const t of AVAILABLE_TABLES.filter((x) => present.has(x.name))) {
        const cols = allColumns(t);
        const derived = cols.filter((c) => c.derived).map((c) => q(c.name));
        const rekeyed = cols.filter((c) => !c.derived && (c.name === '_id' || c.name === '_parent_id')).map((c) => `${moved(c.name)} AS ${q(c.name)}`);
        await grow.connection.run(`INSERT INTO ${q(t.name)} BY NAME SELECT * ${derived.length ? `EXCLUDE (${derived.join(', ')}) ` : ''}REPLACE (${[...rekeyed, `_task_id || '~n${n}' AS _task_id`, `'bench-n${n}' AS _run_id`].join(', ')}) FROM ${q(t.name)} WHERE _run_id = 'bench'`);
      }
    }
    await grow.connection.run('CHECKPOINT');
  } finally {
    grow.close();
  }
  const duckMany = await duckPublish();
  const duckBytes = statSync(file).size;
  return { duckOne, duckMany, duckBytes };
}

await runAlone(import.meta.url, 'lake', ({ quick, dir, log }) => benchLake({ quick, dir, log }));
