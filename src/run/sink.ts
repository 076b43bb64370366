/**
 * The run's load channel (src/load/channel.ts): every Outcome of the collect stage is committed through the
 * writer, its ledger moves in the same transaction; what each commit loaded is counted here for the progress bar
 * and the summary.
 */
import type { Logger } from '../log/logger.js';
import type { Ledger } from '../ledger/index.js';
import { LoadChannel, commitThrough, isLoadable, mergeSummary, type LoadSummary, type Outcome } from '../load/index.js';
import type { Writer } from '../load/writer.js';
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
  /** Outcomes per transaction at most (collect.load_batch). */
  maxCount: number;
}

export function openLoadChannel(d: SinkDeps): LoadChannel {
  return new LoadChannel({
    maxCount: d.maxCount,
    commit: commitThrough({
      writer: d.writer,
      runId: d.runId,
      engines: d.engines,
      inTransaction: () => d.pause('load'),
      onCommitted: (batch, summary) => {
        mergeSummary(d.load, summary);
        const tasks = batch.reduce((n, o) => n + (o.kind === 'collected' ? o.results.length : o.kind === 'answered' ? o.keys.length : 0), 0);
        if (tasks) d.logger.debug({ tasks, rows: Object.values(summary.rows).reduce((a, b) => a + b, 0) }, 'results loaded');
        for (const o of batch) count(d.progress, o);
      },
    }),
  });
}

/** What a committed outcome adds to the progress counts. */
function count(progress: Progress, o: Outcome): void {
  if (o.kind === 'failed') return progress.add('failed');
  if (o.kind !== 'collected' && o.kind !== 'answered') return;
  const tasks = o.kind === 'answered' ? o.keys.length : o.results.length;
  const ok = o.results.filter(isLoadable).length;
  const loaded = o.kind === 'answered' ? (ok ? tasks : 0) : ok;
  progress.add('collected', tasks);
  progress.add('loaded', loaded);
  progress.add('failed', tasks - loaded);
}
