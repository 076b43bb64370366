/**
 * `seo-etl bench` (`make bench`): every performance figure of docs/performance.md, measured on this machine
 * against the embedded sandbox, printed as a table and written to bench/results.json.
 *
 * It is a benchmark, not a test: a figure that misses its goal is reported, never an error. The exit code is
 * non-zero only when a section could not measure at all (the benchmark code itself is broken).
 * BENCH_QUICK=1 (`make bench-quick`) runs every section small and all at once, to show the code runs; its
 * figures are not comparable and go to bench/results.local.json (git-ignored), leaving the committed ones alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchLimiter } from './limiter.js';
import { benchLoad } from './load.js';
import { benchJobs } from './jobs.js';
import { benchFamilies } from './families.js';
import { benchSandboxRps } from './sandbox-rps.js';
import { benchPostgres } from './postgres.js';
import { benchLake } from './lake.js';
import { benchPublishYear } from './publish-year.js';
import { REQUIRED_FIGURES, figureProblems, formatTable, type Figure, type Figures } from './figures.js';

export interface BenchOptions {
  root: string;
  quick: boolean;
  /** Where the figures are written; default bench/results.json, or bench/results.local.json when quick. */
  resultsFile?: string;
  /** Where progress and the table are printed; stdout by default. */
  out?: NodeJS.WritableStream;
}

export interface BenchResult {
  figures: Figures;
  /** Sections that failed, with their error. */
  errors: { section: string; message: string }[];
  resultsFile: string;
  machine: string;
  elapsedMs: number;
}

interface Section {
  name: string;
  run: (ctx: { root: string; quick: boolean; dir: string; log: (line: string) => void }) => Promise<Figures>;
}

const SECTIONS: Section[] = [
  // First, on a quiet process: it is the figure most sensitive to timing.
  { name: 'limiter', run: async ({ quick }) => limiterFigures(await benchLimiter({ quick })) },
  { name: 'load', run: async ({ quick, dir, root, log }) => (await benchLoad({ quick, dir, root, log })) as Figures },
  { name: 'jobs', run: (ctx) => benchJobs(ctx) },
  { name: 'families', run: (ctx) => benchFamilies(ctx) },
  { name: 'sandbox', run: (ctx) => benchSandboxRps(ctx) },
  { name: 'postgres', run: (ctx) => benchPostgres(ctx) },
  { name: 'lake', run: (ctx) => benchLake(ctx) },
  { name: 'publish_year', run: (ctx) => benchPublishYear(ctx) },
];

function limiterFigures(r: Awaited<ReturnType<typeof benchLimiter>>): Figures {
  return {
    limiter_utilization: {
      value: r.limiter_utilization,
      unit: 'ratio',
      goal: '>= 0.98',
      how: `calls the sandbox accepted / calls its sliding-window limit allowed, over ${r.windows} windows of a scaled minute (${r.calls} calls); ${r.details}`,
    },
    rate_limit_answers: {
      value: r.rate_limit_answers,
      unit: 'answers',
      goal: '= 0',
      how: `rate-limit statuses (40202) the sandbox answered during the limiter run (${r.windows} windows, 16 workers keeping the queue saturated)`,
    },
  };
}

/** One line naming the machine: CPU, cores, memory, OS, Node and the load when the run began. */
export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return `${model}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}, load average at start ${load}`;
}

/** Runs every section in turn; a failing section is reported and the others still run. */
export async function runBench(o: BenchOptions): Promise<BenchResult> {
  const out = o.out ?? process.stdout;
  const print = (line: string) => out.write(`${line}\n`);
  const started = Date.now();
  const machine = describeMachine();
  const resultsFile = o.resultsFile ?? path.join(o.root, 'bench', o.quick ? 'results.local.json' : 'results.json');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-bench-'));
  const found: Figures = {};
  const errors: BenchResult['errors'] = [];
  print(`seo-etl bench${o.quick ? ' (BENCH_QUICK: small sizes, figures not comparable)' : ''}`);
  print(`machine: ${machine}`);
  const seconds: { name: string; s: number }[] = [];
  const runSection = async (s: Section) => {
    const t0 = Date.now();
    print(`- ${s.name} ...`);
    try {
      Object.assign(found, await s.run({ root: o.root, quick: o.quick, dir, log: (l) => print(l) }));
      print(`  ${s.name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      seconds.push({ name: s.name, s: (Date.now() - t0) / 1000 });
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      errors.push({ section: s.name, message });
      print(`  ${s.name} FAILED after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${message}`);
    }
  };
  try {
    // Quick mode only shows that every section still runs: the sections share the machine, at once.
    if (o.quick) await Promise.all(SECTIONS.map(runSection));
    else for (const s of SECTIONS) await runSection(s);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The run itself: the command, the machine and its load (other sessions share it), and the 10-minute goal.
  const wallS = Math.round((Date.now() - started) / 1000);
  found.bench_wall_s = {
    value: wallS,
    unit: 's',
    goal: '< 600',
    how: `${wallS < 600 || o.quick ? '' : `limit: ${slowest(seconds, wallS)}; `}command: ${o.quick ? 'make bench-quick (BENCH_QUICK=1 node bin/seo-etl.js bench)' : 'make bench (node bin/seo-etl.js bench)'}; machine: ${machine}; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; sections: ${seconds.map((x) => `${x.name} ${x.s.toFixed(0)} s`).join(', ')}`,
  };
  const figures = ordered(found);
  const missing = REQUIRED_FIGURES.filter((n) => figureProblems(n, figures[n]).length);
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(figures, null, 2)}\n`);
  const elapsedMs = Date.now() - started;
  print('');
  print(formatTable(figures));
  print('');
  if (missing.length) print(`not measured: ${missing.join(', ')}`);
  const shown = path.relative(o.root, resultsFile);
  print(`written to ${shown.startsWith('..') ? resultsFile : shown}; bench took ${(elapsedMs / 1000).toFixed(1)} s`);
  return { figures, errors, resultsFile, machine, elapsedMs };
}

/** What took the bench's time: its longest sections, with their share of the whole. */
function slowest(seconds: readonly { name: string; s: number }[], wallS: number): string {
  const top = [...seconds].sort((a, b) => b.s - a.s).slice(0, 3);
  return `the sections ${top.map((x) => `${x.name} ${Math.round(x.s)} s`).join(', ')} took ${Math.round((100 * top.reduce((a, x) => a + x.s, 0)) / wallS)}% of it (their own figures' profiles say where each spends its time)`;
}

/** The issue's figures first, in its order, then the informational ones. */
function ordered(found: Figures): Figures {
  const out: Figures = {};
  for (const n of REQUIRED_FIGURES) if (found[n]) out[n] = found[n];
  for (const [n, f] of Object.entries(found)) if (!out[n]) out[n] = f as Figure;
  return out;
}

export async function benchCommand(opts: { root: string; quick: boolean }): Promise<number> {
  const r = await runBench({ root: opts.root, quick: opts.quick });
  return r.errors.length ? 1 : 0;
}
