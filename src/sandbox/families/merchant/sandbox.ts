/** The merchant sandbox id: the all-zero task id returns every item type with dummy data, at no charge. */
import type { ApiTask, Envelope } from '../../../api/envelope.js';
import type { ApiRequest, SandboxContext } from '../../context.js';
import { pathSegments, taskObject } from '../../envelope.js';
import { baseEcho } from '../../echo.js';
import { generateMerchant, generateMerchantHtml, type MerchantParams } from './data.js';
import type { FamilySandbox } from '../../family.js';
import { generatedSandbox } from '../../generated.js';
import { withLocale } from '../../results.js';
import { ZERO_ID } from '../../handlers/tasks.js';
import { handleSerpLocations } from '../serp/sandbox.js';
import { locationByCode, type LocationItem } from '../../data/locations.js';

export const ZERO_TASK_PARAMS = { keyword: 'running shoes', location_code: 2840, language_code: 'en' } as const;

export function merchantZeroId(req: ApiRequest, ctx: SandboxContext): ApiTask | undefined {
  if (req.id !== ZERO_ID) return undefined;
  const engine = ctx.engines[req.def.engine ?? 'engine_a'];
  const data = { ...baseEcho(req.def, ctx.engines), ...ZERO_TASK_PARAMS, device: 'desktop', os: 'windows' };
  const result = [generateMerchant(ZERO_TASK_PARAMS, engine, Math.max(ctx.settings.merchantItems, 8), 0, { now: req.now, allTypes: true })];
  return taskObject({ id: ZERO_ID, code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data, result });
}

/**
 * Google Shopping's locations, which a step of merchant.google.products checks its codes against
 * (src/check/locations.ts): the sandbox's one location list, as SERP's, its parent by name as the client's model has it.
 */
function handleMerchantLocations(req: ApiRequest, ctx: SandboxContext): Envelope {
  const answer = handleSerpLocations(req, ctx);
  for (const t of answer.tasks) {
    t.result = (t.result as LocationItem[] | null)?.map(({ location_code_parent: parent, ...l }) => ({ ...l, location_name_parent: parent ? locationByCode(parent)?.location_name ?? null : null })) ?? null;
  }
  return answer;
}

const sandbox: FamilySandbox = {
  handlers: { 'merchant.google.locations': handleMerchantLocations, 'merchant.google.locations.country': handleMerchantLocations },
  results: {
    merchant_html: (def, task, ctx, at) => [generateMerchantHtml(withLocale<MerchantParams>(task), ctx.engines[def.engine ?? 'engine_a'], task.seed, at)],
    merchant_shopping: (def, task, ctx, at, variant) => {
      const engine = ctx.engines[def.engine ?? 'engine_a'];
      if (variant === 'html') return [generateMerchantHtml(withLocale<MerchantParams>(task), engine, task.seed, at)];
      return [generateMerchant(withLocale<MerchantParams>(task), engine, ctx.settings.merchantItems, task.seed, { now: at })];
    },
  },
  specialGet: { merchant_shopping: merchantZeroId },
  fallback: generatedSandbox.fallback,
};
export default sandbox;
