/**
 * Whether the live service can call a pipeline's callback steps back. A postback or pingback step against the
 * live service with webhook.public_url empty (or naming a private address) posts callback URLs the service
 * cannot reach: nothing is lost (the tasks are fetched by id once their callbacks are overdue), but a run took
 * minutes instead of seconds and said nothing. `plan` and `run` warn before anything is posted.
 */
import { serviceOf } from '../config/service.js';
import type { PipelineStep } from './types.js';

/** Loopback, private (RFC 1918), link-local and unique-local addresses, and single-label host names. */
const PRIVATE = /^(localhost|127(\.\d+){3}|10(\.\d+){3}|192\.168(\.\d+){2}|172\.(1[6-9]|2\d|3[01])(\.\d+){2}|169\.254(\.\d+){2}|\[?::1\]?|\[?f[cd][0-9a-f]{2}:.*|[^.]+)$/i;

export interface CallbackSettings { api: { base_url: string }; webhook: { public_url: string } }

/** The warning for a pipeline whose callbacks cannot reach this machine, or undefined. Pure. */
export function callbackWarning(steps: readonly Pick<PipelineStep, 'name' | 'collect'>[], config: CallbackSettings): string | undefined {
  if (config.api.base_url === 'sandbox' || serviceOf(config.api.base_url).kind !== 'live') return undefined;
  const callback = steps.filter((s) => s.collect === 'postback' || s.collect === 'pingback');
  if (!callback.length) return undefined;
  const url = config.webhook.public_url;
  let why: string;
  if (!url) why = 'webhook.public_url is empty, so the service is given this machine\'s local listening address';
  else {
    let host: string;
    try { host = new URL(url).hostname; } catch { return undefined; } // the configuration's own check names a bad URL
    if (!PRIVATE.test(host)) return undefined;
    why = `webhook.public_url (${url}) is a private address`;
  }
  const names = callback.map((s) => `${s.name} (${s.collect})`).join(', ');
  return `step(s) ${names} collect by callback, but ${why}, which ${serviceOf(config.api.base_url).label} cannot reach: ` +
    'nothing is lost (each task is fetched by id once its callback is overdue, collect.straggler_after_ms), but the run is much slower. ' +
    'Behind NAT or a firewall use collect: tasks_ready; otherwise set webhook.public_url (SEO_ETL_WEBHOOK_PUBLIC_URL) to an address the service can reach.';
}
