/**
 * Re-parsed results (tasks_fixed, E12), after everything else is collected: ours are fetched again and replace
 * their rows. It runs when the pipeline has a tasks_fixed step (whose ledger task records the list) or posts to a
 * family that has a tasks_fixed list.
 */
import { endpointsOfKind } from '../api/catalog.js';
import { isTaskError } from '../api/status.js';
import { ApiError, nothingDone } from '../api/client.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { CollectContext } from './context.js';

export async function recollectFixed(ctx: CollectContext): Promise<void> {
  for (const list of endpointsOfKind('tasks_fixed')) {
    const step = ctx.pipeline.steps.find((s) => s.kind === 'tasks_fixed' && s.endpointId === list.id);
    const posted = ctx.pipeline.steps.some((s) => s.endpointId === list.postId);
    if (step || posted) await recollect(ctx, list.id, list.getId!, step?.name);
  }
}

async function recollect(ctx: CollectContext, listId: string, getId: string, stepName: string | undefined): Promise<void> {
  // The list is free and changes over 24 hours, so a repeated attempt of the run asks again; the step's own
  // ledger task is only recorded the first time.
  const stepTasks = stepName ? await ctx.ledger.tasks(ctx.runId, { step: stepName, states: ['planned', 'posting'] }) : [];
  if (stepTasks.length) await ctx.sink({ kind: 'calling', keys: stepTasks.map((t) => t.key) });
  // A family the service retired (HTTP 404) has nothing to re-collect: its step fails, the run goes on. A list the
  // service did not answer (a rate-limit storm, the 5xx range) stays planned for `resume`, as a live call does.
  const env = await ctx.client.get(listId).catch((err: unknown) => { if (err instanceof ApiError && (err.httpStatus === 404 || askAgain(err.code, err.httpStatus))) return err; throw err; });
  if (env instanceof ApiError) {
    const retry = env.httpStatus !== 404;
    ctx.logger.warn({ endpoint: listId }, `${env.message}: ${retry ? 'asked again by resume' : 'nothing to re-collect'}`);
    if (stepTasks.length) await ctx.sink({ kind: 'call_failed', failures: stepTasks.map((t) => ({ ref: t.key, code: env.code, message: env.message, retry })) });
    return;
  }
  const listTask = env.tasks?.[0];
  if (!listTask || isTaskError(listTask.status_code)) {
    const code = listTask?.status_code ?? env.status_code;
    if (stepTasks.length) await ctx.sink({ kind: 'call_failed', failures: stepTasks.map((t) => ({ ref: t.key, code, message: listTask?.status_message ?? env.status_message, retry: askAgain(code) })) });
    return;
  }
  const keys = stepTasks.map((t) => t.key);
  // The list is a result of its own only for a tasks_fixed step; otherwise it just names what to fetch again
  // (loading it would add a row no ledger task owns, once per attempt).
  if (keys.length) {
    await ctx.sink({ kind: 'posted', posted: keys.map((key) => ({ key, serviceId: listTask.id, cost: 0 })) });
    await ctx.sink({ kind: 'answered', keys, results: [{ endpointId: listId, task: listTask, version: env.version }], pages: 1 });
  }
  const ours: CollectedTask[] = [];
  for (const f of (listTask.result ?? []) as { id?: string }[]) {
    // Ours if any run of this warehouse posted it: a re-parse is usually found by the next night's run.
    if (!f.id || !(await ctx.ledger.byServiceId(f.id))) continue;
    const o = await ctx.client.taskGet(getId, f.id);
    if (o.ok) ours.push({ endpointId: getId, task: o.task, version: o.version ?? env.version });
  }
  if (ours.length) {
    ctx.logger.info({ tasks: ours.length }, 're-parsed results collected again; their earlier rows are replaced');
    await ctx.sink({ kind: 'collected', results: ours });
  }
}

/** An answer of a service that did nothing, a gateway's or none at all: the list is free, so asking again costs nothing. Pure. */
export function askAgain(code: number, httpStatus?: number): boolean {
  return httpStatus === 0 || (httpStatus ?? 0) >= 500 || nothingDone({ code, message: '', path: [], data: null, local: false, ...(httpStatus ? { httpStatus, transport: 'http' as const } : {}) });
}
