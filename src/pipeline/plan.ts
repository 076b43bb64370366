/**
 * The dry run: tasks per step, the API calls they take, what they cost by the configured price table (the same
 * taskPrice the sandbox bills with) and the shortest time the account's rate limit allows. Spends nothing.
 */
import { serviceOf } from '../config/service.js';
import { endpoint, findEndpoint } from '../api/catalog.js';
import { type EndpointKind } from '../catalog/endpoint.js';
import { isUnpriced } from '../api/pricing.js';
import type { Config } from '../config/index.js';
import { PipelineError } from './errors.js';
import { resolveAndBuild, type ExpandOptions } from './expand.js';
import type { CollectMode, Pipeline, PipelineStep, PlannedTask } from './types.js';

export interface StepPlan {
  index: number;
  step: string;
  endpointId: string;
  kind: EndpointKind;
  collect: CollectMode;
  tasks: PlannedTask[];
  /** Combinations equal to an earlier task of this step or of an earlier step, dropped. */
  duplicates: number;
  /** The tracked target the step names (`target:`). */
  target?: string;
  /** Tasks equal to an earlier step's: posted once, by that step, and tracked for this step's target too. */
  shared?: SharedTasks[];
  /** Fed by SQL: its tasks are known only once earlier steps have loaded. */
  deferred: boolean;
  /** For a deferred step: how (or whether) its tasks were counted for this plan. */
  deferredNote?: string;
  /** The step's own budget_usd, if it has one. */
  budgetUsd?: number;
}

/** Tasks a step asks for that an earlier step already planned, by that step. */
export interface SharedTasks {
  /** The earlier step that posts them. */
  step: string;
  /** Its tracked target, when it names one. */
  target?: string;
  tasks: number;
}

export interface Plan {
  pipeline: string;
  file: string;
  runId: string;
  budgetUsd: number;
  /** How often the pipeline runs (`schedule:`, or plan's --schedule). */
  schedule?: Schedule;
  steps: StepPlan[];
}

export interface PlanOptions extends ExpandOptions {}

/**
 * Expands every step. A SQL-fed step is counted from the warehouse as it is now when a query function is given
 * and its query runs; otherwise it is left at zero tasks and marked deferred. Broken rules throw PipelineError.
 */
export async function planPipeline(pipeline: Pipeline, opts: PlanOptions): Promise<Plan> {
  const steps: StepPlan[] = [];
  const issues = [];
  // Each planned key and the step that plans it first.
  const seen = new Map<string, PipelineStep>();
  for (const step of pipeline.steps) {
    const base = {
      index: step.index, step: step.name, endpointId: step.endpointId, kind: step.kind, collect: step.collect, deferred: step.deferred,
      ...(step.target !== undefined ? { target: step.target } : {}), ...(step.budgetUsd !== undefined ? { budgetUsd: step.budgetUsd } : {}),
    };
    if (step.deferred && !opts.query) {
      steps.push({ ...base, tasks: [], duplicates: 0, deferredNote: 'reads SQL: expanded at run time, after earlier steps load (not counted)' });
      continue;
    }
    const built = await resolveAndBuild(pipeline, step, opts);
    if (built.queryFailed) {
      steps.push({ ...base, tasks: [], duplicates: 0, deferredNote: `reads SQL: expanded at run time (its query cannot run on the warehouse yet: ${built.issues[0]?.rule ?? 'failed'}; not counted)` });
      continue;
    }
    for (const i of built.issues) issues.push(i);
    // A task equal to one of an earlier step is posted once, by that step (the ledger keys tasks by run and key).
    // The later step's targets still get the task's rows (the ledger's _shared_tasks): the plan says which step posts it.
    const fresh = built.tasks.filter((t) => !seen.has(t.key));
    const shared = new Map<PipelineStep, number>();
    for (const t of built.tasks) {
      const owner = seen.get(t.key);
      if (owner && owner !== step) shared.set(owner, (shared.get(owner) ?? 0) + 1);
    }
    for (const t of fresh) seen.set(t.key, step);
    steps.push({
      ...base,
      tasks: fresh,
      duplicates: built.duplicates + built.tasks.length - fresh.length,
      ...(shared.size ? { shared: [...shared].map(([o, tasks]) => ({ step: o.name, ...(o.target !== undefined ? { target: o.target } : {}), tasks })) } : {}),
      ...(step.deferred ? { deferredNote: 'reads SQL: counted from the warehouse as it is now; the run re-reads it after earlier steps load' } : {}),
    });
  }
  if (issues.length) throw new PipelineError(issues);
  return { pipeline: pipeline.name, file: pipeline.file, runId: opts.runId, budgetUsd: pipeline.budgetUsd, ...(pipeline.schedule ? { schedule: pipeline.schedule } : {}), steps };
}

export interface CallCounts {
  /** POSTs to task_post endpoints: ceil(tasks / per-POST cap). */
  posts: number;
  /** tasks_ready calls (collect: tasks_ready), at least one per 1000 ready tasks. */
  readyPolls: number;
  /** task_get calls: one per task for tasks_ready and pingback; none for postback. */
  taskGets: number;
  /** Live calls, one per page. */
  live: number;
  /** List calls (serp.endpoints, locations, errors, tasks_fixed), one per page. */
  list: number;
  total: number;
}

export interface StepEstimate {
  index: number;
  step: string;
  endpointId: string;
  kind: EndpointKind;
  collect: CollectMode;
  tasks: number;
  /** Tasks in one POST: config api.tasks_per_post capped by the endpoint's own limit (task_post only). */
  perPost?: number;
  /** Pages a paged live or list step fetches at most, over all its tasks. */
  pages?: number;
  calls: CallCounts;
  /** USD, the most the step can be billed (every page fetched); tasks that fail validation are not counted because they are never sent. */
  costUsd: number;
  /** USD, the least the step can be billed when that is less (crawl control stopping on the first page, refunds). */
  costMinUsd?: number;
  deferred: boolean;
  deferredNote?: string;
  /** The step's own budget_usd, if it has one. */
  budgetUsd?: number;
  /** The endpoint bills but the price table has no price for it: its cost is not in costUsd (docs/api-live.md). */
  unpriced?: true;
  /** The tracked target the step names. */
  target?: string;
  /** Its tasks an earlier step posts (not counted here): StepPlan.shared. */
  shared?: SharedTasks[];
}

export type Schedule = 'hourly' | 'daily' | 'weekly' | 'monthly';

/** Runs a month at each schedule, on average over a year (365.25 days). */
export const RUNS_PER_MONTH: Readonly<Record<Schedule, number>> = { hourly: (24 * 365.25) / 12, daily: 365.25 / 12, weekly: 365.25 / 7 / 12, monthly: 1 };

export interface PlanEstimate {
  pipeline: string;
  file: string;
  runId: string;
  budgetUsd: number;
  steps: StepEstimate[];
  /** Cost at the schedule, when the pipeline has one. */
  schedule?: { every: Schedule; runsPerMonth: number; perRunUsd: number; perMonthUsd: number; perYearUsd: number };
  totals: {
    tasks: number;
    calls: CallCounts;
    costUsd: number;
    /** The least the run can be billed, when that is less than costUsd. */
    costMinUsd?: number;
    withinBudget: boolean;
    /** The fastest the rate limits allow: max(all calls / rate_limit.calls * window, each endpoint's calls / its own per-minute limit). */
    shortestSeconds: number;
    /** Task steps wait in the service's queue: collect.expected_queue_ms (a sandbox: its completion delay), once. */
    queueSeconds: number;
    /** Where queueSeconds comes from. */
    queueFrom: 'collect.expected_queue_ms' | 'sandbox.completion_delay_ms';
    /** shortestSeconds + queueSeconds: what a run takes when nothing goes wrong. */
    expectedSeconds: number;
    deferredSteps: number;
  };
  rateLimit: { calls: number; windowMs: number };
}

const micros = (usd: number) => Math.round(usd * 1e6);
const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const fromMicros = (m: number) => m / 1e6;
const emptyCalls = (): CallCounts => ({ posts: 0, readyPolls: 0, taskGets: 0, live: 0, list: 0, total: 0 });

/** Tasks per POST for a task_post endpoint: the configured batch, never above the endpoint's cap. */
export function tasksPerPost(endpointId: string, config: Config): number {
  const def = endpoint(endpointId);
  return Math.max(1, Math.min(config.api.tasks_per_post, def.maxTasksPerPost ?? 100));
}

export function estimatePlan(plan: Plan, config: Config): PlanEstimate {
  const steps: StepEstimate[] = [];
  const totals = emptyCalls();
  let costMicros = 0;
  let minMicros = 0;
  let tasksTotal = 0;
  // Calls per endpoint with its own per-minute limit, for the shortest duration.
  const perEndpoint = new Map<string, number>();
  const addCalls = (id: string | undefined, n: number) => {
    if (!id || n === 0) return;
    perEndpoint.set(id, (perEndpoint.get(id) ?? 0) + n);
  };
  for (const sp of plan.steps) {
    const def = endpoint(sp.endpointId);
    const calls = emptyCalls();
    const n = sp.tasks.length;
    let stepMicros = 0;
    let stepMin = 0;
    let pages: number | undefined;
    let perPost: number | undefined;
    if (def.kind === 'task_post') {
      perPost = tasksPerPost(def.id, config);
      calls.posts = Math.ceil(n / perPost);
      addCalls(def.id, calls.posts);
      if (sp.collect === 'tasks_ready') {
        const ready = def.readyId ? findEndpoint(def.readyId) : undefined;
        calls.readyPolls = n > 0 ? Math.ceil(n / (ready?.maxResultsPerCall ?? 1000)) : 0;
        calls.taskGets = n;
        addCalls(def.readyId, calls.readyPolls);
      } else if (sp.collect === 'pingback') calls.taskGets = n;
      addCalls(def.getId, calls.taskGets);
      for (const t of sp.tasks) {
        stepMicros += micros(t.price);
        stepMin += micros(t.priceMin ?? t.price);
      }
    } else {
      let p = 0;
      for (const t of sp.tasks) {
        const taskPages = t.paging?.maxPages ?? 1;
        p += taskPages;
        stepMicros += micros(t.price) * taskPages;
        stepMin += micros(t.priceMin ?? t.price) * taskPages;
      }
      if (def.paging) pages = p;
      if (def.kind === 'live') calls.live = p;
      else calls.list = p;
      addCalls(def.id, p);
    }
    calls.total = calls.posts + calls.readyPolls + calls.taskGets + calls.live + calls.list;
    for (const k of Object.keys(totals) as (keyof CallCounts)[]) totals[k] += calls[k];
    costMicros += stepMicros;
    minMicros += stepMin;
    tasksTotal += n;
    steps.push({
      index: sp.index, step: sp.step, endpointId: sp.endpointId, kind: sp.kind, collect: sp.collect, tasks: n,
      ...(perPost !== undefined ? { perPost } : {}),
      ...(pages !== undefined ? { pages } : {}),
      calls, costUsd: fromMicros(stepMicros), ...(stepMin < stepMicros ? { costMinUsd: fromMicros(stepMin) } : {}), deferred: sp.deferred,
      ...(sp.deferredNote ? { deferredNote: sp.deferredNote } : {}),
      ...(sp.budgetUsd !== undefined ? { budgetUsd: sp.budgetUsd } : {}),
      ...(isUnpriced(def, config.prices) ? { unpriced: true as const } : {}),
      ...(sp.target !== undefined ? { target: sp.target } : {}),
      ...(sp.shared ? { shared: sp.shared } : {}),
    });
  }
  let shortestSeconds = (totals.total / config.rate_limit.calls) * (config.rate_limit.window_ms / 1000);
  for (const [id, n] of perEndpoint) {
    const perMinute = findEndpoint(id)?.perMinute;
    if (perMinute) shortestSeconds = Math.max(shortestSeconds, (n / perMinute) * 60);
  }
  // Tasks are posted, then wait in the service's queue together: its time counts once, for the steps that post.
  const posts = steps.some((st) => st.kind === 'task_post' && st.tasks > 0);
  const sandbox = config.api.base_url === 'sandbox' || serviceOf(config.api.base_url).kind === 'sandbox';
  const queueMs = !posts ? 0 : sandbox ? config.sandbox.completion_delay_ms : config.collect.expected_queue_ms;
  const perRun = fromMicros(costMicros);
  const every = plan.schedule;
  return {
    pipeline: plan.pipeline,
    file: plan.file,
    runId: plan.runId,
    budgetUsd: plan.budgetUsd,
    ...(every ? { schedule: { every, runsPerMonth: round2(RUNS_PER_MONTH[every]), perRunUsd: perRun, perMonthUsd: round4(perRun * RUNS_PER_MONTH[every]), perYearUsd: round4(perRun * RUNS_PER_MONTH[every] * 12) } } : {}),
    steps,
    totals: {
      tasks: tasksTotal,
      calls: totals,
      costUsd: fromMicros(costMicros),
      ...(minMicros < costMicros ? { costMinUsd: fromMicros(minMicros) } : {}),
      withinBudget: costMicros <= micros(plan.budgetUsd),
      shortestSeconds: Math.round(shortestSeconds * 1000) / 1000,
      queueSeconds: queueMs / 1000,
      queueFrom: sandbox ? 'sandbox.completion_delay_ms' : 'collect.expected_queue_ms',
      expectedSeconds: Math.round((shortestSeconds + queueMs / 1000) * 1000) / 1000,
      deferredSteps: plan.steps.filter((s) => s.deferred && s.tasks.length === 0).length,
    },
    rateLimit: { calls: config.rate_limit.calls, windowMs: config.rate_limit.window_ms },
  };
}

/**
 * Whether the next batch may be posted: what the run has spent plus the batch stays within the budget.
 * Compared in micro-dollars, as the service reports costs, so float sums do not drift past an exact budget.
 */
export function budgetAllows(spentSoFar: number, nextBatchCost: number, budgetUsd: number): boolean {
  return micros(spentSoFar) + micros(nextBatchCost) <= micros(budgetUsd);
}

/** What a batch of tasks is billed at posting (or a live call, per page), summed in micro-dollars. */
export function batchCost(tasks: readonly Pick<PlannedTask, 'price'>[]): number {
  return fromMicros(tasks.reduce((m, t) => m + micros(t.price), 0));
}

/** Dollars with cents, and with up to 6 decimals where the amount has them ($1.00, $0.0018). */
export function formatUsd(usd: number): string {
  const fixed = usd.toFixed(6).replace(/0+$/, '');
  const decimals = fixed.split('.')[1]?.length ?? 0;
  return `$${decimals <= 2 ? usd.toFixed(2) : fixed}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** The `seo-etl plan` table: one row per step, then totals, budget and the shortest duration. */
export function formatPlan(e: PlanEstimate): string {
  const head = ['step', 'endpoint', 'collect', 'tasks', 'posts', 'polls', 'gets', 'live/list', 'calls', 'est. cost'];
  const rows = e.steps.map((s) => [
    s.step,
    s.endpointId,
    s.collect,
    s.deferred && s.tasks === 0 ? 'SQL' : String(s.tasks),
    String(s.calls.posts),
    String(s.calls.readyPolls),
    String(s.calls.taskGets),
    String(s.calls.live + s.calls.list),
    String(s.calls.total),
    s.unpriced ? 'unpriced' : s.costMinUsd !== undefined ? `${formatUsd(s.costMinUsd)}..${formatUsd(s.costUsd)}` : formatUsd(s.costUsd),
  ]);
  const unpriced = e.steps.filter((s) => s.unpriced);
  const t = e.totals;
  const total = ['total', '', '', String(t.tasks), String(t.calls.posts), String(t.calls.readyPolls), String(t.calls.taskGets), String(t.calls.live + t.calls.list), String(t.calls.total), (t.costMinUsd !== undefined ? `${formatUsd(t.costMinUsd)}..${formatUsd(t.costUsd)}` : formatUsd(t.costUsd)) + (unpriced.length ? ' + unpriced' : '')];
  const all = [head, ...rows, total];
  const numeric = (i: number) => i >= 3;
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [
    `Plan for ${e.pipeline} (${e.file}), run ${e.runId}`,
    '',
    line(head),
    rule,
    ...rows.map(line),
    rule,
    line(total),
    '',
    `Estimated cost ${formatUsd(t.costUsd)}${unpriced.length ? ' (and the unpriced steps)' : ''} of budget ${formatUsd(e.budgetUsd)}: ${t.withinBudget ? 'within budget' : 'OVER BUDGET (the run stops posting before it would pass the budget)'}`,
    `Shortest duration at ${e.rateLimit.calls} calls per ${formatDuration(e.rateLimit.windowMs / 1000)}: ${formatDuration(t.shortestSeconds)} (${t.calls.total} calls)`,
    ...(t.queueSeconds ? [`Expected duration: ${formatDuration(t.expectedSeconds)} (the rate limits' ${formatDuration(t.shortestSeconds)} + ${formatDuration(t.queueSeconds)} in the service's queue for the task steps, ${t.queueFrom})`] : []),
    ...(e.schedule
      ? [`At the schedule (${e.schedule.every}, ${e.schedule.runsPerMonth} runs a month): ${formatUsd(e.schedule.perRunUsd)} a run, ${formatUsd(e.schedule.perMonthUsd)} a month, ${formatUsd(e.schedule.perYearUsd)} a year`]
      : ['Per month and year: give the pipeline a schedule (schedule: daily, or plan --schedule daily)']),
  ];
  const paged = e.steps.filter((s) => s.pages !== undefined);
  if (paged.length) out.push(`Paged steps are counted at their page limit: ${paged.map((s) => `${s.step} ${s.pages} page${s.pages === 1 ? '' : 's'}`).join(', ')}; cost is an upper bound.`);
  if (t.costMinUsd !== undefined) out.push(`Cost is a range: crawl control may stop on the first page, unused options are refunded, and per-row, per-crawled-page and per-token prices bill what the service returned; the budget reserves the most (${formatUsd(t.costUsd)}) and gets back what is not billed.`);
  if (unpriced.length) out.push(`No price for ${unpriced.map((s) => `${s.step} (${s.endpointId})`).join(', ')}: the live service publishes none (docs/api-live.md), so the estimate leaves these steps out and the budget cannot hold them back before the service bills them. Give each a price under prices: in config/local.yaml.`);
  for (const s of e.steps) if (s.deferredNote) out.push(`Step ${s.step}: ${s.deferredNote}.`);
  for (const s of e.steps) for (const line of sharedLines(s)) out.push(line);
  for (const s of e.steps) {
    if (s.budgetUsd === undefined) continue;
    out.push(`Step ${s.step}: its own budget ${formatUsd(s.budgetUsd)} ${micros(s.costUsd) <= micros(s.budgetUsd) ? 'covers it' : `is less than its ${formatUsd(s.costUsd)}: it stops posting at its budget, leaving the rest of the pipeline's budget to the other steps`}.`);
  }
  return out.join('\n');
}

/** What a step shares with earlier steps: paid once, by the step that posts it; tracked for both steps' targets. */
export function sharedLines(s: Pick<StepEstimate, 'step' | 'target' | 'shared'>): string[] {
  return (s.shared ?? []).map((sh) => {
    const targets = [...new Set([sh.target, s.target].filter((t): t is string => t !== undefined))];
    const n = `${sh.tasks} task${sh.tasks === 1 ? '' : 's'}`;
    return `Step ${s.step}: ${n} shared with step ${sh.step}: posted and paid once, by ${sh.step}${targets.length ? `; ${sh.tasks === 1 ? 'its' : 'their'} results are tracked for ${targets.length === 1 ? 'target' : 'targets'} ${targets.join(' and ')}` : ''}.`;
  });
}

/** The `seo-etl plan --json` form. */
export function formatPlanJson(e: PlanEstimate): string {
  return JSON.stringify(e, null, 2);
}
