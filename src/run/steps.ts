/**
 * The pipeline's steps in order: each is planned into the ledger a chunk at a time, then posted (task_post) or
 * called (live, list). A step fed by SQL waits until what earlier steps posted is collected and loaded.
 */
import { endpoint } from '../api/catalog.js';
import type { Collection } from '../collect/index.js';
import { expandStepChunks, formatUsd, releaseStepInputs } from '../pipeline/index.js';
import { ApiError } from '../api/client.js';
import { mayPost, onRefusal, postStep, type PostContext } from '../post/index.js';

export interface StepsContext extends PostContext {
  runDate: string;
  collection: Collection;
  /** Resolves once everything handed to the writer is written. */
  settled: () => Promise<void>;
  /** A read of the working warehouse, for SQL-fed steps. */
  query: (sql: string) => Promise<Record<string, unknown>[]>;
}

/** Plans and posts (or calls) every step; with `postOnly`, posts again what is still planned. */
export async function runSteps(ctx: StepsContext, opts: { postOnly?: boolean } = {}): Promise<void> {
  for (const step of ctx.pipeline.steps) {
    // An account answer stops every step; the budget stops none: each later step posts what still fits.
    if (ctx.stops.account) break;
    if (step.deferred) {
      await ctx.collection.drain();
      await ctx.settled();
    }
    if (!opts.postOnly) {
      // Planned a chunk at a time: the step is checked whole first, then never held whole (see expandStepChunks).
      const chunks = expandStepChunks(ctx.pipeline, step.index, {
        runId: ctx.runId,
        runDate: ctx.runDate,
        callbacks: ctx.collection.callbacksFor(step, { planned: true }),
        query: ctx.query,
      });
      for await (const tasks of chunks) {
        ctx.progress.add('planned', (await ctx.ledger.planTasks(tasks)).inserted);
        await ctx.rest();
      }
      releaseStepInputs(step);
    }
    if (step.kind === 'task_post') await postStep(ctx, step, ctx.collection);
    // tasks_fixed lists re-parsed results of completed tasks: it runs after collection (Collection.finish).
    // A live or list call the service did nothing with is still planned: a later pass calls it again.
    else if (step.kind !== 'tasks_fixed' && mayPost(ctx, step.name)) {
      await ctx.collection.call(step).catch(async (err: unknown) => {
        if (!(err instanceof ApiError)) throw err;
        await onRefusal(ctx, step.name, err, []);
      });
    }
    // A live step stopped at the budget leaves the later steps their chance at what is left (see postStep).
    if (step.kind !== 'task_post' && ctx.budget.stoppedSteps.has(step.name)) {
      const message = (await ctx.budget.stepsOwnIsTighter(step))
        ? `over the step's budget: it would pass its budget_usd ${formatUsd(step.budgetUsd!)}`
        : `over the budget: it would pass budget_usd ${formatUsd(ctx.pipeline.budgetUsd)}`;
      await ctx.ledger.notePlanned(ctx.runId, step.name, { message });
    }
  }
}

/**
 * Posts what is still planned (an unclear POST the service never showed, or a retryable refusal), a bounded
 * number of passes, collecting after each.
 */
export async function postLeftovers(ctx: StepsContext): Promise<void> {
  const stopped = () => ctx.budget.stopped || ctx.stops.account !== undefined;
  for (let pass = 1; pass <= ctx.config.api.retries && !stopped() && (await postableLeft(ctx)) > 0; pass++) {
    await runSteps(ctx, { postOnly: true });
    await ctx.collection.drain();
  }
}

/** The kinds of step whose planned tasks a later pass or `resume` sends (tasks_fixed: when collection finishes). */
const CALLED_AGAIN: ReadonlySet<string> = new Set(['task_post', 'live', 'list', 'tasks_fixed']);

export interface Refusal { code: number | null; message: string | null; step: string; count: number }

/** Planned tasks left (refused with a retryable answer, or an unclear POST the service never showed). */
export async function postableLeft(ctx: Pick<StepsContext, 'ledger' | 'runId'>): Promise<number> {
  return (await refusals(ctx)).reduce((n, g) => n + g.count, 0);
}

/** The last answers of the planned task_post, live and list tasks left, grouped by code, message and step. */
export async function refusals(ctx: Pick<StepsContext, 'ledger' | 'runId'>): Promise<Refusal[]> {
  const groups = new Map<string, Refusal>();
  for (const c of await ctx.ledger.countTasks(ctx.runId, { states: ['planned'] })) {
    if (!CALLED_AGAIN.has(endpoint(c.endpointId).kind)) continue;
    const k = `${c.errorCode}\u0000${c.errorMessage}\u0000${c.step}`;
    const g = groups.get(k) ?? { code: c.errorCode, message: c.errorMessage, step: c.step, count: 0 };
    g.count += c.count;
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
