/**
 * Posting: a step's planned tasks go to the service batch by batch. The ledger knows each batch before it is sent
 * (`posting`, committed) and after (`posted` with the service's id and cost, or the refusals), so a crash leaves
 * at worst one ambiguous batch, looked up by its tags before anything of it is posted again. What was posted is
 * handed to the collect stage.
 */
import type { TaskOutcome } from '../api/client.js';
import { seqSpan, type LedgerTask } from '../ledger/index.js';
import { budgetAllows, batchCost, tasksPerPost, type PipelineStep } from '../pipeline/index.js';
import type { AmbiguousTask, Collection, CollectContext } from '../collect/index.js';
import { modeOf, postedEcho, variantOf } from '../collect/index.js';

export type PostContext = Pick<CollectContext, 'config' | 'pipeline' | 'runId' | 'ledger' | 'client' | 'logger' | 'progress' | 'budget' | 'pause'> & {
  /** Lets the writer checkpoint and trim between pages of ledger writes. */
  rest: () => Promise<void>;
};

/** What posting needs of the collect stage. */
export type Tracker = Pick<Collection, 'track' | 'awaitTags' | 'callbacksFor'>;

/** Batches of a step read from the ledger at once while posting (Ledger.pages). */
const POST_PAGE_BATCHES = 10;

/** Posts a step's planned tasks batch by batch. */
export async function postStep(ctx: PostContext, step: PipelineStep, tracker: Tracker): Promise<void> {
  const per = tasksPerPost(step.endpointId, ctx.config);
  // A page is a whole number of batches; the walk starts past each page, so a batch refused back to `planned`
  // waits for the next pass.
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['planned'], step: step.name }, per * POST_PAGE_BATCHES)) {
    // Summed once a page, then kept up to date with what each batch reported (summing per batch grew with the run).
    let spent = await ctx.ledger.spentUsd(ctx.runId);
    for (let i = 0; i < page.length; i += per) {
      spent += await postBatch(ctx, step, page.slice(i, i + per), tracker, spent);
      if (ctx.budget.stopped) return;
    }
    await ctx.rest();
  }
}

/** Posts one batch (`spent`: what the run has spent so far); returns the cost the service reported for it. */
async function postBatch(ctx: PostContext, step: PipelineStep, chunk: LedgerTask[], tracker: Tracker, spent: number): Promise<number> {
  const { ledger, runId, logger } = ctx;
  if (!budgetAllows(spent, batchCost(chunk), ctx.pipeline.budgetUsd)) {
    ctx.budget.stopped = true;
    const notPosted = (await ledger.countTasks(runId, { states: ['planned'], step: step.name })).reduce((n, g) => n + g.count, 0);
    logger.warn({ step: step.name, spent_usd: spent, next_batch_usd: batchCost(chunk), budget_usd: ctx.pipeline.budgetUsd, not_posted: notPosted },
      'budget reached: no more tasks are posted; what was posted is still collected');
    return 0;
  }
  const span = seqSpan(chunk);
  const { keys } = await ledger.beginPost(runId, chunk.map((t) => t.key), { span });
  const allowed = new Set(keys);
  const send = chunk.filter((t) => allowed.has(t.key));
  if (!send.length) return 0;
  const callbacks = tracker.callbacksFor(step);
  const outcomes = await ctx.client.postTasks(step.endpointId, send.map((t) => ({ ...t.params, ...(callbacks ?? {}) })));
  await ctx.pause('posted', step.name);
  const posted: { key: string; serviceId: string; cost: number }[] = [];
  const failed: { ref: string; code: number; message: string; retry?: boolean }[] = [];
  const ambiguous: AmbiguousTask[] = [];
  outcomes.forEach((o, j) => {
    const t = send[j];
    if (o.ok) posted.push({ key: t.key, serviceId: o.task.id, cost: o.cost });
    else if (o.error.ambiguous && t.tag) ambiguous.push({ key: t.key, tag: t.tag, postId: step.endpointId, mode: modeOf(step), ...variantOf(t), ...postedEcho(modeOf(step), t) });
    else failed.push({ ref: t.key, code: o.error.code, message: o.error.message, retry: isRetryablePostFailure(o) });
  });
  await ledger.recordPosted(runId, posted, { span });
  // Retryable refusals go back to planned with their code and message, for a later pass or `resume`.
  await ledger.recordPostFailed(runId, failed);
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

/** A refusal the client already retried that a later pass may post again: rate limit, or the 5xx range at no cost. */
function isRetryablePostFailure(o: TaskOutcome): boolean {
  if (o.ok) return false;
  const c = o.error.code;
  return !o.error.local && (c === 40202 || c >= 50000);
}
