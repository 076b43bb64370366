/** The `result` of a completed task, by the result kind of its task_get endpoint; task_get and postbacks share it. */
import type { EndpointDef } from '../catalog/endpoint.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';

/** Posted parameters with the location and language the service resolved (kept in the echo). */
export function withLocale<T>(task: StoredTask): T {
  return { ...task.params, location_code: task.data.location_code ?? null, language_code: task.data.language_code ?? null } as T;
}

export function taskResult(def: EndpointDef, task: StoredTask, ctx: SandboxContext, variant?: string): unknown[] {
  const cache = ctx.resultCache;
  if (!cache) return generate(def, task, ctx, variant);
  // The bench's full-size results: one of resultVariants per endpoint, whatever the task's parameters, so that
  // generating them does not take the cores the job is measured on.
  const key = `${def.id}|${variant ?? ''}|${task.seed % ctx.settings.resultVariants}`;
  let result = cache.results.get(key);
  if (result) cache.hits++;
  else {
    cache.misses++;
    cache.results.set(key, (result = generate(def, task, ctx, variant)));
  }
  return result;
}

/**
 * The cost a task_get (or postback) answer reports: what the task was billed. SERP tasks are settled on their result;
 * the other families bill at posting only, and their task_get answers report no cost, as before.
 */
export function taskBilled(def: EndpointDef, task: StoredTask, ctx: SandboxContext): number {
  const settle = ctx.families.billed.get(def.result);
  if (!settle) return 0;
  const at = task.reparsedAt !== null && ctx.clock.now() >= task.reparsedAt ? task.reparsedAt : task.completeAt;
  return settle(def, task, ctx, at);
}

function generate(def: EndpointDef, task: StoredTask, ctx: SandboxContext, variant?: string): unknown[] {
  // The result describes the SERP as of completion; a re-parse keeps the data and moves `datetime`.
  const at = task.reparsedAt !== null && ctx.clock.now() >= task.reparsedAt ? task.reparsedAt : task.completeAt;
  const loaded = ctx.families;
  const generator = loaded.results.get(def.result) ?? loaded.fallbacks.map((f) => f(def)?.result).find((g) => g !== undefined);
  if (!generator) throw new Error(`no result generator for ${def.result}`);
  return generator(def, task, ctx, at, variant);
}
