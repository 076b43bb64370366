/**
 * A postback carries its results: before they are loaded, the task they claim to be must be the one posted. The
 * callback secret only proves the sender knows the receiver's address (the service does not sign callbacks), so a
 * body is checked against the ledger: its task id is one the run posted (the collector holds it), its tag is the
 * one the task was posted with, and the parameters the service echoes in `data` are those sent. A body that does not
 * match is not loaded and the task stays outstanding, so a later genuine postback (or a fetch by id) still wins.
 */
import type { ApiTask } from '../api/envelope.js';
import type { LedgerTask } from '../ledger/index.js';
import { CALLBACK_FIELDS } from '../pipeline/schema.js';

/** What a postback is checked against: the tag and parameters a task was posted with. */
export type PostedEcho = Pick<LedgerTask, 'tag' | 'params'>;

/**
 * Kept with a postback task while it waits (a ledger read per postback cost milliseconds each, the receiver's
 * whole budget); other modes need none.
 */
export function postedEcho(mode: string, t: PostedEcho): { posted?: PostedEcho } {
  return mode === 'postback' ? { posted: { tag: t.tag, params: t.params } } : {};
}

/** Why an echoed task does not match the task the ledger posted, or undefined when it does. Pure. */
export function postbackMismatch(posted: PostedEcho, task: ApiTask): string | undefined {
  const data = (task.data && typeof task.data === 'object' ? task.data : {}) as Record<string, unknown>;
  if (posted.tag !== null && data.tag !== posted.tag) return `tag ${JSON.stringify(data.tag ?? null)} is not the one posted`;
  for (const [field, sent] of Object.entries(posted.params)) {
    // The callback addresses differ between attempts (and are kept redacted); a field the service does not echo
    // says nothing either way.
    if (CALLBACK_FIELDS.includes(field) || field === 'tag' || !(field in data)) continue;
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
