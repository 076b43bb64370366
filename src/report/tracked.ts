/**
 * What the report and the alerts track, and the client's rank they read for it: the rows of v_serp_tracked_ranks
 * (one rule, src/families/serp/tracked.ts: a subdomain counts for its domain, the best of them is the rank), never
 * a host apart. With `alerts.domains` written, the same view SQL runs over those domains and the pipeline's SERP tasks.
 */
import type { Pipeline } from '../pipeline/index.js';
import { normalizeDomain } from '../pipeline/alerts.js';
import { trackedRanksSelect } from '../families/serp/views.js';
import { countsForAny } from '../families/serp/tracked.js';

export interface Tracked {
  /** Tracked domains, lower-case without `www.`: the targets' or `alerts.domains`. */
  domains: string[];
  /** The targets whose rows of v_serp_tracked_ranks are the ranks; absent when `alerts.domains` names the domains. */
  targets?: string[];
  /** The pipeline: with `alerts.domains`, the SERP tasks of its runs are the ones ranked. */
  pipeline: string;
}

/** The domains a pipeline tracks: `alerts.domains` when written, else its targets' (then read from the view). */
export function trackedOf(p: Pipeline): Tracked | undefined {
  if (p.alerts?.ownDomains) return { domains: p.alerts.domains, pipeline: p.name };
  const domains = [...new Set(p.targets.flatMap((t) => t.domains.map(normalizeDomain)))];
  return domains.length ? { domains, targets: p.targets.map((t) => t.name), pipeline: p.name } : undefined;
}

/**
 * A FROM item `ranks` with the columns of v_serp_tracked_ranks for what `t` tracks; its parameters are bound from
 * `$n` on (`params`, to append after the caller's).
 */
export function clientRanks(t: Tracked, n: number): { from: string; params: unknown[] } {
  if (t.targets) return { from: `(SELECT * FROM v_serp_tracked_ranks WHERE list_contains($${n}::VARCHAR[], target)) AS ranks`, params: [t.targets] };
  // Every SERP task of the pipeline's runs, ranked for each listed domain as the view ranks a target's.
  const tracked = `
    SELECT DISTINCT t.run_id, t.service_id AS task_id, CAST(NULL AS VARCHAR) AS target, d.domain AS tracked_domain
    FROM _tasks t JOIN _runs r ON r.run_id = t.run_id CROSS JOIN unnest($${n}::VARCHAR[]) AS d(domain)
    WHERE t.service_id IS NOT NULL AND starts_with(t.endpoint_id, 'serp.') AND r.pipeline = $${n + 1}`;
  return { from: `(${trackedRanksSelect(tracked)}) AS ranks`, params: [t.domains, t.pipeline] };
}

/** SQL: the host column `col` counts for one of the tracked domains bound as list parameter `$n`. */
export const trackedDomain = (col: string, n: number) => countsForAny(col, n);
