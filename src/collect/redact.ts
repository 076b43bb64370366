/**
 * Callback secrets are kept out of every table. The receiver's addresses carry the run's secret in their path
 * (`/cb/<secret>/pingback`, src/collect/webhook.ts), and they come back: echoed in each task's `data`, and in the
 * service's own log of failed deliveries (`domain_errors`: the address called and the error naming it). The secret
 * is replaced by `<secret>`, as in the log lines; the raw archive keeps the service's answers as they came.
 */
import { findEndpoint } from '../api/catalog.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { Outcome } from './outcome.js';

export const SECRET_MARK = '<secret>';

/** The secret segment of a receiver address (any secret: a killed attempt's receiver had another one). */
const CALLBACK_SECRET = /(\/cb\/)[^/?#\s"']+(?=\/(?:pingback|postback)\b)/g;

/** A text with every receiver secret in it replaced by `<secret>`. */
export function redactSecret(text: string): string {
  return text.includes('/cb/') ? text.replace(CALLBACK_SECRET, `$1${SECRET_MARK}`) : text;
}

/** A copy of `value` with every string redacted (only copied where something changed). */
function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecret(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactDeep(v);
      changed ||= r !== v;
      return r;
    });
    return (changed ? out : value) as T;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = redactDeep(v);
      changed ||= out[k] !== v;
    }
    return (changed ? out : value) as T;
  }
  return value;
}

/** Whose results are the service's log of failed callbacks: each row names the address it called. */
const isDeliveryLog = (endpointId: string) => findEndpoint(endpointId)?.result === 'domain_errors';

/** A result with the secrets of its echoed task data (and, for the delivery log, of its rows) redacted. */
export function redactResult(r: CollectedTask): CollectedTask {
  const data = redactDeep(r.task.data);
  const result = isDeliveryLog(r.endpointId) ? redactDeep(r.task.result) : r.task.result;
  return data === r.task.data && result === r.task.result ? r : { ...r, task: { ...r.task, data, result } };
}

/** An outcome as the sink may store it. */
export function redactOutcome(o: Outcome): Outcome {
  switch (o.kind) {
    case 'failed': return { ...o, message: redactSecret(o.message) };
    case 'call_failed': return { ...o, failures: o.failures.map((f) => ({ ...f, message: redactSecret(f.message) })) };
    case 'collected':
    case 'answered': return { ...o, results: o.results.map(redactResult) };
    default: return o;
  }
}

/** The callback addresses as the ledger keeps them with a planned task (those posted are the receiver's own). */
export function redactCallbacks(callbacks: Record<string, string> | undefined): Record<string, string> | undefined {
  return callbacks && Object.fromEntries(Object.entries(callbacks).map(([k, v]) => [k, redactSecret(v)]));
}
