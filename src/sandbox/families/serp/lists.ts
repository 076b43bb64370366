/** E5 (SERP endpoint list) and E10 (events locations): fixed lists, no charge. */
import type { Envelope } from '../../../api/envelope.js';
import type { Engines, ENGINE_TOKENS } from '../../../config/index.js';
import type { ApiRequest, SandboxContext } from '../../context.js';
import { envelope, pathSegments, taskObject } from '../../envelope.js';
import { baseEcho } from '../../echo.js';
import { EVENTS_LOCATIONS } from '../../data/locations.js';

type Variant = 'regular' | 'advanced' | 'html';
interface SerpType { type: string; taskGet: Variant[]; live: Variant[]; post: boolean }

/** The reference's E5 table, per engine token, plus the events endpoints the catalog defines. */
const SERP_TYPES: Record<(typeof ENGINE_TOKENS)[number], SerpType[]> = {
  engine_a: [
    { type: 'images', taskGet: ['advanced', 'html'], live: ['advanced', 'html'], post: true },
    { type: 'maps', taskGet: ['advanced', 'html'], live: ['advanced', 'html'], post: true },
    { type: 'news', taskGet: ['advanced', 'html'], live: ['advanced', 'html'], post: true },
    { type: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'], post: true },
    { type: 'events', taskGet: ['regular', 'advanced', 'html'], live: [], post: true },
  ],
  engine_b: [
    { type: 'local_pack', taskGet: ['advanced', 'html'], live: [], post: true },
    { type: 'organic', taskGet: ['html', 'regular'], live: ['html', 'regular'], post: true },
  ],
  engine_c: [{ type: 'organic', taskGet: ['html', 'regular'], live: ['regular'], post: true }],
  engine_d: [{ type: 'organic', taskGet: ['html', 'regular'], live: ['regular'], post: true }],
};

/** Every SERP endpoint path (`v3/serp/...`, `$id` where a task id goes) for the configured engines. */
const pathsCache = new WeakMap<Engines, string[]>();

export function serpEndpointPaths(engines: Engines): string[] {
  const hit = pathsCache.get(engines);
  if (hit) return hit;
  const out = ['v3/serp/endpoints', 'v3/serp/tasks_ready'];
  for (const token of Object.keys(SERP_TYPES) as (keyof typeof SERP_TYPES)[]) {
    const e = engines[token];
    out.push(`v3/serp/${e}/languages`, `v3/serp/${e}/locations`, `v3/serp/${e}/tasks_ready`);
    for (const t of SERP_TYPES[token]) {
      const base = `v3/serp/${e}/${t.type}`;
      out.push(`${base}/languages`, `${base}/locations`, `${base}/tasks_ready`);
      if (t.post) out.push(`${base}/task_post`);
      if (t.type === 'events') out.push(`${base}/tasks_fixed`);
      for (const v of t.taskGet) out.push(`${base}/task_get/${v}/$id`);
      for (const v of t.live) out.push(`${base}/live/${v}`);
    }
  }
  pathsCache.set(engines, out);
  return out;
}

export function handleSerpEndpoints(req: ApiRequest, ctx: SandboxContext): Envelope {
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(req.def, ctx.engines), ...Object.fromEntries(req.query) }, result: [serpEndpointPaths(ctx.engines).slice()] });
  return envelope(req.def.version, [task], req.startedNs);
}

export function handleEventsLocations(req: ApiRequest, ctx: SandboxContext): Envelope {
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(req.def, ctx.engines), ...Object.fromEntries(req.query) }, result: EVENTS_LOCATIONS.slice() });
  return envelope(req.def.version, [task], req.startedNs);
}
