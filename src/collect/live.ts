/**
 * Live and list steps: the answer is the result. Each task's pages are handed to the sink together, with the
 * call's id and cost, so its rows and its posted state commit in one transaction.
 */
import { endpoint } from '../api/catalog.js';
import { nothingDone, type ApiClient, type TaskError, type TaskOutcome } from '../api/client.js';
import { pageEndpoint } from '../api/paging.js';
import { isTaskError } from '../api/status.js';
import type { LedgerTask } from '../ledger/index.js';
import type { PipelineStep } from '../pipeline/index.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { CollectContext } from './context.js';

export async function callStep(ctx: CollectContext, step: PipelineStep): Promise<void> {
  const { ledger, runId, logger } = ctx;
  // `posting` here is a live call a crash interrupted: its answer (if any) is in the raw archive; ask again.
  // Read a page at a time and shared by the workers (an async generator hands each task to one of them).
  const todo = eachTask(ledger.pages(runId, { step: step.name, states: ['planned', 'posting'] }));
  await ctx.budget.refresh(step);
  const worker = async () => {
    while (!ctx.budget.stoppedSteps.has(step.name)) {
      const next = await todo.next();
      if (next.done) return;
      const t = next.value;
      // What the calls in flight may cost is held against the budget until each reports its cost.
      const spend = await ctx.budget.take(t.price * (t.paging?.maxPages ?? 1), step);
      if (!spend) {
        if (!ctx.budget.stoppedSteps.has(step.name)) {
          const own = await ctx.budget.stepsOwnIsTighter(step);
          logger.warn({ step: step.name, spent_usd: await ctx.budget.spentUsd(), budget_usd: ctx.budget.limitUsd, ...(step.budgetUsd !== undefined ? { step_budget_usd: step.budgetUsd } : {}) },
            own ? "the step's budget is reached: no more live calls of this step" : 'budget reached: no more live calls');
        }
        ctx.budget.stop(step.name);
        return;
      }
      if (t.state === 'planned') await ctx.sink({ kind: 'calling', keys: [t.key] });
      // Room for the answer in the load channel before the call, as for a task_get: the answers in flight and
      // waiting to load stay within its budget however many workers call.
      const hold = await ctx.load.reserve(step.endpointId);
      try {
        const results: CollectedTask[] = [];
        let cost = 0;
        let error: TaskError | undefined;
        for await (const o of callPages(ctx.client, step, t)) {
          if (!o.ok) { error = o.error; break; }
          cost += o.cost;
          results.push({ endpointId: step.endpointId, task: o.task, version: o.version ?? '', bytes: o.bytes });
        }
        if (!results.length) {
          hold.cancel();
          // An answer of a service that did nothing (rate limit, 50000 range) leaves the task planned with its code:
          // a later pass of the run or `resume` calls it again.
          const retry = error !== undefined && nothingDone(error);
          await ctx.sink({ kind: 'call_failed', failures: [{ ref: t.key, code: error?.code ?? 0, message: error?.message ?? 'no answer', retry }] });
          if (!retry) ctx.progress.add('failed');
          spend.settle(0);
          continue;
        }
        if (error) logger.warn({ step: step.name, task: t.key, pages: results.length, error }, 'paging stopped early; the pages fetched are kept');
        await ctx.pause('live', step.name);
        ctx.progress.add('posted');
        ctx.progress.counts.costUsd += cost;
        spend.settle(cost);
        // Its transaction is cut at once: the worker waits on the commit before its next call.
        await hold.admit({ kind: 'answered', keys: [t.key], results, pages: results.length, posted: { key: t.key, serviceId: results[0].task.id, cost } }, { now: true }).done;
      } catch (err) {
        hold.cancel(); // gives the room back unless the answer was handed over (a hold is released once)
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: ctx.config.collect.live_concurrency }, worker));
}

async function* eachTask(pages: AsyncIterable<LedgerTask[]>): AsyncGenerator<LedgerTask> {
  for await (const page of pages) yield* page;
}

async function* callPages(client: ApiClient, step: PipelineStep, t: LedgerTask): AsyncGenerator<TaskOutcome> {
  const def = endpoint(step.endpointId);
  if (def.paging) {
    const paging = t.paging ? { pageSize: t.paging.pageSize, ...(t.paging.maxItems !== undefined ? { maxItems: t.paging.maxItems } : {}) } : {};
    let n = 0;
    for await (const o of pageEndpoint(client, def, t.params, paging)) {
      yield o;
      if (++n >= (t.paging?.maxPages ?? Number.POSITIVE_INFINITY)) return;
    }
    return;
  }
  if (def.kind === 'live') yield await client.live(def.id, t.params);
  else if (def.kind === 'list') yield await client.list(def.id, def.method === 'POST' ? t.params : undefined);
  else if (def.kind === 'tasks_fixed') {
    const env = await client.get(def.id);
    const task = env.tasks?.[0];
    yield task && !isTaskError(task.status_code) ? { ok: true, task, cost: task.cost ?? 0 } : { ok: false, error: { code: task?.status_code ?? env.status_code, message: task?.status_message ?? env.status_message, path: [], data: null, local: false } };
  }
}
