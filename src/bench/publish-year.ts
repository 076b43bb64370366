/**
 * Benchmark: the DuckDB file's publish as the history grows, and the warehouse's bytes per row at a year of nights.
 * A year of generated nights of rank tracking (src/bench/serp-nights.ts: `keywords` keywords on desktop and mobile,
 * one page of 20 results each, every night its own run) is loaded night by night into a working warehouse, as the
 * nightly does. A night's publish is timed with 30 nights behind it and with 365: applied in place (what a run
 * does, src/publish/apply.ts), the median of a week of nights each loaded and published alone, and copied whole
 * (what it did before, and still does when it cannot apply). Then the bytes: the published file, the working file,
 * and the same rows as the nightly Parquet export writes them (the job's export, one zstd file per table and night).
 * `make bench` runs it as its `publish_year` section; `node dist/bench/publish-year.js [--quick]` alone.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { publishWarehouse } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { nightDay, nightRunId, recordRun, writeSerpNight } from './serp-nights.js';
import { round, type Figures } from './figures.js';
import { runAlone } from './alone.js';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

/**
 * The same rows as the nightly Parquet export: each night's run exported by the job's own export (one zstd file
 * per table and night). Returns the rows exported.
 */
async function exportEachNight(work: string, parquet: string, nights: number): Promise<number> {
  const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
  let rows = 0;
  try {
    for (let n = 0; n < nights; n++) for (const f of await wh.exportParquet(parquet, nightDay(n), nightRunId(n))) rows += f.rows;
  } finally {
    wh.close();
  }
  return rows;
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
      await wh.mergingCheckpoint(128e6, '256MB'); // a run's last checkpoint (Writer.close), under the default memory_limit
    } finally {
      wh.close();
    }
  };
  const publish = async (runId: string) => {
    const t0 = performance.now();
    const r = await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews, ...WAREHOUSE_STORAGE, runId });
    if (r.mode !== 'applied' && runId !== nightRunId(0)) throw new Error(`the publish of ${runId} was not applied: ${r.reason}`);
    return performance.now() - t0;
  };
  /** The copy and rename of the same state (the way every night published before, and the fallback), elsewhere. */
  const copy = async () => {
    const t0 = performance.now();
    await publishWarehouse({ workPath: work, publishedPath: path.join(dir, 'copied.duckdb'), statements: curatedViews, ...WAREHOUSE_STORAGE });
    return performance.now() - t0;
  };

  // The first night is published whole (nothing published yet); the nights up to the timed ones, and the months
  // between, are published a stride at a time (a publish applies every run the published file lacks). Then `week`
  // nights are loaded and published one at a time, each timed: DuckDB's merge of under-full row groups lands on
  // some nights and not others (a night that merges three row groups' worth of rows took twice its neighbours), so
  // one night's publish says which merge was due, not what a night costs; their median does. The growth compares
  // CPU time: on a shared machine the wall clock of the same night varied twofold with the other sessions' load.
  const stride = opts.quick ? 4 : 30;
  const week = opts.quick ? 2 : 7;
  /** Each night's publish: wall-clock ms, and CPU ms (the process's user + system, DuckDB's threads included). */
  const timedNights = async (from: number, to: number) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let n = from; n <= to; n++) {
      await load(n);
      const c0 = process.cpuUsage();
      wall.push(await publish(nightRunId(n)));
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    return { wall, cpu };
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
  await span(1, early - week - 1);
  const at30 = { applied: await timedNights(early - week, early - 1), copied: await copy() };
  await span(early, nights - week - 1);
  const applied = await timedNights(nights - week, nights - 1);
  const at365 = { applied, sizes: { published: statSync(published).size, work: statSync(work).size }, copied: await copy() };
  const med = { at30: median(at30.applied.wall), at365: median(at365.applied.wall) };
  const cpu = { at30: median(at30.applied.cpu), at365: median(at365.applied.cpu) };
  const list = (ms: number[]) => ms.map((x) => Math.round(x)).join(', ');
  opts.log?.(`  publish_year: one night's publish with ${early} nights behind it: applied ${list(at30.applied.wall)} ms (median ${Math.round(med.at30)}; CPU ${list(at30.applied.cpu)} ms, median ${Math.round(cpu.at30)}), copied ${Math.round(at30.copied)} ms; with ${nights}: applied ${list(at365.applied.wall)} ms (median ${Math.round(med.at365)}; CPU ${list(at365.applied.cpu)} ms, median ${Math.round(cpu.at365)}), copied ${Math.round(at365.copied)} ms`);

  const parquet = path.join(dir, 'parquet');
  const rows = await exportEachNight(work, parquet, nights);
  const bytes = { ...at365.sizes, parquet: bytesUnder(parquet), raw: bytesUnder(raw) };
  opts.log?.(`  publish_year: ${rows} rows; published ${bytes.published} B, working ${bytes.work} B, Parquet ${bytes.parquet} B, raw ${bytes.raw} B`);
  const how = `${nights} generated nights of rank tracking (${keywords} keywords on desktop and mobile, one organic page of 20 results each, every night its own run; ${rows} rows at the end), loaded night by night into a working warehouse`;
  const nightsHow = (t: { wall: number[]; cpu: number[] }, last: number) => `nights ${last - t.wall.length + 2}-${last + 1} each loaded and published alone: ${list(t.wall)} ms (median ${Math.round(median(t.wall))}, mean ${Math.round(mean(t.wall))}); their CPU ${list(t.cpu)} ms (median ${Math.round(median(t.cpu))})`;
  return {
    publish_ms_30_nights: { value: Math.round(med.at30), unit: 'ms', goal: 'informational', how: `one night's DuckDB publish applied in place (its rows into the published file in one transaction, views, checkpoint with its merges) with ${early} nights behind it, the median of ${nightsHow(at30.applied, early - 1)}; copied whole, as before, it took ${Math.round(at30.copied)} ms; ${how}` },
    publish_ms_365_nights: { value: Math.round(med.at365), unit: 'ms', goal: 'informational', how: `the same with ${nights} nights behind it, the median of ${nightsHow(at365.applied, nights - 1)}; copied whole it took ${Math.round(at365.copied)} ms; ${how}` },
    publish_growth_year: { value: round(cpu.at365 / cpu.at30), unit: 'ratio', goal: '~1 (flat)', how: `the applied publish's CPU time (the process's user + system, DuckDB's threads included) with ${nights} nights behind it / with ${early}, medians of ${week} nights each (${Math.round(cpu.at365)} / ${Math.round(cpu.at30)} ms): what a night costs, which other processes on the machine move far less than its wall clock; wall-clock medians ${Math.round(med.at365)} / ${Math.round(med.at30)} ms (ratio ${round(med.at365 / med.at30)}; means ${round(mean(at365.applied.wall) / mean(at30.applied.wall))}); the copy's ratio: ${round(at365.copied / at30.copied)} (${Math.round(at365.copied)} / ${Math.round(at30.copied)} ms)` },
    warehouse_vs_parquet_bytes_year: { value: round(bytes.published / bytes.parquet), unit: 'ratio', goal: '<= 3', how: `the published warehouse.duckdb (${bytes.published} B, ${round(bytes.published / rows)} B/row) / the same rows as the nightly Parquet export (${bytes.parquet} B, ${round(bytes.parquet / rows)} B/row, one zstd file per table and night) after ${nights} nights; the working file beside it (loaded in strides, see disk_vs_parquet_bytes_year): ${bytes.work} B (${round(bytes.work / bytes.parquet)}x); the raw archive ${bytes.raw} B; ${how}` },
    disk_vs_parquet_bytes_year: { value: round((bytes.published + bytes.work) / bytes.parquet), unit: 'ratio', goal: '<= 3', how: `both DuckDB files (published ${bytes.published} B + working ${bytes.work} B, ${round((bytes.published + bytes.work) / rows)} B/row) / the Parquet export (${bytes.parquet} B, ${round(bytes.parquet / rows)} B/row) after ${nights} nights; the nights between the timed ones went in strides of ${stride} to one load and the merging checkpoint a run ends with; loaded night by night, each so ended, the working file was 51,261,440 B at 365 nights (docs/journal/performance-2026-11-22-to-2026-11-27.md, "Row ids derived")` },
  };
}

await runAlone(import.meta.url, 'publish-year', ({ quick, dir, log }) => benchPublishYear({ quick, dir, log }));
