/**
 * Alert rules against the views, as pure functions: the run's facts (v_runs) and its day's ranks of the tracked
 * domains (v_serp_tracked_ranks: the client's rank, its subdomains counted in) in, the alerts out. Each alert has a key that names the rule, the
 * subject and its day or run, so the same movement evaluated again (resume, a repeated run) is the same alert.
 */
import type { AlertRule } from '../../pipeline/index.js';
import type { RunFacts } from '../data.js';

export interface Alert {
  key: string;
  runId: string;
  rule: string;
  text: string;
}

/** A tracked domain's rank on a day and the previous collected day: a row of v_serp_tracked_ranks (rankRows). */
export interface MovementRow {
  keyword: string; se: string | null; se_type: string | null; location_code: number | null; language_code: string | null; device: string;
  date: string; domain: string; position: number | null; previous_position: number | null; movement: string;
}

const where = (m: MovementRow) => `"${m.keyword}" (${[m.location_code, m.language_code, m.device].filter((x) => x !== null && x !== undefined).join(', ')})`;
const subject = (m: MovementRow) => [m.domain, m.keyword, m.se, m.se_type, m.location_code, m.language_code, m.device, m.date].join('|');
const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;

/** Alerts about tracked domains: a rank row fires a rule at most once. Rows of the series' first day never fire. */
export function domainAlerts(rules: readonly AlertRule[], rows: readonly MovementRow[], runId: string): Alert[] {
  const out: Alert[] = [];
  for (const m of rows) {
    if (m.movement === 'first') continue;
    const was = m.previous_position;
    const now = m.position;
    for (const rule of rules) {
      let text: string | undefined;
      if (rule.kind === 'position_drop' && was !== null) {
        if (now === null) text = `${m.domain} left the collected results for ${where(m)}: was ${was}`;
        else if (now - was > rule.positions) text = `${m.domain} fell ${now - was} positions for ${where(m)}: ${was} -> ${now}`;
      } else if (rule.kind === 'leaves_top' && was !== null && was <= rule.top && (now === null || now > rule.top)) {
        text = `${m.domain} left the top ${rule.top} for ${where(m)}: ${was} -> ${now ?? 'not in the results'}`;
      } else if (rule.kind === 'enters_top' && now !== null && now <= rule.top && (was === null || was > rule.top)) {
        text = `${m.domain} entered the top ${rule.top} for ${where(m)}: ${was ?? 'not in the results'} -> ${now}`;
      }
      if (text) out.push({ key: `${rule.id}|${subject(m)}`, runId, rule: rule.id, text });
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** Alerts about the run itself: failed, stopped by its budget, or over a cost. */
export function runAlerts(rules: readonly AlertRule[], run: RunFacts): Alert[] {
  const out: Alert[] = [];
  for (const rule of rules) {
    let text: string | undefined;
    if (rule.kind === 'run_failed' && (run.status === 'aborted' || run.failed > 0)) {
      text = `run ${run.runId} ${run.status === 'aborted' ? 'did not finish (aborted)' : 'finished with failures'}: ${run.failed} of ${run.tasks} tasks failed${run.unfinished ? `, ${run.unfinished} unfinished` : ''}`;
    } else if (rule.kind === 'budget_stopped' && run.status === 'stopped_budget') {
      text = `run ${run.runId} stopped posting at its budget of ${usd(run.budgetUsd ?? 0)} (${usd(run.spentUsd)} spent)`;
    } else if (rule.kind === 'cost_above' && run.spentUsd > rule.usd) {
      text = `run ${run.runId} cost ${usd(run.spentUsd)}, above ${usd(rule.usd)}`;
    }
    if (text) out.push({ key: `${rule.id}|${run.runId}`, runId: run.runId, rule: rule.id, text });
  }
  return out;
}

/** One row of v_serp_ai_visibility. */
export interface AiVisibilityRow {
  target: string; tracked_domain: string; keyword: string; se: string | null; se_type: string | null; location_code: number | null; language_code: string | null; device: string;
  date: string; ai_overview_shown: boolean; citation_position: number | null; citation_change: string;
}

/** Alerts about the AI Overview citations of the pipeline's targets: gained or lost since the previous collected day. */
export function aiAlerts(rules: readonly AlertRule[], rows: readonly AiVisibilityRow[], runId: string): Alert[] {
  const out: Alert[] = [];
  for (const v of rows) {
    const m = { keyword: v.keyword, location_code: v.location_code, language_code: v.language_code, device: v.device } as MovementRow;
    for (const rule of rules) {
      let text: string | undefined;
      if (rule.kind === 'ai_citation_gained' && v.citation_change === 'gained') {
        text = `${v.tracked_domain} is cited in the AI Overview for ${where(m)}${v.citation_position !== null ? ` (reference ${v.citation_position})` : ''}; target ${v.target}`;
      } else if (rule.kind === 'ai_citation_lost' && v.citation_change === 'lost') {
        text = `${v.tracked_domain} lost its AI Overview citation for ${where(m)}${v.ai_overview_shown ? '' : ' (no AI Overview showed)'}; target ${v.target}`;
      }
      if (text) out.push({ key: `${rule.id}|${[v.target, v.tracked_domain, v.keyword, v.se, v.se_type, v.location_code, v.language_code, v.device, v.date].join('|')}`, runId, rule: rule.id, text });
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
