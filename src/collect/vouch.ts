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

/** Equal as sent and as echoed: numbers may come back as text and text in another case, nothing else differs. */
function sameValue(sent: unknown, echoed: unknown): boolean {
  if (sent === echoed) return true;
  if (typeof sent === 'object' || typeof echoed === 'object') return JSON.stringify(sent) === JSON.stringify(echoed);
  return String(sent).trim().toLowerCase() === String(echoed).trim().toLowerCase();
}
