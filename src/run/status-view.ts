/** What `seo-etl status` says of each run: pure functions from the ledger's summary and the run lock. */
import type { RunSummary } from '../ledger/index.js';
import { costNote, type Service } from '../config/service.js';

export type RunCondition = 'running' | 'interrupted' | 'completed' | 'completed with failures' | 'failed' | 'stopped at budget' | 'aborted';

/**
 * A run the ledger still calls running is only running while a live process holds the lock for it; otherwise it
 * was killed and `resume` continues it. A completed run whose every task failed is a failed run.
 */
export function runCondition(s: RunSummary, liveRunId: string | undefined): RunCondition {
  const failed = s.byState.failed;
  switch (s.run.status) {
    case 'running': return s.run.runId === liveRunId ? 'running' : 'interrupted';
    case 'stopped_budget': return 'stopped at budget';
    case 'aborted': return 'aborted';
    default: return s.tasks > 0 && failed === s.tasks ? 'failed' : failed > 0 ? 'completed with failures' : 'completed';
  }
}

export interface FailureGroup { code: number | null; message: string | null; count: number; steps: string[] }

/** Failures by code and message, across steps, largest first. */
export function groupFailures(failures: RunSummary['failures']): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const f of failures) {
    const k = `${f.code}\u0000${f.message}`;
    const g = groups.get(k) ?? { code: f.code, message: f.message, count: 0, steps: [] };
    g.count += f.count;
    if (!g.steps.includes(f.step)) g.steps.push(f.step);
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.code ?? 0) - (b.code ?? 0));
}

/** At most this many failure groups a run; the rest are counted on one line. */
const FAILURE_LINES = 3;

/** `serviceOf` says which service each run talked to (src/config/service.ts). */
export function statusLines(runs: readonly RunSummary[], liveRunId: string | undefined, serviceOf: (runId: string) => Service | undefined = () => undefined): string[] {
  const lines: string[] = [];
  for (const s of runs) {
    const states = Object.entries(s.byState).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
    const condition = runCondition(s, liveRunId);
    const hint = condition === 'interrupted' ? '  - no process is running it: `seo-etl resume` continues it' : s.run.note ? `  - ${s.run.note}` : '';
    const service = serviceOf(s.run.runId);
    const via = service ? `  via ${service.label}` : '';
    lines.push(`${s.run.runId}  ${condition}  tasks ${s.tasks} (${states || 'none'})  $${s.costUsd.toFixed(4)}${service ? costNote(service) : ''}  started ${s.run.startedAt}${via}${hint}`);
    const groups = groupFailures(s.failures);
    for (const g of groups.slice(0, FAILURE_LINES)) lines.push(`    failed: ${g.count} x ${g.code ?? '-'} ${g.message ?? ''} (${g.steps.length === 1 ? 'step' : 'steps'} ${g.steps.join(', ')})`);
    if (groups.length > FAILURE_LINES) {
      const rest = groups.slice(FAILURE_LINES);
      lines.push(`    failed: ${rest.reduce((n, g) => n + g.count, 0)} more, of ${rest.length} other kinds (seo-etl status --json lists them)`);
    }
  }
  return lines;
}
