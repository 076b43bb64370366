/**
 * One whole job measured (runJob): its duration, CPU, memory and outcome. `make bench` measures each in a child
 * process of its own (job-child.ts), where the kernel's peak RSS is that run's alone; BENCH_QUICK's families run
 * in the bench's process, where the peak is the one sampled during the run.
 */
import { Writable } from 'node:stream';
import { runJob } from '../run/job.js';
import { profileReport, startProfiler, type ProfileReport } from './profile.js';

export interface JobChildSpec {
  root: string;
  pipelineFile: string;
  runDate: string;
  configOverrides: Record<string, unknown>;
  resultFile: string;
  /** Take a CPU profile of runJob (this thread) and answer with its breakdown; a profiled run is not a measured one. */
  profile?: boolean;
}

export interface JobChildResult {
  /** runJob's own duration (plan to publish), ms. */
  durationMs: number;
  /** Peak resident set of this process, MB (from the kernel's accounting). */
  maxRssMb: number;
  /** Peak V8 heap in use and peak memory outside it (RSS - heap total: DuckDB, buffers), MB, sampled every 100 ms. */
  peakHeapMb: number;
  peakNativeMb: number;
  /**
   * Every 100 ms: [epoch ms, CPU ms used so far (user + system), V8 heap used MB, RSS MB]; what the run spent in
   * a span of the parent's, and when its memory peaked.
   */
  timeline: [number, number, number, number][];
  cpuUserMs: number;
  cpuSystemMs: number;
  status: string;
  exitCode: number;
  tasks: number;
  loaded: number;
  notCollected: number;
  callbacks: number;
  rows: number;
  publishedPath: string;
  /** The CPU profile of runJob, attributed (spec.profile). */
  profile?: ProfileReport;
}

/**
 * Runs `spec`'s job and measures it. In a process of its own (`alone`), the CPU and peak RSS are the process's
 * (module loading included, as a user's run pays it); otherwise they are what this process used during the run
 * and the largest RSS sampled, every 100 ms.
 */
export async function measureJob(spec: JobChildSpec, opts: { alone: boolean; env?: NodeJS.ProcessEnv }): Promise<JobChildResult> {
  const discard = new Writable({ write: (_c, _e, cb) => cb() });
  let peakHeap = 0;
  let peakNative = 0;
  let peakRss = 0;
  const timeline: [number, number, number, number][] = [];
  const sample = () => {
    const c = process.cpuUsage();
    const m = process.memoryUsage();
    timeline.push([Date.now(), Math.round((c.user + c.system) / 1000), Math.round(m.heapUsed / 2 ** 20), Math.round(m.rss / 2 ** 20)]);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakNative = Math.max(peakNative, m.rss - m.heapTotal);
    peakRss = Math.max(peakRss, m.rss);
  };
  const sampler = setInterval(sample, 100);
  const profiler = spec.profile ? await startProfiler() : undefined;
  const cpu0 = process.cpuUsage();
  const r = await runJob({ root: spec.root, pipelineFile: spec.pipelineFile, runDate: spec.runDate, configOverrides: spec.configOverrides, progress: false, out: discard, ...(opts.env ? { env: opts.env } : {}), ...(opts.alone ? {} : { logDestination: discard, stderrLog: false }) });
  const cpu = process.cpuUsage(cpu0);
  const profile = profiler ? profileReport(await profiler.stop(), Math.round((cpu.user + cpu.system) / 1000)) : undefined;
  clearInterval(sampler);
  sample();
  const usage = process.resourceUsage();
  return {
    durationMs: r.durationMs,
    maxRssMb: Math.round(((opts.alone ? usage.maxRSS * 1024 : peakRss) / 2 ** 20) * 10) / 10,
    peakHeapMb: Math.round(peakHeap / 2 ** 20),
    peakNativeMb: Math.round(peakNative / 2 ** 20),
    timeline,
    cpuUserMs: Math.round((opts.alone ? usage.userCPUTime : cpu.user) / 1000),
    cpuSystemMs: Math.round((opts.alone ? usage.systemCPUTime : cpu.system) / 1000),
    status: r.status,
    exitCode: r.exitCode,
    tasks: r.summary?.tasks ?? 0,
    loaded: r.summary?.byState.loaded ?? 0,
    notCollected: r.notCollected,
    callbacks: r.callbacks.received,
    rows: Object.values(r.load.rows).reduce((a, b) => a + b, 0),
    publishedPath: r.publishedPath,
    profile,
  };
}
