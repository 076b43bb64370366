/**
 * Posting: a step's planned tasks go to the service batch by batch. The ledger knows each batch before it is sent
 * (`posting`, committed) and after (`posted` with the service's id and cost, or the refusals), so a crash leaves
 * at worst one ambiguous batch, looked up by its tags before anything of it is posted again. What was posted is
 * handed to the collect stage.
 */
import { ApiError, nothingDone, type TaskOutcome } from '../api/client.js';
import { seqSpan, type LedgerTask } from '../ledger/index.js';
import { batchCost, formatUsd, tasksPerPost, type PipelineStep } from '../pipeline/index.js';
import { accountStop, refusalKind, retiredStop, type Stops } from './stop.js';
import type { AmbiguousTask, Collection, CollectContext } from '../collect/index.js';
import { modeOf, postedEcho, variantOf } from '../collect/index.js';

export type PostContext = Pick<CollectContext, 'config' | 'pipeline' | 'runId' | 'ledger' | 'client' | 'logger' | 'progress' | 'budget' | 'pause'> & {
  /** Lets the writer checkpoint and trim between pages of ledger writes. */
  rest: () => Promise<void>;
  /** What stopped posting this attempt (src/post/stop.ts). */
  stops: Stops;
};

/** Whether a step may still post: no account answer stopped the run and its endpoint was not found gone. */
export function mayPost(ctx: Pick<PostContext, 'stops'>, step: string): boolean {
  return !ctx.stops.account && !ctx.stops.retired.has(step);
}

/** What posting needs of the collect stage. */
export type Tracker = Pick<Collection, 'track' | 'awaitTags' | 'callbacksFor'>;

/** Batches of a step read from the ledger at once while posting (Ledger.pages). */
const POST_PAGE_BATCHES = 10;

/**
 * Posts a step's planned tasks batch by batch. Within the budget it posts what fits (part of a batch, and the
 * cheaper tasks after one that did not fit); what does not stays `planned` with the reason, for the summary.
 */
export async function postStep(ctx: PostContext, step: PipelineStep, tracker: Tracker): Promise<void> {
  const per = tasksPerPost(step.endpointId, ctx.config);
  let leftForBudget = 0;
  // A page is a whole number of batches; the walk starts past each page, so a batch refused back to `planned`
  // waits for the next pass.
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['planned'], step: step.name }, per * POST_PAGE_BATCHES)) {
    // Summed once a page, then kept up to date with what each batch reported (summing per batch grew with the run).
    await ctx.budget.refresh(step);
    for (let i = 0; i < page.length; i += per) {
      if (!mayPost(ctx, step.name)) return;
      const chunk = page.slice(i, i + per);
      const fits = await ctx.budget.fitting(chunk, step);
      const spend = fits.length ? await ctx.budget.take(batchCost(fits), step) : null;
      leftForBudget += chunk.length - (spend ? fits.length : 0);
      if (!spend) continue;
      let cost = 0;
      try {
        cost = await postBatch(ctx, step, fits, tracker);
      } finally {
        spend.settle(cost);
      }
    }
    await ctx.rest();
  }
  if (leftForBudget) {
    ctx.budget.stop(step.name);
    const spent = await ctx.budget.refresh(step);
    const stepSpent = step.budgetUsd === undefined ? 0 : await ctx.budget.spentUsd(step.name);
    // Whose budget stopped it: the step's own when it is the one that would be passed.
    const message = (await ctx.budget.stepsOwnIsTighter(step))
      ? `over the step's budget: it would pass its budget_usd ${formatUsd(step.budgetUsd!)} (spent ${formatUsd(stepSpent)} of the run's ${formatUsd(spent)})`
      : `over the budget: it would pass budget_usd ${formatUsd(ctx.pipeline.budgetUsd)} (spent ${formatUsd(spent)})`;
    await ctx.ledger.notePlanned(ctx.runId, step.name, { message });
    ctx.logger.warn({ step: step.name, spent_usd: spent, budget_usd: ctx.pipeline.budgetUsd, ...(step.budgetUsd !== undefined ? { step_spent_usd: stepSpent, step_budget_usd: step.budgetUsd } : {}), not_posted: leftForBudget },
      'budget: the tasks that would pass it are not posted; what was posted is still collected');
  }
}

export { withinBudget } from '../pipeline/budget.js';

/** Posts one batch; returns the cost the service reported for it. */
async function postBatch(ctx: PostContext, step: PipelineStep, chunk: LedgerTask[], tracker: Tracker): Promise<number> {
  const { ledger, runId, logger } = ctx;
  const span = seqSpan(chunk);
  const { keys } = await ledger.beginPost(runId, chunk.map((t) => t.key), { span });
  const allowed = new Set(keys);
  const send = chunk.filter((t) => allowed.has(t.key));
  if (!send.length) return 0;
  const callbacks = tracker.callbacksFor(step);
  let outcomes: TaskOutcome[];
  try {
    outcomes = await ctx.client.postTasks(step.endpointId, send.map((t) => ({ ...t.params, ...(callbacks ?? {}) })));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await onRefusal(ctx, step.name, err, send.map((t) => t.key));
    return 0;
  }
  await ctx.pause('posted', step.name);
  const posted: { key: string; serviceId: string; cost: number }[] = [];
  const failed: { ref: string; code: number; message: string; retry?: boolean }[] = [];
  const ambiguous: AmbiguousTask[] = [];
  outcomes.forEach((o, j) => {
    const t = send[j];
    if (o.ok) posted.push({ key: t.key, serviceId: o.task.id, cost: o.cost });
    else if (o.error.ambiguous && t.tag) ambiguous.push({ key: t.key, tag: t.tag, postId: step.endpointId, mode: modeOf(step), ...variantOf(t), ...postedEcho(modeOf(step), t) });
    else if (!o.error.local && refusalKind(o.error.code, undefined) === 'account') {
      // A task-level account answer (the duplicate-task limits): back to planned, and no more posting this attempt.
      ctx.stops.account ??= accountStop(o.error.code, undefined, `${o.error.code} ${o.error.message}`, { step: step.name, endpointId: step.endpointId });
      failed.push({ ref: t.key, code: o.error.code, message: o.error.message, retry: true });
    }
    else failed.push({ ref: t.key, code: o.error.code, message: o.error.message, retry: isRetryablePostFailure(o) });
  });
  await ledger.recordPosted(runId, posted, { span });
  // Retryable refusals go back to planned with their code and message, for a later pass or `resume`.
  await ledger.recordPostFailed(runId, failed);
  const stop = ctx.stops.account;
  if (stop) await ledger.notePlanned(runId, null, { code: stop.code, message: stop.message });
  const failedFinal = failed.filter((f) => !f.retry);
  const cost = posted.reduce((s, p) => s + p.cost, 0);
  ctx.progress.add('posted', posted.length);
  ctx.progress.add('failed', failedFinal.length);
  ctx.progress.counts.costUsd += cost;
  if (failedFinal.length) logger.warn({ step: step.name, failed: failedFinal.map((f) => `${f.code} ${f.message}`).slice(0, 5) }, 'tasks refused');
  if (ambiguous.length) {
    logger.warn({ step: step.name, tasks: ambiguous.length }, 'POST without a clear answer: looking the tasks up by tag before any re-post');
    tracker.awaitTags(ambiguous);
  }
  const sentByKey = new Map(send.map((t) => [t.key, t]));
  tracker.track(posted.map((p) => ({ key: p.key, serviceId: p.serviceId, postId: step.endpointId, mode: modeOf(step), ...variantOf(sentByKey.get(p.key)!), ...postedEcho(modeOf(step), sentByKey.get(p.key)!) })));
  return cost;
}

/** A refusal the client already retried that a later pass may post again: the service did nothing (nothingDone). */
function isRetryablePostFailure(o: TaskOutcome): boolean {
  return !o.ok && nothingDone(o.error);
}

/**
 * The service refused a whole call of a step (`keys`: its tasks, `posting`). An account answer puts them back to
 * `planned` with the answer and stops posting; a 404 fails the step (it is not asked again); any other refusal
 * of the request fails these tasks with its code and message.
 */
export async function onRefusal(ctx: PostContext, step: string, err: ApiError, keys: readonly string[]): Promise<void> {
  const { ledger, runId, logger } = ctx;
  const kind = refusalKind(err.code, err.httpStatus);
  if (kind === 'account') {
    ctx.stops.account ??= accountStop(err.code, err.httpStatus, err.message, { step, endpointId: err.endpointId });
    await ledger.recordPostFailed(runId, keys.map((ref) => ({ ref, code: err.code, message: err.message, retry: true })));
    await ledger.notePlanned(runId, null, { code: err.code, message: err.message });
    logger.error({ step, endpoint: err.endpointId, code: err.code, http_status: err.httpStatus, tasks: keys.length }, `the service refused the account: posting stops; what was posted is still collected: ${err.message}`);
    return;
  }
  if (kind === 'retired') {
    const stop = retiredStop(err, step);
    ctx.stops.retired.set(step, stop);
    const n = await ledger.failStep(runId, step, { code: err.code, message: stop.message });
    ctx.progress.add('failed', n);
    logger.error({ step, endpoint: err.endpointId, path: err.path, tasks: n }, stop.message);
    return;
  }
  await ledger.recordPostFailed(runId, keys.map((ref) => ({ ref, code: err.code, message: err.message })));
  ctx.progress.add('failed', keys.length);
  logger.warn({ step, endpoint: err.endpointId, code: err.code, tasks: keys.length }, `the service refused the call: ${err.message}`);
}
