/**
 * The last stage of a run, after publish: the report written from the published views, then the pipeline's
 * alerts. Neither can fail the night: a problem is a warning, the run's exit code stays what it was.
 */
import type { Config } from '../config/index.js';
import type { Pipeline } from '../pipeline/index.js';
import type { Mover } from './data.js';
import { readRunFacts } from './data.js';
import { reportsDir, serpKeywords, withPublished, writeReport } from './index.js';
import { aiVisibilityRows, rankRows, raiseAndDeliver, type AlertsOutcome } from './alerts/index.js';
import { trackedOf } from './tracked.js';

export interface ReportStageOptions {
  config: Config;
  pipeline: Pipeline;
  runId: string;
  runDate: string;
  dataDir: string;
  publishedPath: string;
  service: string;
  warn: (fields: Record<string, unknown>, message: string) => void;
  now?: () => Date;
}

export interface ReportStageResult {
  reportPath?: string;
  /** The biggest moves of the run's SERP day (the tracked domains' when there are any), for the end-of-run notice. */
  movers: Mover[];
  alerts?: AlertsOutcome;
}

export async function reportStage(o: ReportStageOptions): Promise<ReportStageResult> {
  try {
    return await withPublished(o.publishedPath, async (q) => {
      const out: ReportStageResult = { movers: [] };
      try {
        const report = await writeReport({ dataDir: o.dataDir, publishedPath: o.publishedPath, runId: o.runId, config: o.config, pipeline: o.pipeline, latest: true, service: o.service, now: o.now }, q);
        out.reportPath = report.path;
        const s = report.data.serp;
        if (s) out.movers = (s.trackedMoves.length ? s.trackedMoves : [...s.up, ...s.down].sort((a, b) => Math.abs(b.change) - Math.abs(a.change))).slice(0, 5);
      } catch (err) {
        o.warn({ err: (err as Error).message }, 'the run report was not written');
      }
      const spec = o.pipeline.alerts;
      if (spec) {
        const run = await readRunFacts(q, o.runId);
        const movement = await rankRows(q, trackedOf(o.pipeline), o.runDate, serpKeywords(o.pipeline));
        const ai = await aiVisibilityRows(q, spec, o.runDate);
        out.alerts = await raiseAndDeliver({
          spec, pipeline: o.pipeline.name, run, movement, ai, reportsDir: reportsDir(o.dataDir), reportPath: out.reportPath, config: o.config, now: o.now,
          warn: (message) => o.warn({}, message),
        });
      }
      return out;
    });
  } catch (err) {
    o.warn({ err: (err as Error).message }, 'the run report and alerts were skipped: the published warehouse could not be read');
    return { movers: [] };
  }
}
