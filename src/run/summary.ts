/**
 * What a run prints when it ends: a few labelled lines (outcome, service, tasks, cost, failures) and one aligned
 * table of the rows it loaded, sorted by table, each nested table counted under its parent; or, with --quiet, the
 * outcome on one line. Every count comes from the ledger's summary, as does the progress display's last frame.
 */
import type { RunSummary } from '../ledger/index.js';
import type { Pipeline } from '../pipeline/index.js';
import { costNote, type Service } from '../config/service.js';
import type { RunJobResult } from './job.js';
import { stopLines } from '../post/stop.js';
import { keptLines } from './kept.js';

/** The tasks by state, in the ledger's order: "loaded 24, failed 1". */
export function statesOf(s: RunSummary): string {
  return Object.entries(s.byState).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
}

const money = (usd: number) => `$${usd.toFixed(4)}`;

/** One line for cron mail and --quiet: the outcome, tasks, cost and time. */
export function outcomeLine(r: RunJobResult, pipeline: Pipeline, service: Service): string {
  const s = r.summary;
  const tasks = s ? `, tasks ${s.tasks} (${statesOf(s)})` : '';
  const cost = s ? `, ${money(s.costUsd)} of $${pipeline.budgetUsd}${costNote(service)}` : '';
  const next = r.exitCode === 0 ? '' : r.notCollected || r.notPosted ? ': seo-etl resume finishes it' : ': seo-etl status lists what failed';
  // The reason for a stop, as the full summary says it: cron's one line must not need `status` to be understood.
  const why = r.stops ? stopLines(r.stops)[0] : undefined;
  return `run ${r.runId} ${r.status}${r.resumed ? ' (resumed)' : ''} via ${service.label}${tasks}${cost}, exit ${r.exitCode}, ${(r.durationMs / 1000).toFixed(1)} s${why ? `; ${why}` : next}`;
}

export function formatSummary(r: RunJobResult, pipeline: Pipeline, service: Service): string {
  const s = r.summary;
  const lines: string[] = [];
  lines.push(`run ${r.runId} ${r.status}${r.resumed ? ' (resumed)' : ''} in ${(r.durationMs / 1000).toFixed(1)} s`);
  lines.push(`service: ${service.label}${service.kind === 'sandbox' ? ' (a sandbox: its data stays in its own warehouse)' : ''}`);
  if (s) {
    lines.push(`tasks: ${s.tasks} (${statesOf(s)})`);
    lines.push(`cost: ${money(s.costUsd)} of a $${pipeline.budgetUsd} budget${costNote(service)}`);
    for (const f of s.failures) lines.push(`failed: ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  }
  lines.push(...stopLines(r.stops));
  if (r.budgetStopped) lines.push('stopped posting at the budget; everything posted was collected');
  if (r.notCollected) lines.push(`${r.notCollected} posted tasks are not collected yet: run 'seo-etl resume' later (results stay 30 days)`);
  if (r.notPosted) lines.push(`${r.notPosted} tasks were not posted (why, below): ${r.budgetStopped ? 'raise budget_usd, then ' : ''}run 'seo-etl resume' to post them`);
  for (const f of r.notPostedReasons) lines.push(`not posted: ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  lines.push(...keptLines(r.load));
  if (r.callbacks?.recovered) lines.push(`callbacks: ${r.callbacks.recovered} never came; fetched by id (check webhook.public_url; NAT: tasks_ready)`);
  lines.push(`published: ${r.publishedPath}`);
  lines.push('', ...rowsTable(r.load.rows));
  return `${lines.join('\n')}\n`;
}

/**
 * Rows loaded this run as an aligned table sorted by name: one line per top-level table, its nested tables
 * (`parent__field`) summed beside it; `seo-etl tables` lists each.
 */
export function rowsTable(rows: Readonly<Record<string, number>>): string[] {
  const groups = new Map<string, { rows: number; nested: number; nestedTables: string[] }>();
  for (const [table, n] of Object.entries(rows)) {
    if (n <= 0) continue;
    const parent = table.split('__')[0];
    const g = groups.get(parent) ?? { rows: 0, nested: 0, nestedTables: [] };
    if (table === parent) g.rows += n;
    else { g.nested += n; g.nestedTables.push(table); }
    groups.set(parent, g);
  }
  if (!groups.size) return ['rows loaded this run: none'];
  const names = [...groups.keys()].sort();
  const num = (n: number) => n.toLocaleString('en-US');
  const nameWidth = Math.max('table'.length, ...names.map((t) => t.length));
  const total = Object.values(rows).reduce((a, b) => a + Math.max(0, b), 0);
  const rowsWidth = Math.max('rows'.length, num(total).length, ...names.map((t) => num(groups.get(t)!.rows).length));
  const nestedWidth = Math.max(...names.map((t) => num(groups.get(t)!.nested).length));
  const out = [`${'table'.padEnd(nameWidth)}  ${'rows'.padStart(rowsWidth)}  rows in its nested tables`];
  for (const t of names) {
    const g = groups.get(t)!;
    const nested = g.nestedTables.length === 0 ? ''
      : `${num(g.nested).padStart(nestedWidth)} in ${g.nestedTables.length === 1 ? g.nestedTables[0] : `${g.nestedTables.length} tables`}`;
    // The table named tasks counts answers, not the ledger's tasks the line above counts.
    const note = t === 'tasks' ? `${nested ? ', ' : ''}one row per answer (per page of a paged task)` : '';
    out.push(`${t.padEnd(nameWidth)}  ${num(g.rows).padStart(rowsWidth)}  ${nested}${note}`.trimEnd());
  }
  out.push(`${'total'.padEnd(nameWidth)}  ${num(total).padStart(rowsWidth)}  in ${Object.values(rows).filter((n) => n > 0).length} tables (seo-etl tables lists each)`);
  return out;
}
