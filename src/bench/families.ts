/**
 * Full-size results, family by family: a whole nightly job (runJob in a child process, collected by tasks_ready)
 * of tasks whose results are as large as the live service makes them, against the sandbox in this process with the
 * rate limit out of the way. Two runs per family, the second four times the tasks of the first:
 *
 * - `headroom_<family>`: the tasks per second the larger run sustained end to end (post, poll, task_get, archive,
 *   normalize, load, ledger, Parquet), over the tasks per second the live service delivers at the family's
 *   published limit: 10,000 calls a minute (one task_get per task, plus a POST per 100 tasks and a tasks_ready poll
 *   per 1000), Labs and Backlinks 2,000 live calls a minute (docs/api-live.md, "Limits the bench measures against").
 * - `peak_rss_mb_<family>`: the larger run's peak RSS; `peak_rss_growth_<family>` that over the smaller run's.
 *
 * The sandbox generates a few results per endpoint once and serves them again (`sandbox.result_variants`), so
 * generating 20,000 keywords does not take the cores the job is measured on; what it still does per answer
 * (serialize, gzip, send) is its CPU, reported beside each figure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAST_WINDOW_MS, measureJobRun, type JobBenchOptions, type JobSizes } from './jobs.js';
import { FAMILY_NAMES, round, type Figures } from './figures.js';
import { runAlone } from './alone.js';
import { breakdownTable, describeLimit, reportRows } from './profile.js';
import { CHANNEL_LIMITS } from '../load/channel.js';
import { archiveFiles, duckdbBaseline, type BaselineKind } from './duckdb-baseline.js';

/** Calls a minute the live service allows an account now (docs/api-live.md). */
const LIVE_CALLS_PER_MINUTE = 10_000;
/** Calls per task: one task_get, a 100-task POST's share and a 1000-task tasks_ready page's share. */
const CALLS_PER_TASK = 1 + 1 / 100 + 1 / 1000;
export const LIVE_TASKS_PER_S = LIVE_CALLS_PER_MINUTE / 60 / CALLS_PER_TASK;

/** The tasks a second a family's own published limit delivers, and how that is stated. */
function liveRate(f: Family): { perS: number; said: string } {
  if (f.callsPerMinute !== undefined) {
    return { perS: f.callsPerMinute / 60, said: `${(f.callsPerMinute / 60).toFixed(1)} tasks/s, what the family's published limit allows (${f.callsPerMinute.toLocaleString('en-US')} calls a minute, one live call a task; docs/api-live.md)` };
  }
  return { perS: LIVE_TASKS_PER_S, said: `${LIVE_TASKS_PER_S.toFixed(1)} tasks/s, what the live service delivers at ${LIVE_CALLS_PER_MINUTE} calls a minute and ${CALLS_PER_TASK} calls per task (a live family's one call a task would allow ${(LIVE_CALLS_PER_MINUTE / 60).toFixed(1)})` };
}
/** Distinct results the sandbox generates per endpoint and serves again. */
const RESULT_VARIANTS = 4;

interface Family {
  name: (typeof FAMILY_NAMES)[number];
  what: string;
  postId: string;
  params: Record<string, unknown>;
  axis: string;
  value: (i: number) => string;
  chunk?: number;
  sandbox: Record<string, unknown>;
  /** Quick mode (the test): results a tenth of the size or less, so that the code runs, not to measure. */
  quickSandbox?: Record<string, unknown>;
  quickParams?: Record<string, unknown>;
  /** Tasks of the smaller run; the larger one runs four times as many, sized to 8-15 s of a steady state (the smaller reaches one too). */
  tasks: { quick: number; full: number };
  /** Results per load transaction at most (collect.load_batch); the load channel's bytes per transaction bound it first for large results. */
  loadBatch: number;
  /** A live endpoint: one call a task, answered at once (no POST, no poll). */
  live?: boolean;
  /** The headroom's goal (1 unless the issue asks more: depth 10 should leave two thirds of the machine free). */
  headroomGoal?: number;
  /** `rows_per_cpu_s_vs_duckdb_<name>`: DuckDB's read_json + unnest over the larger run's archive (duckdb-baseline.ts). */
  baseline?: BaselineKind;
  /** The family's own published calls a minute, where the headroom is measured against it (one live call a task). */
  callsPerMinute?: number;
}

const LOCALE = { location_code: 2840, language_code: 'en' };

export const FAMILIES: Family[] = [
  { name: 'keywords_legacy', what: 'legacy keywords_for_site, 700 keywords per task (12 monthly_searches each)', postId: 'keywords_for_site.task_post', params: LOCALE, axis: 'target', value: (i) => `site-${i}.example.com`, sandbox: { keywords_per_site_task: 700 }, quickSandbox: { keywords_per_site_task: 70 }, tasks: { quick: 2, full: 60 }, loadBatch: 200 },
  { name: 'keywords_ads', what: 'ads keywords_for_site, 2,000 keywords per task', postId: 'keywords_data.google_ads.keywords_for_site.task_post', params: LOCALE, axis: 'target', value: (i) => `site-${i}.example.com`, sandbox: { keywords_per_site_task: 2000 }, quickSandbox: { keywords_per_site_task: 200 }, tasks: { quick: 1, full: 20 }, loadBatch: 200 },
  { name: 'keywords_for_keywords', what: 'ads keywords_for_keywords, 20,000 keywords per task (one seed each)', postId: 'keywords_data.google_ads.keywords_for_keywords.task_post', params: LOCALE, axis: 'keywords', chunk: 1, value: (i) => `seed keyword ${i}`, sandbox: { suggestions_per_keyword: 20_000 }, quickSandbox: { suggestions_per_keyword: 1000 }, tasks: { quick: 1, full: 2 }, loadBatch: 200, baseline: 'keywords_for_keywords' },
  { name: 'merchant', what: 'merchant products, 120 items per task', postId: 'merchant.google.products.task_post', params: { ...LOCALE, depth: 120 }, axis: 'keyword', value: (i) => `product ${i}`, sandbox: { merchant_items: 120 }, tasks: { quick: 2, full: 150 }, loadBatch: 200 },
  { name: 'serp_organic', what: 'SERP organic (advanced), depth 700 with nested items', postId: 'serp.google.organic.task_post', params: { ...LOCALE, depth: 700 }, axis: 'keyword', value: (i) => `running shoes ${i}`, sandbox: {}, quickParams: { ...LOCALE, depth: 50 }, tasks: { quick: 2, full: 30 }, loadBatch: 200, baseline: 'serp_organic' },
  // The payloads users request most (issue 30): rank tracking at depth 10 and 100, and search volumes 1,000 keywords a task.
  { name: 'serp_organic_d10', what: 'SERP organic (advanced), depth 10, every item type of the client\'s model incl. AI Overview (a share of pages each)', postId: 'serp.google.organic.task_post', params: { ...LOCALE, depth: 10 }, axis: 'keyword', value: (i) => `running shoes ${i}`, sandbox: {}, tasks: { quick: 4, full: 600 }, loadBatch: 200, headroomGoal: 3 },
  { name: 'serp_organic_d100', what: 'SERP organic (advanced), depth 100, every item type of the client\'s model incl. AI Overview (a share of pages each)', postId: 'serp.google.organic.task_post', params: { ...LOCALE, depth: 100 }, axis: 'keyword', value: (i) => `running shoes ${i}`, sandbox: {}, quickParams: { ...LOCALE, depth: 20 }, tasks: { quick: 2, full: 150 }, loadBatch: 200 },
  { name: 'keywords_ads_search_volume', what: 'ads search_volume, 1,000 keywords a task (12 monthly_searches each)', postId: 'keywords_data.google_ads.search_volume.task_post', params: LOCALE, axis: 'keywords', chunk: 1000, value: (i) => `keyword ${i}`, sandbox: {}, tasks: { quick: 1, full: 30 }, loadBatch: 200 },
  // Live-only families (issue 28), 1,000 rows a task, the live maximum `limit`; the sandbox generates each answer from the official client's models.
  { name: 'labs_ranked_keywords', what: 'Labs ranked_keywords (live), 1,000 items a task', postId: 'dataforseo_labs.google.ranked_keywords.live', params: { ...LOCALE, limit: 1000 }, axis: 'target', value: (i) => `site-${i}.example.com`, sandbox: { generated_items: 1000 }, quickParams: { ...LOCALE, limit: 100 }, quickSandbox: { generated_items: 100 }, tasks: { quick: 1, full: 4 }, loadBatch: 200, live: true, callsPerMinute: 2000, baseline: 'tree' },
  { name: 'backlinks', what: 'Backlinks backlinks (live), 1,000 backlinks a task', postId: 'backlinks.backlinks.live', params: { mode: 'as_is', limit: 1000 }, axis: 'target', value: (i) => `site-${i}.example.com`, sandbox: { generated_items: 1000 }, quickParams: { mode: 'as_is', limit: 100 }, quickSandbox: { generated_items: 100 }, tasks: { quick: 1, full: 20 }, loadBatch: 200, live: true, callsPerMinute: 2000, baseline: 'tree' },
  { name: 'events', what: 'SERP events, depth 700', postId: 'serp.events.task_post', params: { ...LOCALE, depth: 700 }, axis: 'keyword', value: (i) => `concerts ${i}`, sandbox: {}, quickParams: { ...LOCALE, depth: 50 }, tasks: { quick: 2, full: 60 }, loadBatch: 200 },
];

function familyPipeline(f: Family, name: string, n: number, params: Record<string, unknown>): (dir: string) => string {
  return (dir) => {
    mkdirSync(dir, { recursive: true });
    const input = path.join(dir, `${name}-${f.axis}.txt`);
    // A chunked axis makes one task of `chunk` values: n tasks need n x chunk of them.
    writeFileSync(input, `${Array.from({ length: n * (f.chunk ?? 1) }, (_, i) => f.value(i)).join('\n')}\n`);
    const file = path.join(dir, `${name}.yaml`);
    writeFileSync(file, [
      `# Generated by seo-etl bench: ${n} ${f.postId} tasks with full-size results.`,
      `name: ${name}`,
      'budget_usd: 100000000',
      'steps:',
      '  - name: tasks',
      `    endpoint: ${f.postId}`,
      `    params: ${JSON.stringify(params)}`,
      '    for_each:',
      `      ${f.axis}: { file: ${path.basename(input)}${f.chunk ? `, chunk: ${f.chunk}` : ''} }`,
      ...(f.live ? [] : ['    collect: tasks_ready']),
      '',
    ].join('\n'));
    return file;
  };
}

const load1 = () => os.loadavg()[0].toFixed(1);

export async function benchFamilies(o: JobBenchOptions, only?: readonly string[]): Promise<Figures> {
  const out: Figures = {};
  const sizes: JobSizes = { small: 0, large: 0, postback: 0, keywordsPerTask: 1 };
  const profiles: Parameters<typeof breakdownTable>[0] = [];
  for (const f of FAMILIES) {
    if (only && !only.includes(f.name)) continue;
    const small = o.quick ? f.tasks.quick : f.tasks.full;
    const large = small * 4;
    const run = (name: string, n: number, profile: boolean) => measureJobRun(o, name, n, 'tasks_ready', sizes, {
      pipeline: familyPipeline(f, name, n, o.quick ? f.quickParams ?? f.params : f.params),
      postId: f.postId,
      sandbox: { ...(o.quick ? f.quickSandbox ?? f.sandbox : f.sandbox), result_variants: RESULT_VARIANTS },
      loadBatch: f.loadBatch,
      // The rate limits out of the way, tasks_ready's too: the figure is the job's pace, not the limit's.
      windowMs: FAST_WINDOW_MS,
      profile,
      inProcess: o.quick,
    });
    // Quick mode's runs are in this process: its figures show the code runs, and say where they were measured.
    const where = o.quick ? 'in the bench process (quick mode)' : 'in a child process';
    const runs = [];
    for (const n of [small, large]) {
      const loadBefore = load1();
      const m = await run(`family-${f.name}-${n}`, n, false);
      runs.push({ n, m, load: `${loadBefore}-${load1()}` });
    }
    // The profile is a third run of the smaller run's tasks: the profiler's cost stays out of the figures. A quarter
    // of them profiled mostly a run's start, whose idle main thread the steady state does not have. Quick mode
    // profiles a quarter of its first family only: enough to keep the code running.
    const profLoad = load1();
    const profiled = o.quick ? Math.ceil(small / 4) : small;
    const prof = !o.quick || !profiles.length ? (await run(`profile-${f.name}-${profiled}`, profiled, true)).child : undefined;
    const limit = prof ? `${describeLimit(prof.profile)} (a CPU profile of runJob in a separate ${profiled}-task run, load average ${profLoad}-${load1()})` : 'not profiled (quick mode profiles its first family only)';
    profiles.push(...reportRows(`${f.name} (${profiled} tasks)`, prof?.profile));
    const [s, l] = runs;
    const secs = l.m.child.durationMs / 1000;
    const perS = l.n / secs;
    const cpuMs = l.m.child.cpuUserMs + l.m.child.cpuSystemMs;
    const smallCpuMs = s.m.child.cpuUserMs + s.m.child.cpuSystemMs;
    const rowsPerTask = Math.round(l.m.child.rows / l.n);
    const served = l.m.resultCache ? `; the sandbox served ${l.m.calls.gets} task_gets (${l.m.resultCache.misses} results generated, ${l.m.resultCache.hits} served again) using ${(l.m.sandboxCpuMs / 1000).toFixed(1)} s of CPU in the bench process` : '';
    // Sustained: the two runs differ only in their tasks, so the difference of their times is the job's pace with
    // what a run pays once (start, schema, the last polls, export, publish, report) taken out.
    const spanS = (l.m.child.durationMs - s.m.child.durationMs) / 1000;
    const steady = spanS > 0;
    const sustained = steady ? (l.n - s.n) / spanS : perS;
    const steadyCpuMs = steady ? (cpuMs - smallCpuMs) / (l.n - s.n) : cpuMs / l.n;
    const rate = liveRate(f);
    const needRowsS = rowsPerTask * rate.perS;
    const rowsS = steady ? (l.m.child.rows - s.m.child.rows) / spanS : l.m.child.rows / secs;
    const goal = f.headroomGoal ?? 1;
    out[`headroom_${f.name}`] = {
      value: round(sustained / rate.perS, 4),
      unit: 'ratio',
      goal: `>= ${goal}`,
      how: `${sustained / rate.perS >= goal ? '' : `limit: ${limit}; the live rate would need ${Math.round(needRowsS).toLocaleString('en-US')} rows/s, the job loaded ${Math.round(rowsS).toLocaleString('en-US')} rows/s (${(needRowsS / rowsS).toFixed(1)}x short). `}${f.what}: sustained ${sustained.toFixed(2)} tasks/s = ${steady ? `(${l.n} - ${s.n} tasks) / (${secs.toFixed(2)} - ${(s.m.child.durationMs / 1000).toFixed(2)} s), the larger and the smaller whole runJob (${f.live ? 'live calls' : 'tasks_ready'}) ${where}` : `the ${l.n}-task run's whole time (it took no longer than the ${s.n}-task run)`}; the whole ${l.n}-task run alone ${perS.toFixed(2)} tasks/s (${secs.toFixed(1)} s, ${(cpuMs / 1000).toFixed(1)} s of CPU), the ${s.n}-task run ${(s.m.child.durationMs / 1000).toFixed(1)} s and ${(smallCpuMs / 1000).toFixed(1)} s of CPU; job CPU at the steady state ${steadyCpuMs.toFixed(1)} ms per task, ${(steadyCpuMs * sustained / 1000).toFixed(2)} of the machine's ${os.cpus().length} cores busy at that pace (${(steadyCpuMs * rate.perS / 1000).toFixed(2)} at the live rate), ${rowsPerTask} rows per task (${l.m.child.rows} rows; ${Math.round(l.m.child.rows / (cpuMs / 1000)).toLocaleString('en-US')} rows per CPU second over the whole run); over ${rate.said}; ${l.m.calls.total} calls = ${l.m.calls.posts} POSTs + ${l.m.calls.polls} polls + ${l.m.calls.gets} task_gets + ${l.m.calls.other} other${served}; load average ${l.load}`,
    };
    out[`peak_rss_mb_${f.name}`] = {
      value: round(l.m.child.maxRssMb, 1),
      unit: 'MB',
      goal: '< 512',
      how: `${l.m.child.maxRssMb < 512 ? '' : `limit: ${l.m.child.peakNativeMb >= l.m.child.peakHeapMb ? `outside V8's heap (DuckDB's cache and each commit's column blocks), ${l.m.child.peakNativeMb} MB at its peak` : `V8's heap (answers and rows held), ${l.m.child.peakHeapMb} MB at its peak`}; `}${o.quick ? 'largest RSS sampled in the bench process (quick mode) during' : 'maxRSS of the child running only'} the ${l.n}-task run (${f.what}; at most ${f.loadBatch} results and ${CHANNEL_LIMITS.loadBytes / 2 ** 20} MB of answers per load transaction); peak V8 heap used ${l.m.child.peakHeapMb} MB, outside the heap ${l.m.child.peakNativeMb} MB; the ${s.n}-task run: ${s.m.child.maxRssMb} MB; load average ${s.load} and ${l.load}`,
    };
    const growth = round(l.m.child.maxRssMb / s.m.child.maxRssMb, 2);
    // Where the growth is: V8's heap (what the job holds) or outside it (DuckDB, buffers, native chunks).
    const heapUp = l.m.child.peakHeapMb - s.m.child.peakHeapMb;
    const nativeUp = l.m.child.peakNativeMb - s.m.child.peakNativeMb;
    const growthLimit = growth < 1.2 ? '' : `limit: ${nativeUp >= heapUp ? `outside V8's heap (DuckDB's cache and each commit's column blocks), ${nativeUp >= 0 ? '+' : ''}${nativeUp} MB` : `V8's heap (answers and rows held), ${heapUp >= 0 ? '+' : ''}${heapUp} MB`} of the peak's +${round(l.m.child.maxRssMb - s.m.child.maxRssMb, 1)} MB (memory sampled every 100 ms in both runs); `;
    out[`peak_rss_growth_${f.name}`] = {
      value: growth,
      unit: 'ratio',
      goal: '< 1.2',
      how: `${growthLimit}peak_rss_mb_${f.name} (${l.n} tasks) / the same run of ${s.n} tasks (${s.m.child.maxRssMb} MB): 4x the tasks; peak V8 heap used ${s.m.child.peakHeapMb} -> ${l.m.child.peakHeapMb} MB, outside the heap ${s.m.child.peakNativeMb} -> ${l.m.child.peakNativeMb} MB`,
    };
    if (f.baseline) {
      const files = archiveFiles(path.join(o.dir, `family-${f.name}-${l.n}`, 'data', 'raw'));
      const baseLoad = load1();
      const b = await duckdbBaseline(o.dir, files, f.baseline, f.postId);
      const ours = l.m.child.rows / (cpuMs / 1000);
      const theirs = b.rows / (b.cpuMs / 1000);
      // DuckDB's own ceiling on this machine: its rows per CPU second on every core, nothing else running.
      const ceiling = theirs * os.cpus().length;
      out[`headroom_${f.name}`].how += `; DuckDB's read_json + unnest alone, at its ${Math.round(theirs).toLocaleString('en-US')} rows per CPU second (rows_per_cpu_s_vs_duckdb_${f.name}) on all ${os.cpus().length} cores, would load at most ${Math.round(ceiling).toLocaleString('en-US')} rows/s, ${(ceiling / needRowsS).toFixed(2)} of the ${Math.round(needRowsS).toLocaleString('en-US')} the live rate needs`;
      out[`rows_per_cpu_s_vs_duckdb_${f.name}`] = {
        value: round(ours / theirs, 3),
        unit: 'ratio',
        goal: '>= 0.9',
        how: `limit: ${limit}. The job's rows per CPU second (the ${l.n}-task run above: ${l.m.child.rows} rows, ${(cpuMs / 1000).toFixed(1)} s of CPU for everything it did, HTTP, archive, normalize, load, ledger, Parquet = ${Math.round(ours).toLocaleString('en-US')} rows/CPU-s) over DuckDB's read_json (auto-detected schema) + unnest building ${Object.entries(b.tables).map(([t, n]) => `${t} ${n}`).join(', ')} rows from that run's ${files.length} archive file(s) in a child process (${(b.cpuMs / 1000).toFixed(1)} s of CPU on all its threads, ${(b.ms / 1000).toFixed(1)} s = ${Math.round(theirs).toLocaleString('en-US')} rows/CPU-s; load average ${baseLoad}-${load1()}); ${f.baseline === 'tree' ? "DuckDB's tables: the result elements and every list of the detected schema, a table each (t0 the results), nested objects' scalars as columns; the job's also hold a row per item of each item type's own table" : "DuckDB's tables keep the common columns, the job's every field and item type"}`,
      };
    }
    o.log?.(`  ${f.name}: ${sustained.toFixed(2)} tasks/s sustained (headroom ${(sustained / rate.perS).toFixed(3)}; the whole ${l.n}-task run ${perS.toFixed(2)} tasks/s), peak RSS ${s.m.child.maxRssMb} -> ${l.m.child.maxRssMb} MB`);
  }
  if (profiles.length) o.log?.(`  where each family's job spends its main thread (docs/performance.md):\n${breakdownTable(profiles)}`);
  return out;
}

// Section families alone, some families only: node dist/bench/families.js [--quick] [family ...] (run from the checkout).
await runAlone(import.meta.url, 'families', ({ args, ...ctx }) => {
  const unknown = args.filter((n) => !FAMILIES.some((f) => f.name === n));
  if (unknown.length) {
    console.error(`unknown family: ${unknown.join(', ')} (one of ${FAMILIES.map((f) => f.name).join(', ')})`);
    process.exit(2);
  }
  return benchFamilies(ctx, args.length ? args : undefined);
});
