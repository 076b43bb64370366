/** The `result` of a completed task, by the kind of its task_get endpoint; task_get and postbacks share it. */
import type { EndpointDef } from '../api/catalog.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';
import { generateKeywordData, type KeywordParams } from './data/keywords.js';
import { generateEventsHtml, generateEventsSerp, type EventsParams } from './data/events.js';
import { serpResult, settleSerpTask } from './handlers/serp.js';
import type { SerpParams } from './data/serp.js';
import { generateMerchant, generateMerchantHtml, type MerchantParams } from './data/merchant.js';
import { adsResult } from './handlers/keywords-ads.js';

/** Posted parameters with the location and language the service resolved (kept in the echo). */
function withLocale<T>(task: StoredTask): T {
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
  if (def.result === 'serp_advanced' || def.result === 'serp_regular' || def.result === 'serp_html') {
    const at = task.reparsedAt !== null && ctx.clock.now() >= task.reparsedAt ? task.reparsedAt : task.completeAt;
    return settleSerpTask(def, task, ctx, withLocale<SerpParams>(task), at);
  }
  return 0;
}

function generate(def: EndpointDef, task: StoredTask, ctx: SandboxContext, variant?: string): unknown[] {
  const engine = def.engine ? ctx.engines[def.engine] : ctx.engines.engine_a;
  // The result describes the SERP as of completion; a re-parse keeps the data and moves `datetime`.
  const at = task.reparsedAt !== null && ctx.clock.now() >= task.reparsedAt ? task.reparsedAt : task.completeAt;
  switch (def.result) {
    case 'keyword_data': {
      const params = withLocale<KeywordParams>(task);
      const count = params.keywords ? ctx.settings.suggestionsPerKeyword : ctx.settings.keywordsPerSiteTask;
      return generateKeywordData(params, count, task.seed, { now: task.completeAt });
    }
    case 'keyword_ads_data':
    case 'ad_traffic':
      return adsResult(def, withLocale(task), ctx, task.seed, task.completeAt);
    case 'events_serp':
      return [generateEventsSerp(withLocale<EventsParams>(task), engine, def.id.endsWith('.regular') ? 'regular' : 'advanced', task.seed, at)];
    case 'events_html':
      return [generateEventsHtml(withLocale<EventsParams>(task), engine, task.seed, at)];
    case 'merchant_html':
      return [generateMerchantHtml(withLocale<MerchantParams>(task), engine, task.seed, at)];
    case 'merchant_shopping':
      if (variant === 'html') return [generateMerchantHtml(withLocale<MerchantParams>(task), engine, task.seed, at)];
      return [generateMerchant(withLocale<MerchantParams>(task), engine, ctx.settings.merchantItems, task.seed, { now: at })];
    case 'serp_advanced': case 'serp_regular': case 'serp_html':
      return [serpResult(def, withLocale<SerpParams>(task), ctx, task.seed, at)];
    default:
      throw new Error(`no result generator for ${def.result}`);
  }
}
