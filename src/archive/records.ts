/**
 * From archived or ingested response bodies to collected tasks: which catalog endpoint each task came from.
 * An archive line names its endpoint; an ingested file may not, so the task's own `path` (an array of segments)
 * and `data` (`api`, `function`, `se`, `se_type`) decide, with any engine name accepted (the live service says
 * `google` where the sandbox says `engine_a`).
 */
import { ENDPOINTS, findEndpoint, matchPath } from '../api/catalog.js';
import { type EndpointDef } from '../catalog/endpoint.js';
import { isEnvelope, type ApiTask, type Envelope } from '../api/envelope.js';
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

/**
 * Bad input, named where it is: the file, the 1-based line (1 for a file holding one document), the task id when one
 * can be read, and why. Nothing of a task named here is loaded.
 */
export interface ArchiveProblem {
  file: string; line: number; task: string | null; reason: string;
  /** The last line of a file a killed process left open (`.partial`), cut in its write: said, not bad input (its task was never loaded; a resume fetches it again). */
  crashTail?: true;
}

/** What one line or document gives: the tasks to load, and the tasks (or the whole line) refused, with why. */
export interface LineRead { tasks: CollectedTask[]; problems: { task: string | null; reason: string }[] }

/**
 * The rule for one line of the archive (or one document of an ingested file), pure: a line that is not JSON, a
 * response that is not an envelope, and a task without an id or whose `result` is neither a list nor null are
 * refused by name; every other task is loaded. A body the service sent that was not JSON (`response_text`, kept as
 * received; the run retried it) holds nothing to load and is no problem.
 */
export function readArchiveLine(text: string, engines: Engines | null, runId?: string): LineRead {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { tasks: [], problems: [notJson(text, err)] };
  }
  return readDocument(doc, engines, runId);
}

/** readArchiveLine's rule for a parsed line or document. */
export function readDocument(doc: unknown, engines: Engines | null, runId?: string): LineRead {
  const why = documentProblem(doc);
  if (why) return { tasks: [], problems: [{ task: null, reason: why }] };
  if (!isArchiveRecord(doc)) return readEnvelope(doc as Envelope, { runId }, engines);
  if (doc.response === undefined) return { tasks: [], problems: [] };
  return readEnvelope(doc.response as Envelope, { endpointId: doc.endpoint_id, method: doc.method, path: doc.path, runId: doc.run_id }, engines);
}

/** Why a parsed line or document as a whole holds nothing to load, or null when it is an envelope or an archive line of one (or of a body that was not JSON). */
export function documentProblem(doc: unknown): string | null {
  if (isArchiveRecord(doc)) return doc.response === undefined || isEnvelope(doc.response) ? null : 'response: not an API response envelope (no "tasks" list)';
  return isEnvelope(doc) ? null : 'neither an archive line nor an API response envelope (no "tasks" list)';
}

/** Why a line is not JSON, with the task ids its text still shows (a line cut short keeps its first tasks' ids). */
export function notJson(text: string, err: unknown): { task: string | null; reason: string } {
  return { task: idsInText(text), reason: `not JSON, cut short or corrupted (${(err as Error).message})` };
}

/** The task ids a text that is not JSON still shows, joined, or null. */
export function idsInText(text: string): string | null {
  const ids = new Set<string>();
  // A task object as the service writes it starts with its id, then its status code.
  for (const m of text.matchAll(/\{\s*"id"\s*:\s*"([^"\\]{1,100})"\s*,\s*"status_code"\s*:/g)) ids.add(m[1]);
  return ids.size ? [...ids].join(', ') : null;
}

/** Why a task of an envelope cannot be loaded, or null when it can. */
export function taskProblem(t: unknown): string | null {
  if (!isObj(t)) return 'a task that is not an object';
  if (typeof t.id !== 'string' || !t.id) return 'a task without an id';
  if (t.result !== undefined && t.result !== null && !Array.isArray(t.result)) return `result: not a list (${typeof t.result})`;
  return null;
}

/** The tasks of one envelope, each resolved to its endpoint, and those taskProblem refuses. */
function readEnvelope(env: Envelope, hint: Hint, engines: Engines | null): LineRead {
  const version = typeof env.version === 'string' ? env.version : '';
  const out: LineRead = { tasks: [], problems: [] };
  (env.tasks ?? []).forEach((t: unknown, i) => {
    const problem = taskProblem(t);
    if (problem) {
      const id = isObj(t) && typeof t.id === 'string' && t.id ? t.id : null;
      out.problems.push({ task: id, reason: `tasks[${i}]: ${problem}` });
      return;
    }
    const task = t as ApiTask;
    out.tasks.push({ endpointId: resolveEndpoint(task, hint, engines), task, version, ...(hint.runId ? { runId: hint.runId } : {}) });
  });
  return out;
}
