/**
 * Which handler answers each catalog endpoint: the family's own handler or live computation where its folder
 * declares one, else the generic handler of the endpoint's kind. Every endpoint of the catalog must have one.
 */
import type { EndpointDef } from '../catalog/endpoint.js';
import { handleTaskGet, handleTaskPost, handleTasksFixed, handleTasksReady } from './handlers/tasks.js';
import { handleLive } from './handlers/live.js';
import { envelope, messageWith, pathSegments, taskObject } from './envelope.js';
import type { Handler, LoadedSandboxes } from './family.js';

export type { Handler } from './family.js';

const notImplemented: Handler = (req) =>
  envelope(req.def.version, [taskObject({ code: 50100, message: messageWith(50100, `${req.def.id} is not emulated yet`), startedNs: req.startedNs, path: pathSegments(req.path), data: {}, result: null })], req.startedNs);

const cache = new WeakMap<LoadedSandboxes, Map<string, Handler>>();

/** The handler of an endpoint, from the families' sandbox parts (resolved once per endpoint). */
export function handlerFor(def: EndpointDef, loaded: LoadedSandboxes): Handler {
  let byId = cache.get(loaded);
  if (!byId) cache.set(loaded, (byId = new Map()));
  let h = byId.get(def.id);
  if (!h) byId.set(def.id, (h = resolve(def, loaded)));
  return h;
}

function resolve(def: EndpointDef, loaded: LoadedSandboxes): Handler {
  const fallback = loaded.fallbacks.map((f) => f(def)).find((x) => x !== undefined);
  const own = loaded.handlers.get(def.id) ?? fallback?.handler;
  if (own) return own;
  const live = loaded.live.get(def.id) ?? fallback?.live;
  if (live) return (req, ctx) => handleLive(req, ctx, live);
  switch (def.kind) {
    case 'task_post': return handleTaskPost;
    case 'tasks_ready': return handleTasksReady;
    case 'tasks_fixed': return handleTasksFixed;
    case 'task_get': {
      const special = loaded.specialGet.get(def.result);
      return special ? (req, ctx) => handleTaskGet(req, ctx, special) : (req, ctx) => handleTaskGet(req, ctx);
    }
    default: return notImplemented;
  }
}
