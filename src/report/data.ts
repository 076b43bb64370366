/**
 * What a run report shows, read from the curated views of the published warehouse (src/publish/views*.ts): each
 * query selects from one view, filtered to the run and its window of days; no figure is computed twice.
 */
import { clientRanks, trackedDomain, type Tracked } from './tracked.js';
import { readFamilySections, type FamilySection } from './families.js';
import { LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

export type Row = Record<string, unknown>;
export type Query = (sql: string, params?: unknown[]) => Promise<Row[]>;

export function queryOf(conn: DuckDBConnection): Query {
  return async (sql, params = []) => {
    // Lists of text (domains, keywords) are bound as VARCHAR[]: DuckDB cannot infer an empty or untyped list.
    const values = params.map((p) => (Array.isArray(p) ? listValue(p.map(String)) : p)) as DuckDBValue[];
    const types = params.map((p) => (Array.isArray(p) ? LIST(VARCHAR) : undefined)) as DuckDBType[];
    const r = await conn.runAndReadAll(sql, values, types);
    return (r.getRowObjectsJS() as Row[]).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
  };
}

export interface RunFacts {
  runId: string; pipeline: string; runDate: string; status: string; attempts: number; durationSeconds: number | null;
  tasks: number; loaded: number; failed: number; unfinished: number; spentUsd: number; budgetUsd: number | null; budgetUsedPct: number | null; note: string | null;
}
export interface StepFacts { step: string; endpointId: string; tasks: number; loaded: number; failed: number; unfinished: number; spentUsd: number }
export interface Failure { code: number | null; message: string | null; step: string; count: number }
export interface Mover { keyword: string; locationCode: number | null; device: string; domain: string; previous: number | null; position: number | null; change: number; movement: string; tracked: boolean }
/** One small multiple: a keyword in one location on one device, a line per domain. */
export interface RankPanel { keyword: string; locationCode: number | null; device: string; lines: { domain: string; positions: (number | null)[] }[] }
export interface FeaturePanel { keyword: string; types: { itemType: string; shares: (number | null)[] }[] }

export interface ReportData {
  run: RunFacts;
  days: number;
  /** The window's days, oldest first (YYYY-MM-DD), ending on the run's day. */
  dates: string[];
  history: { runDate: string; spentUsd: number; budgetUsd: number | null; status: string }[];
  steps: StepFacts[];
  calls: { minute: string; calls: number }[];
  rateLimitPerMinute: number;
  rows: { table: string; rows: number }[];
  failures: Failure[];
  serp?: {
    domains: string[]; trackedFromPipeline: boolean; panels: RankPanel[]; moversDate: string | null; up: Mover[]; down: Mover[];
    /** The tracked domains' own moves that day, largest first (none without tracked domains). */
    trackedMoves: Mover[];
    features: FeaturePanel[];
  };
  keywords?: { months: string[]; series: { keyword: string; volumes: (number | null)[] }[] };
  /** AI Overview presence on the targets' tracked pages and their citations, per day (v_serp_ai_visibility). */
  ai?: {
    /** Percent of the tracked pages of each day that showed an AI Overview. */
    shown: (number | null)[];
    /** Per tracked domain: percent of the tracked pages of each day whose AI Overview cited it. */
    cited: { domain: string; shares: (number | null)[] }[];
    /** Citations gained or lost on the run's latest day in the view. */
    changes: { target: string; domain: string; keyword: string; locationCode: number | null; device: string; change: string; position: number | null }[];
    changesDate: string | null;
  };
  /** A section per family of the registry that declares one and was collected (Labs, Backlinks): src/report/families.ts. */
  families: FamilySection[];
}

export interface ReadOptions {
  runId: string;
  days: number;
  /** What the pipeline tracks (trackedOf): their ranks as v_serp_tracked_ranks has them. Without it the report
   *  shows each keyword's best domains. */
  tracked?: Tracked;
  /** The pipeline's SERP keywords, when known: the SERP section keeps to them. */
  serpKeywords?: readonly string[];
  rateLimitPerMinute: number;
  /** The pipeline's targets (`targets:`), when known: the AI section keeps to them (else every target). */
  targets?: readonly string[];
}

const MAX_PANELS = 24;
/** Domains a keyword's panels show when no domain is tracked. */
const PER_KEYWORD = 3;
const MOVERS = 10;

const day = (d: unknown) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function windowDates(runDate: string, days: number): string[] {
  const end = Date.parse(`${runDate}T00:00:00Z`);
  return Array.from({ length: days }, (_, i) => new Date(end - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export class RunNotFound extends Error {}

/** The run's row of v_runs. */
export async function readRunFacts(query: Query, runId: string): Promise<RunFacts> {
  const [r] = await query(`SELECT * FROM v_runs WHERE run_id = $1`, [runId]);
  if (!r) throw new RunNotFound(`no run ${runId} in the warehouse`);
  return {
    runId, pipeline: String(r.pipeline), runDate: day(r.run_date), status: String(r.status), attempts: Number(r.attempts), durationSeconds: num(r.duration_seconds),
    tasks: Number(r.tasks), loaded: Number(r.tasks_loaded), failed: Number(r.tasks_failed), unfinished: Number(r.tasks_unfinished),
    spentUsd: Number(r.spent_usd), budgetUsd: num(r.budget_usd), budgetUsedPct: num(r.budget_used_pct), note: (r.note as string | null) ?? null,
  };
}

export async function readReportData(query: Query, o: ReadOptions): Promise<ReportData> {
  const run = await readRunFacts(query, o.runId);
  const dates = windowDates(run.runDate, o.days);
  const from = dates[0];
  const history = (await query(`SELECT run_date, spent_usd, budget_usd, status FROM v_runs WHERE pipeline = $1 AND run_date BETWEEN $2::DATE AND $3::DATE ORDER BY run_date`, [run.pipeline, from, run.runDate]))
    .map((h) => ({ runDate: day(h.run_date), spentUsd: Number(h.spent_usd), budgetUsd: num(h.budget_usd), status: String(h.status) }));
  const steps = (await query(`SELECT * FROM v_run_steps WHERE run_id = $1 ORDER BY step_index`, [o.runId]))
    .map((s) => ({ step: String(s.step), endpointId: String(s.endpoint_id), tasks: Number(s.tasks), loaded: Number(s.tasks_loaded), failed: Number(s.tasks_failed), unfinished: Number(s.tasks_unfinished), spentUsd: Number(s.spent_usd) }));
  const calls = (await query(`SELECT strftime(minute, '%H:%M') AS minute, calls FROM v_run_calls WHERE run_id = $1 ORDER BY v_run_calls.minute`, [o.runId]))
    .map((c) => ({ minute: String(c.minute), calls: Number(c.calls) }));
  const rows = (await query(`SELECT parent_table, sum(rows)::BIGINT AS rows FROM v_run_rows WHERE run_id = $1 GROUP BY parent_table ORDER BY parent_table`, [o.runId]))
    .map((x) => ({ table: String(x.parent_table), rows: Number(x.rows) }));
  const failures = (await query(`SELECT error_code, error_message, step, count(*)::INT AS n FROM v_failed_tasks WHERE run_id = $1 GROUP BY ALL ORDER BY n DESC, error_code`, [o.runId]))
    .map((f) => ({ code: num(f.error_code), message: (f.error_message as string | null) ?? null, step: String(f.step), count: Number(f.n) }));
  return {
    run, days: o.days, dates, history, steps, calls, rateLimitPerMinute: o.rateLimitPerMinute, rows, failures,
    serp: await readSerp(query, o, dates),
    keywords: await readKeywords(query, o.runId, run.runDate),
    ai: await readAi(query, dates, o.targets),
    families: await readFamilySections(query, o.runId, dates),
  };
}

async function readAi(query: Query, dates: string[], targets?: readonly string[]): Promise<ReportData['ai']> {
  const filter = targets?.length ? ' AND list_contains($3::VARCHAR[], target)' : '';
  const params = [dates[0], dates[dates.length - 1], ...(targets?.length ? [targets] : [])];
  const rows = await query(
    `SELECT CAST(date AS VARCHAR) AS date, tracked_domain, count(*)::INT AS pages, count(*) FILTER (WHERE ai_overview_shown)::INT AS shown, count(*) FILTER (WHERE cited)::INT AS cited
     FROM v_serp_ai_visibility WHERE date BETWEEN $1::DATE AND $2::DATE${filter} GROUP BY ALL ORDER BY tracked_domain, date`, params);
  if (!rows.length) return undefined;
  const at = (d: string) => dates.indexOf(d);
  const shown: (number | null)[] = dates.map(() => null);
  const cited = new Map<string, (number | null)[]>();
  for (const r of rows) {
    const i = at(String(r.date));
    if (i < 0) continue;
    const pages = Number(r.pages);
    // Every tracked domain sees the same pages of its target: the overview's share is the same on each row.
    shown[i] = Math.round((1000 * Number(r.shown)) / pages) / 10;
    const domain = String(r.tracked_domain);
    if (!cited.has(domain)) cited.set(domain, dates.map(() => null));
    cited.get(domain)![i] = Math.round((1000 * Number(r.cited)) / pages) / 10;
  }
  const [latest] = await query(`SELECT CAST(max(date) AS VARCHAR) AS d FROM v_serp_ai_visibility WHERE date BETWEEN $1::DATE AND $2::DATE${filter}`, params);
  const changesDate = (latest?.d as string | null) ?? null;
  const changes = changesDate === null ? [] : (await query(
    `SELECT target, tracked_domain, keyword, location_code, device, citation_change, citation_position FROM v_serp_ai_visibility
     WHERE date BETWEEN $1::DATE AND $2::DATE${filter} AND date = $${targets?.length ? 4 : 3}::DATE AND citation_change IN ('gained', 'lost')
     ORDER BY citation_change, keyword, location_code, device, tracked_domain`, [...params, changesDate]))
    .map((c) => ({ target: String(c.target), domain: String(c.tracked_domain), keyword: String(c.keyword), locationCode: num(c.location_code), device: String(c.device), change: String(c.citation_change), position: num(c.citation_position) }));
  return { shown, cited: [...cited.entries()].map(([domain, shares]) => ({ domain, shares })), changes, changesDate };
}

async function readSerp(query: Query, o: ReadOptions, dates: string[]): Promise<ReportData['serp']> {
  const from = dates[0];
  const to = dates[dates.length - 1];
  const kw = o.serpKeywords?.length ? o.serpKeywords : undefined;
  const kwFilter = kw ? ` AND list_contains($3::VARCHAR[], keyword)` : '';
  const params = (extra: unknown[] = []) => [from, to, ...(kw ? [kw] : []), ...extra];
  const next = kw ? 4 : 3;
  const tracked = o.tracked?.domains.length ? o.tracked : undefined;
  const trackedFromPipeline = tracked !== undefined;
  const panels = new Map<string, RankPanel>();
  const line = (keyword: unknown, location: unknown, device: unknown, domain: unknown) => {
    const key = `${keyword}|${location}|${device}`;
    let p = panels.get(key);
    if (!p) panels.set(key, (p = { keyword: String(keyword), locationCode: num(location), device: String(device), lines: [] }));
    let l = p.lines.find((x) => x.domain === domain);
    if (!l) p.lines.push((l = { domain: String(domain), positions: dates.map(() => null) }));
    return l;
  };
  let domains: string[];
  if (tracked) {
    // The client's rank per day, as v_serp_tracked_ranks has it (its subdomains counted in): one line per tracked domain.
    domains = tracked.domains;
    const ranks = clientRanks(tracked, next);
    const rows = await query(
      `SELECT keyword, location_code, device, CAST(date AS VARCHAR) AS date, tracked_domain AS domain, min(position)::INT AS position
       FROM ${ranks.from} WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter}
       GROUP BY ALL ORDER BY keyword, location_code, device, domain`, [...params(), ...ranks.params]);
    for (const h of rows) {
      const l = line(h.keyword, h.location_code, h.device, h.domain);
      const i = dates.indexOf(String(h.date));
      if (i >= 0) l.positions[i] = num(h.position);
    }
    // A series where no tracked domain ranked in the window draws nothing: no panel for it.
    for (const [key, p] of panels) {
      p.lines = p.lines.filter((l) => l.positions.some((x) => x !== null));
      if (!p.lines.length) panels.delete(key);
    }
  } else {
    // Without tracked domains, each keyword's panels show its three best domains of the window.
    const shown = new Map<string, Set<string>>();
    for (const d of await query(`SELECT keyword, domain FROM v_serp_rank_history WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter}
        GROUP BY keyword, domain QUALIFY row_number() OVER (PARTITION BY keyword ORDER BY avg(best_position), domain) <= ${PER_KEYWORD} ORDER BY keyword`, params())) {
      shown.set(String(d.keyword), (shown.get(String(d.keyword)) ?? new Set()).add(String(d.domain)));
    }
    domains = [...new Set([...shown.values()].flatMap((x) => [...x]))];
    if (!domains.length) return undefined;
    const history = (await query(
      `SELECT keyword, location_code, device, CAST(date AS VARCHAR) AS date, domain, min(best_position)::INT AS position
       FROM v_serp_rank_history WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter} AND list_contains($${next}::VARCHAR[], domain)
       GROUP BY ALL ORDER BY keyword, location_code, device, domain`, params([domains])))
      .filter((h) => shown.get(String(h.keyword))?.has(String(h.domain)));
    for (const h of history) {
      const l = line(h.keyword, h.location_code, h.device, h.domain);
      const i = dates.indexOf(String(h.date));
      if (i >= 0) l.positions[i] = Number(h.position);
    }
  }
  if (!panels.size && !trackedFromPipeline) return undefined;

  // Movers: the latest day of the window the movement view has, every host; those counting for a tracked domain are marked.
  const [latest] = await query(`SELECT CAST(max(date) AS VARCHAR) AS d FROM v_serp_domain_movement WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter} AND movement IN ('up', 'down')`, params());
  const moversDate = (latest?.d as string | null) ?? null;
  const mover = (m: Record<string, unknown>): Mover => ({ keyword: String(m.keyword), locationCode: num(m.location_code), device: String(m.device), domain: String(m.domain), previous: num(m.previous_position), position: num(m.position), change: Number(m.change), movement: String(m.movement), tracked: Boolean(m.tracked) });
  const movers = async (order: 'DESC' | 'ASC') => moversDate === null ? [] : (await query(
    `SELECT keyword, location_code, device, domain, previous_position, position, change, movement, ${trackedFromPipeline ? trackedDomain('domain', next + 1) : 'false'} AS tracked
     FROM v_serp_domain_movement
     WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter} AND date = $${next}::DATE AND movement = '${order === 'DESC' ? 'up' : 'down'}'
     ORDER BY change ${order}, keyword, domain, device, location_code LIMIT ${MOVERS}`, params(trackedFromPipeline ? [moversDate, domains] : [moversDate]))).map(mover);
  // The tracked domains' own moves that day: their rank as the tracked-ranks view has it, not a host's.
  const trackedMoves = async () => {
    if (!tracked || moversDate === null) return [];
    const ranks = clientRanks(tracked, next + 1);
    return (await query(
      `SELECT DISTINCT keyword, location_code, device, tracked_domain AS domain, previous_position, position, change, movement, true AS tracked
       FROM ${ranks.from} WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter} AND date = $${next}::DATE AND movement IN ('up', 'down')
       ORDER BY abs(change) DESC, change DESC, keyword, domain, device, location_code LIMIT ${MOVERS}`, [...params([moversDate]), ...ranks.params])).map(mover);
  };

  const shares = await query(
    `SELECT keyword, item_type, CAST(date AS VARCHAR) AS date, round(100.0 * sum(pages_with_feature) / sum(pages), 1) AS share
     FROM v_serp_features_daily WHERE date BETWEEN $1::DATE AND $2::DATE${kwFilter} AND item_type <> 'organic'
     GROUP BY ALL ORDER BY keyword, item_type`, params());
  const features = new Map<string, FeaturePanel>();
  for (const s of shares) {
    let p = features.get(String(s.keyword));
    if (!p) features.set(String(s.keyword), (p = { keyword: String(s.keyword), types: [] }));
    let t = p.types.find((x) => x.itemType === s.item_type);
    if (!t) p.types.push((t = { itemType: String(s.item_type), shares: dates.map(() => null) }));
    const i = dates.indexOf(String(s.date));
    if (i >= 0) t.shares[i] = Number(s.share);
  }
  return {
    domains, trackedFromPipeline, panels: [...panels.values()].slice(0, MAX_PANELS), moversDate, up: await movers('DESC'), down: await movers('ASC'),
    trackedMoves: await trackedMoves(), features: [...features.values()].slice(0, 6),
  };
}

/** Seed keywords: those the run asked search volumes for (the search_volume function), else its largest. */
async function readKeywords(query: Query, runId: string, runDate: string): Promise<ReportData['keywords']> {
  const picked = await query(
    `SELECT keyword, max(search_volume) AS v, bool_or(function = 'search_volume') AS seed FROM v_keyword_competition WHERE run_id = $1 AND keyword IS NOT NULL
     GROUP BY keyword ORDER BY seed DESC, v DESC NULLS LAST, keyword LIMIT 8`, [runId]);
  const seeds = picked.some((p) => p.seed) ? picked.filter((p) => p.seed) : picked;
  if (!seeds.length) return undefined;
  const names = seeds.map((s) => String(s.keyword));
  const rows = await query(
    `SELECT keyword, strftime(month, '%Y-%m') AS month, max(search_volume)::BIGINT AS volume FROM v_keyword_trends
     WHERE list_contains($1::VARCHAR[], keyword) AND month <= $2::DATE GROUP BY ALL ORDER BY month`, [names, runDate]);
  const months = [...new Set(rows.map((r) => String(r.month)))].sort().slice(-24);
  if (!months.length) return undefined;
  return {
    months,
    series: names.map((k) => ({ keyword: k, volumes: months.map((m) => num(rows.find((r) => r.keyword === k && r.month === m)?.volume)) })).filter((s) => s.volumes.some((v) => v !== null)),
  };
}
