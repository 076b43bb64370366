/** SERP results of every engine and type: the task_get result of a stored task and the live endpoints' answers. */
import { SERP_ENDPOINTS } from '../../../families/serp/endpoints.js';
import { findEndpoint } from '../../../api/catalog.js';
import { type EndpointDef } from '../../../catalog/endpoint.js';
import { billedPrice } from '../../../api/pricing.js';
import type { ApiRequest, SandboxContext } from '../../context.js';
import type { Envelope } from '../../../api/envelope.js';
import { envelope, pathSegments, taskObject } from '../../envelope.js';
import { baseEcho } from '../../echo.js';
import { EVENTS_LOCATIONS, LANGUAGES } from '../../data/locations.js';
import type { StoredTask } from '../../store.js';
import { generateSerpPage, type SerpPage, type SerpParams, type SerpVariant } from './data.js';
import { resolveLocale } from '../../echo.js';
import { taskSeed } from '../../handlers/tasks.js';
import type { LiveCompute } from '../../family.js';

const variantOf = (def: EndpointDef): SerpVariant => (def.result === 'serp_html' ? 'html' : def.result === 'serp_regular' ? 'regular' : 'advanced');

/** One page of a SERP endpoint for the given (locale-resolved) parameters, as of `at`, with what its bill depends on. */
export function serpPage(def: EndpointDef, params: SerpParams, ctx: SandboxContext, seed: number, at: number): SerpPage {
  const engine = ctx.engines[def.engine ?? 'engine_a'];
  const page = def.billedPage ?? SERP_ENDPOINTS.find((e) => e.id === def.postId)?.billedPage;
  const size = params.device === 'mobile' && page?.mobile ? page.mobile : page?.desktop ?? 10;
  return generateSerpPage(params, engine, def.seType ?? 'organic', variantOf(def), seed, at, size, def.id.split('.')[1]);
}

export function serpResult(def: EndpointDef, params: SerpParams, ctx: SandboxContext, seed: number, at: number): Record<string, unknown> {
  return serpPage(def, params, ctx, seed, at).result;
}

/**
 * What a completed SERP task was billed: the pages it crawled and the options it used. The difference to the price
 * charged at posting goes back to the balance once, when the result is first served.
 */
export function settleSerpTask(def: EndpointDef, task: StoredTask, ctx: SandboxContext, params: SerpParams, at: number): number {
  const postDef = findEndpoint(task.postId)!;
  // The bill is the task's, whichever variant is asked: settled on its structured (advanced) result.
  const structured = findEndpoint(task.postId.replace(/task_post$/, 'task_get.advanced')) ?? def;
  const { billed } = serpPage(structured, params, ctx, task.seed, at);
  const cost = billedPrice(postDef, task.params, ctx.config.prices, billed);
  if (task.billed === undefined) {
    task.billed = cost;
    ctx.records.refund({ endpointId: postDef.id, taskId: task.id, cost: Math.max(0, task.cost - cost), at: ctx.clock.now() });
  }
  return task.billed;
}

/** Live endpoints answer with the result of the posted task at once, billed for what was crawled and used. */
const liveCompute: LiveCompute = (task, req, ctx) => {
  const params = { ...task, ...resolveLocale(task) } as unknown as SerpParams;
  const page = serpPage(req.def, params, ctx, taskSeed(req.def.id, task), ctx.clock.now());
  return { result: [page.result], cost: billedPrice(req.def, task, ctx.config.prices, page.billed) };
};

/** The engines' free lists: locations (one country's by its ISO code in the path) and languages. */
export function handleSerpLocations(req: ApiRequest, ctx: SandboxContext): Envelope {
  const country = req.id?.toUpperCase();
  return listAnswer(req, ctx, EVENTS_LOCATIONS.filter((l) => !country || l.country_iso_code === country).map((l) => ({ ...l })));
}
export function handleSerpLanguages(req: ApiRequest, ctx: SandboxContext): Envelope {
  return listAnswer(req, ctx, LANGUAGES.map(([code, name]) => ({ language_name: name, language_code: code })));
}
function listAnswer(req: ApiRequest, ctx: SandboxContext, result: unknown[]): Envelope {
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(req.def, ctx.engines), ...Object.fromEntries(req.query) }, result });
  return envelope(req.def.version, [task], req.startedNs);
}
export const SERP_LISTS: Record<string, (req: ApiRequest, ctx: SandboxContext) => Envelope> = Object.fromEntries(SERP_ENDPOINTS.filter((e) => e.kind === 'list')
  .map((e) => [e.id, e.result === 'serp_languages' ? handleSerpLanguages : handleSerpLocations]));

export const SERP_LIVE: Record<string, LiveCompute> = Object.fromEntries(SERP_ENDPOINTS.filter((e) => e.kind === 'live').map((e) => [e.id, liveCompute]));
