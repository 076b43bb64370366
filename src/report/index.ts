/**
 * The run report: reads the curated views of the published warehouse (read-only, as any reader does) and writes
 * `<data folder>/reports/<run_id>.html`, and `latest.html` for the newest run, each by rename so a browser never
 * opens half a file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Pipeline } from '../pipeline/index.js';
import { readAxisValues } from '../pipeline/sources.js';
import { trackedOf } from './tracked.js';
import { queryOf, readReportData, type Query, type ReportData } from './data.js';
import { renderReport } from './html.js';
import { createDuckdb } from '../load/threads.js';

export { RunNotFound, type ReportData, type Mover } from './data.js';

export const DEFAULT_DAYS = 14;

export const reportsDir = (dataDir: string) => path.join(dataDir, 'reports');

export interface WriteReportOptions {
  dataDir: string;
  /** The published warehouse the views are read from. */
  publishedPath: string;
  runId: string;
  config: Config;
  /** The pipeline, when known: its tracked domains (alerts.domains) and SERP keywords. */
  pipeline?: Pipeline;
  days?: number;
  /** Also write latest.html (the run stage does; `seo-etl report --run <older run>` does not). */
  latest: boolean;
  service?: string;
  /** Shown in the report as when it was written. */
  now?: () => Date;
}

export interface WrittenReport { path: string; latestPath?: string; data: ReportData }

/** Opens the published warehouse read-only for `fn`; readers may hold it read-only too. */
export async function withPublished<T>(file: string, fn: (q: Query) => Promise<T>): Promise<T> {
  const instance = await createDuckdb(file, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return await fn(queryOf(conn));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

export async function writeReport(o: WriteReportOptions, query?: Query): Promise<WrittenReport> {
  const read = (q: Query) => readReportData(q, {
    runId: o.runId, days: o.days ?? DEFAULT_DAYS, tracked: o.pipeline ? trackedOf(o.pipeline) : undefined, serpKeywords: o.pipeline ? serpKeywords(o.pipeline) : undefined,
    targets: o.pipeline?.targets.map((t) => t.name),
    rateLimitPerMinute: Math.round((o.config.rate_limit.calls * 60_000) / o.config.rate_limit.window_ms),
  });
  const data = query ? await read(query) : await withPublished(o.publishedPath, read);
  const html = renderReport(data, { service: o.service, writtenAt: (o.now ?? (() => new Date()))() });
  const dir = reportsDir(o.dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${o.runId}.html`);
  writeAtomically(file, html);
  let latestPath: string | undefined;
  if (o.latest) writeAtomically((latestPath = path.join(dir, 'latest.html')), html);
  return { path: file, latestPath, data };
}

function writeAtomically(file: string, text: string): void {
  const side = `${file}.writing-${process.pid}`;
  writeFileSync(side, text);
  renameSync(side, file);
}

/** The keywords the pipeline's SERP steps ask for; undefined when one reads them from SQL (then all are shown). */
export function serpKeywords(p: Pipeline): string[] | undefined {
  const out = new Set<string>();
  for (const step of p.steps.filter((s) => s.endpointId.startsWith('serp.'))) {
    if (typeof step.params.keyword === 'string') out.add(step.params.keyword);
    for (const axis of step.axes) {
      if (axis.kind !== 'values' || axis.param !== 'keyword') continue;
      // A run releases what it read from files once planned: read them again (a SQL source is not re-run).
      const values = axis.values ?? readAxisValues(axis, { at: axis.at, keyPath: axis.keyPath }, []);
      if (!values) return undefined;
      for (const v of values) out.add(String(v.value));
    }
  }
  return out.size ? [...out] : undefined;
}
