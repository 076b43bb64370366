/** Wire types of the API's response envelope and task object (as the API reference defines them). */
export interface ApiTask<R = unknown> {
  id: string;
  status_code: number;
  status_message: string;
  time: string;
  cost: number;
  result_count: number;
  path: string[];
  data: Record<string, unknown>;
  result: R[] | null;
}

export interface Envelope<R = unknown> {
  version: string;
  status_code: number;
  status_message: string;
  time: string;
  cost: number;
  tasks_count: number;
  tasks_error: number;
  tasks: ApiTask<R>[];
}

/**
 * Whether a parsed value is a response envelope: an object with a `tasks` list, or with `tasks: null` and a status
 * code (a call refused as a whole). The client, the archive reader and ingest all decide by this one rule.
 */
export function isEnvelope(v: unknown): v is Envelope {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const e = v as Partial<Envelope> & { tasks?: unknown };
  return Array.isArray(e.tasks) || (e.tasks === null && typeof e.status_code === 'number');
}

/** `"0.0123 sec."` as the service writes execution times. */
export function formatSeconds(seconds: number): string {
  return `${seconds.toFixed(4)} sec.`;
}

/** Parses `"0.0818 sec."` (or a bare number) to seconds; null when it is not a time. */
export function parseSeconds(text: unknown): number | null {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return null;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(?:sec\.?|s)?\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** `yyyy-mm-dd hh:mm:ss +00:00`, the service's UTC timestamp pattern. */
export function formatTimestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +00:00`;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/** Whether a timestamp carries a zone or offset (events give a local time without one); null when it is no timestamp. */
export function timestampHasZone(text: unknown): boolean | null {
  if (typeof text !== 'string') return null;
  const m = TIMESTAMP.exec(text.trim());
  return m ? Boolean(m[8]) : null;
}

/** Parses the service's timestamp pattern (and ISO 8601) to a Date, reading one without a zone as UTC; null for anything else. */
export function parseTimestamp(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const zone = !m[8] || m[8] === 'Z' ? 'Z' : m[8].length === 5 ? `${m[8].slice(0, 3)}:${m[8].slice(3)}` : m[8];
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d;
}
