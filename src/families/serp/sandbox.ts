/** SERP results of every engine and type: the task_get result of a stored task and the live endpoints' answers. */
import { SERP_ENDPOINTS } from './endpoints.js';
import type { EndpointDef } from '../../api/catalog.js';
import type { SandboxContext } from '../../sandbox/context.js';
import { generateSerp, type SerpParams, type SerpVariant } from './data.js';
import { resolveLocale } from '../../sandbox/echo.js';
import { taskSeed } from '../../sandbox/handlers/tasks.js';
import type { LiveCompute } from '../../sandbox/handlers/live.js';

const variantOf = (def: EndpointDef): SerpVariant => (def.result === 'serp_html' ? 'html' : def.result === 'serp_regular' ? 'regular' : 'advanced');

/** One result of a SERP endpoint for the given (locale-resolved) parameters, as of `at`. */
export function serpResult(def: EndpointDef, params: SerpParams, ctx: SandboxContext, seed: number, at: number): Record<string, unknown> {
  const engine = ctx.engines[def.engine ?? 'engine_a'];
  const page = def.billedPage ?? SERP_ENDPOINTS.find((e) => e.id === def.postId)?.billedPage;
  const size = params.device === 'mobile' && page?.mobile ? page.mobile : page?.desktop ?? 10;
  return generateSerp(params, engine, def.seType ?? 'organic', variantOf(def), seed, at, size);
}

/** Live endpoints answer with the result of the posted task at once. */
const liveCompute: LiveCompute = (task, req, ctx) => {
  const params = { ...task, ...resolveLocale(task) } as unknown as SerpParams;
  return { result: [serpResult(req.def, params, ctx, taskSeed(req.def.id, task), ctx.clock.now())] };
};

export const SERP_LIVE: Record<string, LiveCompute> = Object.fromEntries(SERP_ENDPOINTS.filter((e) => e.kind === 'live').map((e) => [e.id, liveCompute]));
