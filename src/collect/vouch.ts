/**
 * A postback carries its results: before they are loaded, the task they claim to be must be the one posted. The
 * callback secret only proves the sender knows the receiver's address (the service does not sign callbacks), so a
 * body is checked against the ledger and the endpoint's declarations: its task id is one the run posted (the
 * collector holds it), and its `data` holds everything the service always echoes for that endpoint, each equal to
 * what was sent: `api`, `function` (the endpoint's or one of its getters'), `se` and `se_type` where the endpoint
 * declares them, the tag, and every parameter posted. A body that does not match is not loaded and the task stays
 * outstanding, so a later genuine postback (or a fetch by id) still wins.
 */
import { ENDPOINTS, findEndpoint } from '../api/catalog.js';
import type { ApiTask } from '../api/envelope.js';
import type { Engines } from '../config/index.js';
import type { LedgerTask } from '../ledger/index.js';
import { CALLBACK_FIELDS } from '../pipeline/schema.js';

/** What a postback is checked against: the endpoint, tag and parameters a task was posted with. */
export type PostedEcho = Pick<LedgerTask, 'endpointId' | 'tag' | 'params'>;

/**
 * Kept with a postback task while it waits (a ledger read per postback cost milliseconds each, the receiver's
 * whole budget); other modes need none.
 */
export function postedEcho(mode: string, t: PostedEcho): { posted?: PostedEcho } {
  return mode === 'postback' ? { posted: { endpointId: t.endpointId, tag: t.tag, params: t.params } } : {};
}

/** The names the service echoes for a posting endpoint, from its declarations: `function` may be a getter's. */
export function declaredEcho(endpointId: string, engines: Engines): { api: string; functions: string[]; se?: string; se_type?: string } | undefined {
  const def = findEndpoint(endpointId);
  if (!def) return undefined;
  const functions = [def.fn, ...ENDPOINTS.filter((e) => e.kind === 'task_get' && e.postId === def.id).map((e) => e.fn)];
  return { api: def.api, functions: [...new Set(functions)], ...(def.engine ? { se: engines[def.engine] } : {}), ...(def.seType ? { se_type: def.seType } : {}) };
}

/** Why an echoed task does not match the task the ledger posted, or undefined when it does. Pure. */
export function postbackMismatch(posted: PostedEcho, task: ApiTask, engines: Engines): string | undefined {
  const data = (task.data && typeof task.data === 'object' ? task.data : {}) as Record<string, unknown>;
  const names = declaredEcho(posted.endpointId, engines);
  if (!names) return `${posted.endpointId} is not an endpoint this version knows`;
  if (data.api !== names.api) return `api ${JSON.stringify(data.api ?? null)} is not ${JSON.stringify(names.api)}`;
  if (!names.functions.includes(data.function as string)) return `function ${JSON.stringify(data.function ?? null)} is not one of ${names.functions.join(', ')}`;
  for (const k of ['se', 'se_type'] as const) {
    if (names[k] !== undefined && !sameValue(names[k], data[k])) return `${k} ${JSON.stringify(data[k] ?? null)} is not ${JSON.stringify(names[k])}`;
  }
  if (posted.tag !== null && data.tag !== posted.tag) return `tag ${JSON.stringify(data.tag ?? null)} is not the one posted`;
  for (const [field, sent] of Object.entries(posted.params)) {
    // The callback addresses differ between attempts (and are kept redacted).
    if (CALLBACK_FIELDS.includes(field) || field === 'tag') continue;
    // The service echoes every parameter posted: one missing is not its echo.
    if (!(field in data)) return `${field} is missing from the echo`;
    if (!sameValue(sent, data[field])) return `${field} ${JSON.stringify(data[field])} is not the ${JSON.stringify(sent)} posted`;
  }
  return undefined;
}

/** A scalar as compared: numbers may come back as text and text in another case or spacing. */
const norm = (v: unknown) => String(v).trim().toLowerCase();

/**
 * Equal as sent and as echoed. A list (keywords) may come back deduplicated or reordered: the same set of values.
 * Nested objects (filter expressions) may be re-serialised by the service: not compared (the tag and the scalar
 * parameters identify the task).
 */
function sameValue(sent: unknown, echoed: unknown): boolean {
  if (sent === echoed) return true;
  if (Array.isArray(sent) && Array.isArray(echoed)) {
    if (sent.some((v) => v !== null && typeof v === 'object')) return true;
    const a = new Set(sent.map(norm));
    const b = new Set(echoed.map(norm));
    return a.size === b.size && [...a].every((v) => b.has(v));
  }
  if ((sent !== null && typeof sent === 'object') || (echoed !== null && typeof echoed === 'object')) return Array.isArray(sent) === Array.isArray(echoed) && !Array.isArray(sent);
  return norm(sent) === norm(echoed);
}
