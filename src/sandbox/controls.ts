/**
 * Test controls, not part of the API: read-outs of calls, postings and charges; fault injection; completion
 * delay; the clock; forced re-parses; reset. In-process on `sandbox.controls`, and over HTTP under /_sandbox/
 * for child-process tests (without credentials from loopback only).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from './context.js';
import type { CallRecord, Charge, ErrorRecord, Posting } from './records.js';
import { checkFaultRules, type Faults, type FaultRule } from './faults.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import type { Webhooks } from './webhooks.js';
import { readBody, sendJson, isLoopback } from './http-io.js';
import { checkBasicAuth } from './auth.js';
import { formatTimestamp } from '../api/envelope.js';
import type { AccountSettings } from './account.js';

export interface TaskSnapshot {
  id: string;
  endpointId: string;
  tag: string | null;
  postedAt: number;
  completeAt: number;
  collectedAt: number | null;
  delivery: string;
  reparsedAt: number | null;
}

export interface SandboxControls {
  /** Every task ever accepted by a task_post endpoint, in order. */
  postings(): Posting[];
  /** Every API call received (controls excluded), in order. */
  calls(): CallRecord[];
  /** Total charged, USD. */
  billed(): number;
  /** Every charge: task posts and paid live calls. */
  charges(): Charge[];
  /** The error log E13 lists (failed pingback and postback deliveries, domain-analytics task errors). */
  errors(): ErrorRecord[];
  tasks(): TaskSnapshot[];
  setFaults(rules: FaultRule[], seed?: number): void;
  faults(): FaultRule[];
  setCompletionDelay(ms: number): void;
  completionDelay(): number;
  clock: { now(): number; advance(ms: number): void };
  /** Re-parses the given tasks (default: every completed re-parsable task) now; returns the ids re-parsed. */
  reparse(ids?: string[]): string[];
  /** Answers with the rate-limit status so far (account limit, sub-limits and injected bursts). */
  rateLimitAnswers(): number;
  /** Resolves when no pingback or postback delivery is in flight (after starting the ones due). */
  settle(): Promise<void>;
  /** Plays the account's answers: funds (balance = funds - charged), daily cost limit (40203), duplicate limits (40205/40206), denied endpoints (40204); null lifts a limit. */
  setAccount(patch: Partial<AccountSettings>): AccountSettings;
  account(): AccountSettings & { balance: number };
  /** Forgets every task, call, charge, error and fault, and restores the configured completion delay and the default account. */
  reset(): void;
}

const ACCOUNT_KEYS: Record<keyof AccountSettings, (v: unknown) => boolean> = {
  funds: (v) => typeof v === 'number' && Number.isFinite(v),
  dailyCostLimit: (v) => v === null || (typeof v === 'number' && v >= 0),
  duplicatesPerHour: (v) => v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
  duplicatesPerDay: (v) => v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
  deniedEndpoints: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  retiredEndpoints: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
};

/** Problems with an account patch from the HTTP controls, naming the key. */
export function checkAccountPatch(b: Record<string, unknown>): string[] {
  return Object.entries(b).flatMap(([k, v]) => (k in ACCOUNT_KEYS ? (ACCOUNT_KEYS[k as keyof AccountSettings](v) ? [] : [`${k}: not a valid value (${JSON.stringify(v)})`]) : [`${k}: not an account setting (${Object.keys(ACCOUNT_KEYS).join(', ')})`]));
}

export function createControls(ctx: SandboxContext, faults: Faults, limiter: SlidingWindowLimiter, webhooks: Webhooks): SandboxControls {
  return {
    postings: () => ctx.records.postings.slice(),
    calls: () => ctx.records.calls.slice(),
    billed: () => ctx.records.billed(),
    charges: () => ctx.records.charges.slice(),
    errors: () => ctx.records.errors.slice(),
    tasks: () => [...ctx.store.all()].map((t) => ({ id: t.id, endpointId: t.postId, tag: t.tag, postedAt: t.postedAt, completeAt: t.completeAt, collectedAt: t.collectedAt, delivery: t.delivery, reparsedAt: t.reparsedAt })),
    setFaults: (rules, seed) => faults.set(rules, seed),
    faults: () => faults.list(),
    setCompletionDelay: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`completion delay must be a number of milliseconds >= 0 (got ${ms})`);
      ctx.settings.completionDelayMs = ms;
    },
    completionDelay: () => ctx.settings.completionDelayMs,
    clock: {
      now: () => ctx.clock.now(),
      advance: (ms) => {
        ctx.clock.advance(ms);
        webhooks.pump();
      },
    },
    reparse: (ids) => {
      const now = ctx.clock.now();
      const targets = ids ?? [...ctx.store.all()].filter((t) => t.postId === 'serp.events.task_post' && now >= t.completeAt).map((t) => t.id);
      const missing = new Set(ctx.store.reparse(targets, now));
      return targets.filter((id) => !missing.has(id));
    },
    rateLimitAnswers: () => ctx.records.rateLimitAnswers,
    settle: async () => {
      webhooks.pump();
      await webhooks.idle();
    },
    setAccount: (patch) => ctx.account.set(patch),
    account: () => ({ ...ctx.account.settings, balance: ctx.account.balance() }),
    reset: () => {
      ctx.account.reset();
      ctx.store.clear();
      ctx.records.clear();
      faults.set([]);
      limiter.reset();
      ctx.settings.completionDelayMs = ctx.config.sandbox.completion_delay_ms;
    },
  };
}

/** The same controls over HTTP. Answers plain JSON (not the API envelope), and 400 naming the problem. */
export async function handleControlRequest(req: IncomingMessage, res: ServerResponse, path: string, controls: SandboxControls, ctx: SandboxContext): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress) && !checkBasicAuth(req.headers.authorization, ctx.config.sandbox.login, ctx.config.sandbox.password).ok) {
    return sendJson(res, 401, JSON.stringify({ error: 'sandbox controls need credentials when called from outside loopback' }));
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const name = path.slice('/_sandbox/'.length).replace(/\/+$/, '');
  const ok = (value: unknown) => sendJson(res, 200, JSON.stringify(value));
  const bad = (problem: string, status = 400) => sendJson(res, status, JSON.stringify({ error: problem }));
  let body: Record<string, unknown> | unknown[] = {};
  if (method === 'POST') {
    const raw = await readBody(req);
    if (!raw.ok) return bad(raw.problem);
    if (raw.text.trim()) {
      try {
        body = JSON.parse(raw.text);
      } catch (e) {
        return bad(`body is not valid JSON (${(e as Error).message})`);
      }
      if (body === null || typeof body !== 'object') return bad('body must be a JSON object');
    }
  }
  const b = body as Record<string, unknown>;
  const key = `${method} ${name}`;
  switch (key) {
    case 'GET postings': return ok(controls.postings());
    case 'GET calls': return ok(controls.calls());
    case 'GET billed': return ok({ billed: controls.billed() });
    case 'GET charges': return ok(controls.charges());
    case 'GET errors': return ok(controls.errors());
    case 'GET tasks': return ok(controls.tasks());
    case 'GET faults': return ok(controls.faults());
    case 'GET rate-limit-answers': return ok({ count: controls.rateLimitAnswers() });
    case 'GET completion-delay': return ok({ ms: controls.completionDelay() });
    case 'GET account': return ok(controls.account());
    case 'POST account': {
      const problems = checkAccountPatch(b);
      if (problems.length) return bad(problems.join('; '));
      controls.setAccount(b as Partial<AccountSettings>);
      return ok(controls.account());
    }
    case 'GET clock': return ok({ now: controls.clock.now(), timestamp: formatTimestamp(new Date(controls.clock.now())) });
    case 'POST faults': {
      const rules = Array.isArray(body) ? body : b.rules;
      const problems = checkFaultRules(rules);
      if (problems.length) return bad(problems.join('; '));
      if (b.seed !== undefined && (typeof b.seed !== 'number' || !Number.isInteger(b.seed))) return bad('seed: must be an integer');
      controls.setFaults(rules as FaultRule[], b.seed as number | undefined);
      return ok({ faults: controls.faults() });
    }
    case 'POST clock': {
      const ms = b.advance_ms;
      if (typeof ms !== 'number' || !Number.isFinite(ms)) return bad('advance_ms: must be a number of milliseconds');
      controls.clock.advance(ms);
      return ok({ now: controls.clock.now(), timestamp: formatTimestamp(new Date(controls.clock.now())) });
    }
    case 'POST completion-delay': {
      const ms = b.ms;
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return bad('ms: must be a number of milliseconds >= 0');
      controls.setCompletionDelay(ms);
      return ok({ ms });
    }
    case 'POST reparse': {
      const ids = b.ids;
      if (ids !== undefined && (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string'))) return bad('ids: must be an array of task ids');
      return ok({ reparsed: controls.reparse(ids as string[] | undefined) });
    }
    case 'POST settle':
      await controls.settle();
      return ok({ settled: true });
    case 'POST reset':
      controls.reset();
      return ok({ reset: true });
    default:
      return bad(`no control ${method} /_sandbox/${name}; see docs/sandbox.md`, 404);
  }
}
