/**
 * Ctrl-C (SIGINT) or a scheduler's SIGTERM during `run` or `resume`: the ledger already holds everything posted
 * (it is committed before and after each batch), so the process may end at once; but it used to end silently,
 * with the progress bar half-drawn. This says what was interrupted and what `resume` will do about it.
 */
import type { ProgressCounts } from './progress.js';

export interface InterruptContext {
  counts: () => ProgressCounts;
  /** Clears the progress bar before the message is written. */
  stopProgress: () => void;
  /** collect.ambiguous_grace_ms: how long `resume` looks for a batch that was being sent before posting it again. */
  ambiguousGraceMs: number;
  out: NodeJS.WritableStream;
  /** Test seam: how the process ends (process.exit by default). */
  exit?: (code: number) => void;
}

const minutes = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** The lines printed when a run is interrupted. Pure. */
export function interruptMessage(signal: string, c: ProgressCounts, graceMs: number): string {
  const done = c.loaded + c.failed;
  const notPosted = Math.max(0, c.planned - c.posted - c.failed);
  return [
    `seo-etl: interrupted (${signal}) with ${done} of ${c.planned} task(s) done, ${c.posted} posted so far; everything posted is in the ledger and is never posted or paid for again.`,
    `'seo-etl resume' collects the posted tasks${notPosted ? ` and posts the ${notPosted} not posted yet` : ''}. A batch that was being sent at this moment may or may not have reached the service:`,
    `resume looks for it by its tags for up to ${minutes(graceMs)} (collect.ambiguous_grace_ms) before posting it again, and says so while it waits.`,
  ].join('\n');
}

/** Installs the handlers; returns their removal. */
export function onInterrupt(ctx: InterruptContext): () => void {
  const handle = (signal: NodeJS.Signals) => {
    ctx.stopProgress();
    ctx.out.write(`\n${interruptMessage(signal, ctx.counts(), ctx.ambiguousGraceMs)}\n`);
    (ctx.exit ?? ((code) => process.exit(code)))(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', handle);
  process.once('SIGTERM', handle);
  return () => {
    process.off('SIGINT', handle);
    process.off('SIGTERM', handle);
  };
}
