/**
 * From archived or ingested response bodies to collected tasks: which catalog endpoint each task came from.
 * An archive line names its endpoint; an ingested file may not, so the task's own `path` (an array of segments)
 * and `data` (`api`, `function`, `se`, `se_type`) decide, with any engine name accepted (the live service says
 * `google` where the sandbox says `engine_a`).
 */
import { ENDPOINTS, findEndpoint, matchPath } from '../api/catalog.js';
import { type EndpointDef } from '../catalog/endpoint.js';
import { isEnvelope, type ApiTask } from '../api/envelope.js';
import type { Engines } from '../config/index.js';
import type { CollectedTask } from '../normalize/extract.js';

export interface ArchiveRecord {
  run_id?: string;
  seq?: number;
  endpoint_id?: string | null;
  method?: string;
  path?: string;
  received_at?: string;
  http_status?: number;
  response?: unknown;
  response_text?: string;
}

export interface Hint { endpointId?: string | null; method?: string; path?: string; runId?: string }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a parsed JSON value is an archive line (rather than a bare envelope). */
export function isArchiveRecord(v: unknown): v is ArchiveRecord {
  return isObj(v) && ('response' in v || 'response_text' in v) && !('tasks' in v);
}

export { isEnvelope } from '../api/envelope.js';

/** The catalog endpoint of one task: the hint's id when the catalog knows it, else its path, else its data. */
export function resolveEndpoint(task: ApiTask, hint: Hint, engines: Engines | null): string {
  // An archive line of an older version may name an endpoint by its old id: the endpoint it is now.
  const hinted = hint.endpointId ? findEndpoint(hint.endpointId) : undefined;
  if (hinted) return hinted.id;
  const hasResult = Array.isArray(task.result);
  const segments = Array.isArray(task.path) ? task.path.map(String) : [];
  const candidates: string[] = [];
  if (segments.length) candidates.push(`/${segments.join('/')}`);
  if (hint.path) candidates.push(hint.path);
  for (const p of candidates) {
    const methods = hint.method ? [hint.method, hint.method === 'GET' ? 'POST' : 'GET'] : ['GET', 'POST'];
    for (const m of methods) {
      const match = matchPath(m, p, engines, { anyEngine: true });
      if (match) return preferCollected(match.def, hasResult).id;
    }
  }
  const data = isObj(task.data) ? task.data : {};
  const byData = ENDPOINTS.filter((e) => e.api === data.api && (e.fn === data.function || (data.function === 'map' && e.fn === 'endpoints'))
    && (!data.se_type || !e.seType || e.seType === data.se_type));
  if (byData.length) {
    const pick = byData.find((e) => (hasResult ? e.kind !== 'task_post' : e.kind === 'task_post')) ?? byData[0];
    return pick.id;
  }
  return `unknown:${segments.length ? segments.join('/') : hint.path ?? '?'}`;
}

/** A task_post path that carries a result is a postback of the task's result: use the family's task_get. */
function preferCollected(def: EndpointDef, hasResult: boolean): EndpointDef {
  if (def.kind === 'task_post' && hasResult && def.getId) return findEndpoint(def.getId) ?? def;
  return def;
}

/** Collected tasks of one envelope. */
export function tasksOfEnvelope(env: unknown, hint: Hint, engines: Engines | null): CollectedTask[] {
  if (!isEnvelope(env)) return [];
  const version = typeof env.version === 'string' ? env.version : '';
  const out: CollectedTask[] = [];
  for (const t of env.tasks ?? []) {
    if (!isObj(t) || typeof t.id !== 'string') continue;
    const task = t as unknown as ApiTask;
    out.push({ endpointId: resolveEndpoint(task, hint, engines), task, version, ...(hint.runId ? { runId: hint.runId } : {}) });
  }
  return out;
}

/** Collected tasks of one archive line (none for a body that was not JSON). */
export function tasksOfRecord(rec: ArchiveRecord, engines: Engines | null): CollectedTask[] {
  if (rec.response === undefined) return [];
  return tasksOfEnvelope(rec.response, { endpointId: rec.endpoint_id, method: rec.method, path: rec.path, runId: rec.run_id }, engines);
}
