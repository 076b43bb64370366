/** The `result` of a completed task, by the kind of its task_get endpoint; task_get and postbacks share it. */
import type { EndpointDef } from '../api/catalog.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';
import { generateKeywordData, type KeywordParams } from './data/keywords.js';

export function taskResult(def: EndpointDef, task: StoredTask, ctx: SandboxContext): unknown[] {
  const p = task.params;
  switch (def.result) {
    case 'keyword_data': {
      const params: KeywordParams = { ...p, location_code: (task.data.location_code as number) ?? null, language_code: (task.data.language_code as string) ?? null };
      const count = params.keywords ? ctx.settings.suggestionsPerKeyword : ctx.settings.keywordsPerSiteTask;
      return generateKeywordData(params, count, task.seed, { now: task.completeAt });
    }
    default:
      throw new Error(`no result generator for ${def.result}`);
  }
}
