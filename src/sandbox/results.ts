/** The `result` of a completed task, by the kind of its task_get endpoint; task_get and postbacks share it. */
import type { EndpointDef } from '../api/catalog.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';
import { generateKeywordData, type KeywordParams } from './data/keywords.js';
import { generateEventsHtml, generateEventsSerp, type EventsParams } from './data/events.js';
import { generateMerchant, generateMerchantHtml, type MerchantParams } from './data/merchant.js';

/** Posted parameters with the location and language the service resolved (kept in the echo). */
function withLocale<T>(task: StoredTask): T {
  return { ...task.params, location_code: task.data.location_code ?? null, language_code: task.data.language_code ?? null } as T;
}

export function taskResult(def: EndpointDef, task: StoredTask, ctx: SandboxContext, variant?: string): unknown[] {
  const engine = def.engine ? ctx.engines[def.engine] : ctx.engines.engine_a;
  // The result describes the SERP as of completion; a re-parse keeps the data and moves `datetime`.
  const at = task.reparsedAt !== null && ctx.clock.now() >= task.reparsedAt ? task.reparsedAt : task.completeAt;
  switch (def.result) {
    case 'keyword_data': {
      const params = withLocale<KeywordParams>(task);
      const count = params.keywords ? ctx.settings.suggestionsPerKeyword : ctx.settings.keywordsPerSiteTask;
      return generateKeywordData(params, count, task.seed, { now: task.completeAt });
    }
    case 'events_serp':
      return [generateEventsSerp(withLocale<EventsParams>(task), engine, def.id.endsWith('.regular') ? 'regular' : 'advanced', task.seed, at)];
    case 'events_html':
      return [generateEventsHtml(withLocale<EventsParams>(task), engine, task.seed, at)];
    case 'merchant_html':
      return [generateMerchantHtml(withLocale<MerchantParams>(task), engine, task.seed, at)];
    case 'merchant_shopping':
      if (variant === 'html') return [generateMerchantHtml(withLocale<MerchantParams>(task), engine, task.seed, at)];
      return [generateMerchant(withLocale<MerchantParams>(task), engine, ctx.settings.merchantItems, task.seed, { now: at })];
    default:
      throw new Error(`no result generator for ${def.result}`);
  }
}
