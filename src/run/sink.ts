/**
 * The one sink of the collect stage: each Outcome becomes one load through the writer, the ledger's moves in the
 * same transaction (rows and state change together), or a recorded failure.
 */
import type { Logger } from '../api/logger.js';
import { isTaskError } from '../api/status.js';
import type { Outcome, Sink } from '../collect/index.js';
import { markFailed, markLoaded, markPosted, recordBilled, type Ledger } from '../ledger/index.js';
import { mergeSummary, type LoadSummary } from '../load/index.js';
import type { Writer } from '../load/writer.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { PauseHook } from '../pause.js';
import type { Progress } from './progress.js';

export interface SinkDeps {
  writer: Writer;
  ledger: Ledger;
  runId: string;
  /** Engine path names stripped from item types. */
  engines: readonly string[];
  progress: Progress;
  logger: Logger;
  pause: PauseHook;
  /** What this run loaded, summed. */
  load: LoadSummary;
}

export function makeSink(d: SinkDeps): Sink {
  return async (o: Outcome) => {
    if (o.kind === 'failed') {
      await d.ledger.markFailed(d.runId, [{ ref: o.ref, code: o.code, message: o.message }]);
      d.progress.add('failed');
      return;
    }
    const ok: CollectedTask[] = [];
    const bad: CollectedTask[] = [];
    for (const r of o.results) (!isTaskError(r.task.status_code) && Array.isArray(r.task.result) ? ok : bad).push(r);
    const summary = await d.writer.load(o.results, {
      runId: d.runId,
      engines: d.engines,
      inTransaction: async (conn) => {
        if (o.kind === 'answered') {
          if (o.posted) await markPosted(conn, d.runId, [o.posted]);
          // One call's answer: its tasks failed only if no page of it succeeded.
          if (bad.length && !ok.length) await markFailed(conn, d.runId, o.keys.map((k) => ({ ref: k, code: bad[0].task.status_code, message: bad[0].task.status_message })));
          else await markLoaded(conn, d.runId, o.keys, { collected: true, pages: o.pages });
        } else {
          await markLoaded(conn, d.runId, ok.map((r) => r.key ?? r.task.id), { collected: true });
          // A result that reports its cost (SERP, after refunds) replaces what posting reserved.
          await recordBilled(conn, d.runId, ok.filter((r) => typeof r.task.cost === 'number' && r.task.cost > 0).map((r) => ({ ref: r.key ?? r.task.id, cost: r.task.cost as number })));
          if (bad.length) await markFailed(conn, d.runId, bad.map((r) => ({ ref: r.key ?? r.task.id, code: r.task.status_code, message: r.task.status_message })));
        }
        await d.pause('load');
      },
    });
    mergeSummary(d.load, summary);
    d.logger.debug({ tasks: o.results.length, rows: Object.values(summary.rows).reduce((a, b) => a + b, 0) }, 'results loaded');
    const tasks = o.kind === 'answered' ? o.keys.length : o.results.length;
    const loaded = o.kind === 'answered' ? (ok.length ? tasks : 0) : ok.length;
    d.progress.add('collected', tasks);
    d.progress.add('loaded', loaded);
    d.progress.add('failed', tasks - loaded);
  };
}
