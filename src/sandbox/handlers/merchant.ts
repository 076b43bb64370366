/** The merchant sandbox id: the all-zero task id returns every item type with dummy data, at no charge. */
import type { ApiTask } from '../../api/envelope.js';
import type { ApiRequest, SandboxContext } from '../context.js';
import { pathSegments, taskObject } from '../envelope.js';
import { baseEcho } from '../echo.js';
import { generateMerchant } from '../data/merchant.js';
import { ZERO_ID } from './tasks.js';

export const ZERO_TASK_PARAMS = { keyword: 'running shoes', location_code: 2840, language_code: 'en' } as const;

export function merchantZeroId(req: ApiRequest, ctx: SandboxContext): ApiTask | undefined {
  if (req.id !== ZERO_ID) return undefined;
  const engine = ctx.engines[req.def.engine ?? 'engine_a'];
  const data = { ...baseEcho(req.def, ctx.engines), ...ZERO_TASK_PARAMS, device: 'desktop', os: 'windows' };
  const result = [generateMerchant(ZERO_TASK_PARAMS, engine, Math.max(ctx.settings.merchantItems, 8), 0, { now: req.now, allTypes: true })];
  return taskObject({ id: ZERO_ID, code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data, result });
}
