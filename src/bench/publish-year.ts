/**
 * Benchmark: the DuckDB file's publish as the history grows, and the warehouse's bytes per row at a year of nights.
 * A year of generated nights of rank tracking (src/bench/serp-nights.ts: `keywords` keywords on desktop and mobile,
 * one page of 20 results each, every night its own run) is loaded night by night into a working warehouse, as the
 * nightly does. The publish of one night is timed with 30 nights behind it and with 365, both ways: applied in place
 * (what a run does, src/publish/apply.ts) and copied whole (what it did before, and still does when it cannot
 * apply). Then the bytes: the published file, the working file, and the same rows as the nightly Parquet export
 * lays them out (one zstd file per table and night). `make bench` runs it as its `publish_year` section;
 * `node dist/bench/publish-year.js [--quick]` alone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { publishWarehouse } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { TABLES, allColumns } from '../normalize/catalog.js';
import { q } from '../load/ddl.js';
import { nightRunId, recordRun, writeSerpNight } from './serp-nights.js';
import { formatTable, round, type Figures } from './figures.js';

function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

export async function benchPublishYear(opts: { quick: boolean; dir: string; log?: (l: string) => void }): Promise<Figures> {
  // Quick mode shows the code runs (make test): a few nights, not a trend.
  const nights = opts.quick ? 8 : 365;
  const early = opts.quick ? 3 : 30;
  const keywords = opts.quick ? 3 : 25;
  const dir = path.resolve(opts.dir, 'bench-publish-year');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const raw = path.join(dir, 'raw');
  const work = path.join(dir, 'work', 'warehouse.duckdb');
  const published = path.join(dir, 'warehouse.duckdb');
  const files: string[][] = [];
  for (let n = 0; n < nights; n++) files.push(await writeSerpNight(raw, n, keywords));

  /**
   * Loads nights `from`..`to` into the working file: a timed night alone, as its run does (its own process's open,
   * load, checkpoint and close); the nights between the timed ones in one open and one load (each keeps its run id
   * from its archive lines), since only the timed publishes are figures: night by night they took most of the section.
   */
  const load = async (from: number, to = from) => {
    const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
    try {
      await wh.ensureSchema();
      await loadArchiveFiles(wh, files.slice(from, to + 1).flat(), { runId: nightRunId(to), loadedAt: new Date(Date.UTC(2025, 0, 1 + to, 3)) });
      for (let n = from; n <= to; n++) await recordRun(wh.connection, nightRunId(n), n);
      await wh.connection.run('CHECKPOINT');
    } finally {
      wh.close();
    }
  };
  const publish = async (runId: string) => {
    const t0 = performance.now();
    const r = await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews(), ...WAREHOUSE_STORAGE, runId });
    if (r.mode !== 'applied' && runId !== nightRunId(0)) throw new Error(`the publish of ${runId} was not applied: ${r.reason}`);
    return performance.now() - t0;
  };
  /** The copy and rename of the same state (the way every night published before, and the fallback), elsewhere. */
  const copy = async () => {
    const t0 = performance.now();
    await publishWarehouse({ workPath: work, publishedPath: path.join(dir, 'copied.duckdb'), statements: curatedViews(), ...WAREHOUSE_STORAGE });
    return performance.now() - t0;
  };

  // The first night is published whole (nothing published yet); the nights up to the timed one, and then the months
  // between, are published a stride at a time (a publish applies every run the published file lacks). The night
  // before each timed one is published alone, so that the timed publish applies its one night.
  const stride = opts.quick ? 4 : 30;
  const timed = async (n: number) => {
    await load(n - 1);
    await publish(nightRunId(n - 1));
    await load(n);
    return publish(nightRunId(n));
  };
  const span = async (from: number, to: number) => {
    for (let a = from; a <= to; a += stride) {
      const b = Math.min(a + stride - 1, to);
      await load(a, b);
      await publish(nightRunId(b));
    }
  };
  await load(0);
  await publish(nightRunId(0));
  await span(1, early - 3);
  const at30 = { applied: await timed(early - 1), copied: await copy() };
  await span(early, nights - 3);
  const applied = await timed(nights - 1);
  const at365 = { applied, sizes: { published: statSync(published).size, work: statSync(work).size }, copied: await copy() };
  opts.log?.(`  publish_year: one night's publish with ${early} nights behind it: applied ${Math.round(at30.applied)} ms, copied ${Math.round(at30.copied)} ms; with ${nights}: applied ${Math.round(at365.applied)} ms, copied ${Math.round(at365.copied)} ms`);

  // The same rows as the nightly Parquet export lays them out: one zstd file per table and night.
  const parquet = path.join(dir, 'parquet');
  mkdirSync(parquet, { recursive: true });
  const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
  let rows = 0;
  try {
    for (const t of TABLES) {
      const exists = Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND table_name = $1`, [t.name])).getRows()[0][0]);
      if (!exists) continue;
      const n = Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM ${q(t.name)}`)).getRows()[0][0]);
      if (!n) continue;
      rows += n;
      const cols = allColumns(t).map((c) => `CAST(${q(c.name)} AS ${c.type}) AS ${q(c.name)}`).join(', ');
      await wh.connection.run(`COPY (SELECT ${cols}, strptime(left(_run_id, 8), '%Y%m%d')::DATE AS snapshot_date FROM ${q(t.name)}) TO '${path.join(parquet, t.name).replace(/'/g, "''")}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (snapshot_date))`);
    }
  } finally {
    wh.close();
  }
  const bytes = { ...at365.sizes, parquet: bytesUnder(parquet), raw: bytesUnder(raw) };
  opts.log?.(`  publish_year: ${rows} rows; published ${bytes.published} B, working ${bytes.work} B, Parquet ${bytes.parquet} B, raw ${bytes.raw} B`);
  const how = `${nights} generated nights of rank tracking (${keywords} keywords on desktop and mobile, one organic page of 20 results each, every night its own run; ${rows} rows at the end), loaded night by night into a working warehouse`;
  return {
    publish_ms_30_nights: { value: Math.round(at30.applied), unit: 'ms', goal: 'informational', how: `one night's DuckDB publish applied in place (its rows into the published file in one transaction, views, checkpoint) with ${early} nights behind it; copied whole, as before, it took ${Math.round(at30.copied)} ms; ${how}` },
    publish_ms_365_nights: { value: Math.round(at365.applied), unit: 'ms', goal: 'informational', how: `the same with ${nights} nights behind it; copied whole it took ${Math.round(at365.copied)} ms; ${how}` },
    publish_growth_year: { value: round(at365.applied / at30.applied), unit: 'ratio', goal: '~1 (flat)', how: `applied publish with ${nights} nights / with ${early} (${Math.round(at365.applied)} / ${Math.round(at30.applied)} ms); the copy's ratio: ${round(at365.copied / at30.copied)} (${Math.round(at365.copied)} / ${Math.round(at30.copied)} ms)` },
    warehouse_vs_parquet_bytes_year: { value: round(bytes.published / bytes.parquet), unit: 'ratio', goal: '<= 3', how: `the published warehouse.duckdb (${bytes.published} B, ${round(bytes.published / rows)} B/row) / the same rows as the nightly Parquet export (${bytes.parquet} B, ${round(bytes.parquet / rows)} B/row, one zstd file per table and night) after ${nights} nights; the working file beside it (loaded in strides, see disk_vs_parquet_bytes_year): ${bytes.work} B (${round(bytes.work / bytes.parquet)}x); the raw archive ${bytes.raw} B; ${how}` },
    disk_vs_parquet_bytes_year: { value: round((bytes.published + bytes.work) / bytes.parquet), unit: 'ratio', goal: 'informational', how: `both DuckDB files (published ${bytes.published} B + working ${bytes.work} B) / the Parquet export (${bytes.parquet} B) after ${nights} nights; the working file here is not a nightly one: the nights between the timed ones went in a stride of 30 to a checkpoint, and a working file checkpointed every night keeps a row group per table and night, several times larger (docs/performance.md, publish_year)` },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-bench-publish-year-'));
  try {
    const figures = await benchPublishYear({ quick: process.argv.includes('--quick'), dir, log: (l) => console.log(l) });
    console.log(formatTable(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
