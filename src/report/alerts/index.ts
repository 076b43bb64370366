/**
 * After a run: the pipeline's alert rules against the views, recorded once in the outbox, and every alert owed to
 * a channel delivered, one message per run and channel. Never throws for a receiver: it warns and tries next run.
 */
import path from 'node:path';
import type { Config } from '../../config/index.js';
import type { AlertsSpec } from '../../pipeline/index.js';
import type { Query, RunFacts } from '../data.js';
import { aiAlerts, domainAlerts, runAlerts, type AiVisibilityRow, type Alert, type MovementRow } from './evaluate.js';
import { AlertOutbox } from './outbox.js';
import { clientRanks, type Tracked } from '../tracked.js';
import { channelId, channelShown, deliver } from './deliver.js';

export type { Alert } from './evaluate.js';

export interface AlertsOutcome {
  /** Alerts raised by this evaluation (not raised before). */
  raised: Alert[];
  /** Messages delivered, per channel as shown (no secrets). */
  delivered: { channel: string; runId: string; alerts: number }[];
  /** Deliveries that failed: they are retried after the next run. */
  failed: { channel: string; runId: string; why: string }[];
}

export const outboxPath = (reportsDir: string) => path.join(reportsDir, 'alerts.jsonl');

/** The AI visibility rows of the pipeline's targets on the run's SERP day, for the ai_citation rules. */
export async function aiVisibilityRows(q: Query, spec: AlertsSpec, runDate: string): Promise<AiVisibilityRow[]> {
  if (!spec.targets.length || !spec.rules.some((r) => r.kind === 'ai_citation_gained' || r.kind === 'ai_citation_lost')) return [];
  const rows = await q(
    `WITH day AS (SELECT max(date) AS d FROM v_serp_ai_visibility
                  WHERE date BETWEEN $1::DATE - INTERVAL 1 DAY AND $1::DATE + INTERVAL 1 DAY AND list_contains($2::VARCHAR[], target))
     SELECT target, tracked_domain, keyword, se, se_type, location_code, language_code, device, CAST(date AS VARCHAR) AS date,
            ai_overview_shown, citation_position, citation_change
     FROM v_serp_ai_visibility WHERE date = (SELECT d FROM day) AND list_contains($2::VARCHAR[], target) AND citation_change IN ('gained', 'lost')`,
    [runDate, spec.targets]);
  return rows.map((r) => ({
    target: String(r.target), tracked_domain: String(r.tracked_domain), keyword: String(r.keyword), se: (r.se as string | null) ?? null, se_type: (r.se_type as string | null) ?? null,
    location_code: r.location_code === null ? null : Number(r.location_code), language_code: (r.language_code as string | null) ?? null, device: String(r.device), date: String(r.date),
    ai_overview_shown: Boolean(r.ai_overview_shown), citation_position: r.citation_position === null ? null : Number(r.citation_position), citation_change: String(r.citation_change),
  }));
}

/**
 * The tracked domains' ranks on the run's SERP day (the latest within a day of the run date), as v_serp_tracked_ranks
 * has them: the client's rank, its subdomains counted in (src/report/tracked.ts), one row per tracked domain and
 * series even when several targets track the same domain.
 */
export async function rankRows(q: Query, tracked: Tracked | undefined, runDate: string, keywords?: readonly string[]): Promise<MovementRow[]> {
  if (!tracked?.domains.length) return [];
  const kw = keywords?.length ? ' WHERE list_contains($2::VARCHAR[], keyword)' : '';
  const ranks = clientRanks(tracked, keywords?.length ? 3 : 2);
  const rows = await q(
    `WITH r AS (SELECT * FROM ${ranks.from}${kw}),
     day AS (SELECT max(date) AS d FROM r WHERE date BETWEEN $1::DATE - INTERVAL 1 DAY AND $1::DATE + INTERVAL 1 DAY)
     SELECT DISTINCT keyword, se, se_type, location_code, language_code, device, CAST(date AS VARCHAR) AS date, tracked_domain AS domain, position, previous_position, movement
     FROM r WHERE date = (SELECT d FROM day)`, [runDate, ...(keywords?.length ? [keywords] : []), ...ranks.params]);
  return rows.map((r) => ({
    keyword: String(r.keyword), se: (r.se as string | null) ?? null, se_type: (r.se_type as string | null) ?? null, location_code: r.location_code === null ? null : Number(r.location_code),
    language_code: (r.language_code as string | null) ?? null, device: String(r.device), date: String(r.date), domain: String(r.domain),
    position: r.position === null ? null : Number(r.position), previous_position: r.previous_position === null ? null : Number(r.previous_position), movement: String(r.movement),
  }));
}

export interface RunAlertsOptions {
  spec: AlertsSpec;
  pipeline: string;
  run: RunFacts;
  /** The tracked domains' ranks of the day (rankRows). */
  movement: readonly MovementRow[];
  /** v_serp_ai_visibility rows of the day (aiVisibilityRows). */
  ai: readonly AiVisibilityRow[];
  reportsDir: string;
  reportPath?: string;
  config: Config;
  warn: (message: string) => void;
  now?: () => Date;
  timeoutMs?: number;
}

export async function raiseAndDeliver(o: RunAlertsOptions): Promise<AlertsOutcome> {
  const box = AlertOutbox.open(outboxPath(o.reportsDir), o.now);
  const alerts = [...runAlerts(o.spec.rules, o.run), ...domainAlerts(o.spec.rules, o.movement, o.run.runId), ...aiAlerts(o.spec.rules, o.ai, o.run.runId)];
  const raised = box.raise(alerts, o.spec.channels.map(channelId));
  const outcome: AlertsOutcome = { raised, delivered: [], failed: [] };
  for (const channel of o.spec.channels) {
    const id = channelId(channel);
    for (const [runId, owed] of box.pending(id)) {
      // The report link is this run's; an older run's owed alerts name no report rather than the wrong one.
      const r = await deliver(channel, { runId, pipeline: o.pipeline, alerts: owed, reportPath: runId === o.run.runId ? o.reportPath : undefined },
        { smtpUrl: o.config.notify.smtp_url, emailFrom: o.config.notify.email_from, timeoutMs: o.timeoutMs });
      if (r.ok) {
        box.markSent(id, runId, owed);
        outcome.delivered.push({ channel: channelShown(channel), runId, alerts: owed.length });
      } else {
        outcome.failed.push({ channel: channelShown(channel), runId, why: r.why });
        o.warn(`${owed.length} alert${owed.length === 1 ? '' : 's'} of run ${runId} not delivered to ${channelShown(channel)} (${r.why}); they are sent after the next run`);
        break; // this channel is down: the other runs' messages wait too, in order
      }
    }
  }
  return outcome;
}
