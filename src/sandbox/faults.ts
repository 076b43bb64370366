/**
 * Fault injection for tests and benchmarks, apart from the API: per path prefix, a share of calls answers HTTP
 * 500, is slowed, has its connection dropped, gets a malformed JSON body or task-level 50000s, and a burst of
 * calls can be answered with the rate-limit status. Draws come from a seeded generator so runs repeat.
 */
import { Rng } from './data/prng.js';

export interface FaultRule {
  /** Path prefix the rule applies to (e.g. `/v3/serp/`), or `*` for every API path. */
  path: string;
  /** Share (0..1) of calls answered with HTTP 500 before anything is done. */
  http500?: number;
  /** Share of calls delayed by `slowMs` before they are handled. */
  slow?: number;
  slowMs?: number;
  /** Share of calls whose connection is destroyed before anything is done. */
  drop?: number;
  /** Share of calls handled in full (tasks created, billed) whose connection is then destroyed without an answer. */
  dropAfter?: number;
  /** Share of calls handled in full whose answer is cut to invalid JSON. */
  malformed?: number;
  /** Share of tasks (per task, not per call) answered with task-level 50000 instead of being handled. */
  task50000?: number;
  /** The next N matching calls are answered with 40202, as a burst of rate-limit answers. */
  rateLimitBurst?: number;
}

export interface FaultDecision {
  http500: boolean;
  drop: boolean;
  dropAfter: boolean;
  malformed: boolean;
  slowMs: number;
  rateLimited: boolean;
  /** Per-task draw for task-level 50000. */
  task50000: () => boolean;
}

const NONE: FaultDecision = { http500: false, drop: false, dropAfter: false, malformed: false, slowMs: 0, rateLimited: false, task50000: () => false };

export const DEFAULT_FAULT_SEED = 12345;

export function checkFaultRules(rules: unknown): string[] {
  if (!Array.isArray(rules)) return ['faults: must be an array of rules'];
  const problems: string[] = [];
  const shares = ['http500', 'slow', 'drop', 'dropAfter', 'malformed', 'task50000'] as const;
  rules.forEach((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) return problems.push(`faults[${i}]: must be an object`);
    const rule = r as Record<string, unknown>;
    if (typeof rule.path !== 'string' || !(rule.path === '*' || rule.path.startsWith('/'))) problems.push(`faults[${i}].path: must be "*" or a path prefix starting with /`);
    for (const s of shares) {
      const v = rule[s];
      if (v !== undefined && (typeof v !== 'number' || v < 0 || v > 1)) problems.push(`faults[${i}].${s}: must be a share from 0 to 1`);
    }
    for (const n of ['slowMs', 'rateLimitBurst'] as const) {
      const v = rule[n];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) problems.push(`faults[${i}].${n}: must be a whole number`);
    }
    const known = new Set<string>(['path', ...shares, 'slowMs', 'rateLimitBurst']);
    for (const k of Object.keys(rule)) if (!known.has(k)) problems.push(`faults[${i}].${k}: unknown fault (known: ${[...known].join(', ')})`);
    return undefined;
  });
  return problems;
}

export class Faults {
  private rules: (FaultRule & { burstLeft: number })[] = [];
  private rng = new Rng(DEFAULT_FAULT_SEED);

  set(rules: FaultRule[], seed = DEFAULT_FAULT_SEED): void {
    const problems = checkFaultRules(rules);
    if (problems.length) throw new Error(problems.join('; '));
    this.rules = rules.map((r) => ({ ...r, burstLeft: r.rateLimitBurst ?? 0 }));
    this.rng = new Rng(seed);
  }

  list(): FaultRule[] {
    return this.rules.map(({ burstLeft, ...r }) => ({ ...r, rateLimitBurst: burstLeft }));
  }

  /** What happens to a call on `path`. Every matching rule draws, in order, so the sequence is repeatable. */
  decide(path: string): FaultDecision {
    if (this.rules.length === 0) return NONE;
    let d: FaultDecision | null = null;
    for (const r of this.rules) {
      if (r.path !== '*' && !path.startsWith(r.path)) continue;
      d ??= { ...NONE };
      if (r.burstLeft > 0) {
        r.burstLeft--;
        d.rateLimited = true;
      }
      if (r.http500 && this.rng.next() < r.http500) d.http500 = true;
      if (r.drop && this.rng.next() < r.drop) d.drop = true;
      if (r.dropAfter && this.rng.next() < r.dropAfter) d.dropAfter = true;
      if (r.malformed && this.rng.next() < r.malformed) d.malformed = true;
      if (r.slow && this.rng.next() < r.slow) d.slowMs = Math.max(d.slowMs, r.slowMs ?? 1000);
      if (r.task50000) {
        const share = r.task50000;
        const prev = d.task50000;
        d.task50000 = () => prev() || this.rng.next() < share;
      }
    }
    return d ?? NONE;
  }
}
