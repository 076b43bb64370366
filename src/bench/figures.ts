/**
 * The benchmark's figures and how they are shown: `bench/results.json` maps each name to
 * `{ value, unit, goal, how }`, and the same figures print as a table.
 */

export interface Figure {
  value: number;
  unit: string;
  /** The goal as the issue states it, or `informational`. */
  goal: string;
  /** What was measured, on what, and the numbers behind the value. */
  how: string;
}

export type Figures = Record<string, Figure>;

/** The result families measured at full size (src/bench/families.ts). */
export const FAMILY_NAMES = ['keywords_legacy', 'keywords_ads', 'keywords_for_keywords', 'merchant', 'serp_organic', 'serp_organic_d10', 'serp_organic_d100', 'keywords_ads_search_volume', 'labs_ranked_keywords', 'backlinks', 'events'] as const;

/** Every figure `make bench` must produce (the list); sections may add informational ones. */
export const REQUIRED_FIGURES = [
  'limiter_utilization',
  'rate_limit_answers',
  'calls_per_task_polling',
  'calls_per_task_postback',
  'postback_results_per_s',
  'load_vs_duckdb',
  'rows_per_s',
  'peak_rss_mb_small',
  'peak_rss_mb_large',
  'scaling',
  'sandbox_requests_per_s',
  ...FAMILY_NAMES.flatMap((f) => [`headroom_${f}`, `peak_rss_mb_${f}`, `peak_rss_growth_${f}`]),
  'rows_per_cpu_s_vs_duckdb_serp_organic',
  'rows_per_cpu_s_vs_duckdb_keywords_for_keywords',
  'rows_per_cpu_s_vs_duckdb_labs_ranked_keywords',
  'rows_per_cpu_s_vs_duckdb_backlinks',
  'bench_wall_s',
] as const;

/** Rounds to `digits` decimals (figures are read by people; four decimals is the finest any goal needs). */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

const goalPattern = /^(<=|>=|<|>|=)\s*([\d.,]+)/;

/**
 * Whether a value meets a goal written `<= 1.25`, `>= 1,000 ...`, `= 0` and the like (a comparison and a number
 * first); undefined for goals in words (`close to 10`, `informational`).
 */
export function meetsGoal(value: number, goal: string): boolean | undefined {
  const m = goalPattern.exec(goal.trim());
  if (!m) return undefined;
  const bound = Number(m[2].replace(/,/g, ''));
  switch (m[1]) {
    case '<=': return value <= bound;
    case '>=': return value >= bound;
    case '<': return value < bound;
    case '>': return value > bound;
    default: return value === bound;
  }
}

/** A plain-text table of the figures: name, value, unit, goal and whether it is met. */
export function formatTable(figures: Figures): string {
  const rows = Object.entries(figures).map(([name, f]) => {
    const met = meetsGoal(f.value, f.goal);
    return [name, formatValue(f.value), f.unit, f.goal, met === undefined ? '' : met ? 'yes' : 'NO'];
  });
  const head = ['figure', 'value', 'unit', 'goal', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return String(v);
}

/** The problems that make a figure unusable: missing, non-finite value, empty unit, goal or how. */
export function figureProblems(name: string, f: Partial<Figure> | undefined): string[] {
  if (!f) return [`${name}: missing`];
  const out: string[] = [];
  if (typeof f.value !== 'number' || !Number.isFinite(f.value)) out.push(`${name}.value: must be a finite number (got ${String(f.value)})`);
  for (const k of ['unit', 'goal', 'how'] as const) if (typeof f[k] !== 'string' || !f[k]!.trim()) out.push(`${name}.${k}: must be non-empty text`);
  return out;
}
