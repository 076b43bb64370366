/**
 * Callbacks the service failed to deliver (E13) are re-sent for free (webhook_resend, docs/api-live.md
 * [account.webhook_resend]) before a straggler is fetched by id.
 */
import { ENDPOINTS } from '../api/catalog.js';
import type { CollectorOptions, Pending } from './types.js';

/** The list of failed callback deliveries (E13). */
const ERRORS_ID = ENDPOINTS.find((e) => e.result === 'domain_errors')!.id;

/** Of these callback tasks, those E13 lists as failed deliveries that the service agreed to deliver again. */
export async function resendFailed(o: Pick<CollectorOptions, 'client' | 'logger'>, stats: { errorsLookups: number; resent: number }, due: readonly Pending[]): Promise<Set<Pending>> {
  const resent = new Set<Pending>();
  try {
    stats.errorsLookups++;
    const out = await o.client.list(ERRORS_ID, { limit: 1000 });
    const failedIds = new Set((out.ok ? (out.task.result ?? []) : []).map((r) => (r as { id?: string }).id));
    const missed = due.filter((t) => t.mode !== 'tasks_ready' && !t.resent && failedIds.has(t.serviceId));
    if (!missed.length) return resent;
    const outcomes = await o.client.resendWebhooks(missed.map((t) => t.serviceId));
    outcomes.forEach((x, i) => {
      missed[i].resent = true;
      if (x.ok) resent.add(missed[i]);
    });
    stats.resent += resent.size;
    o.logger.warn({ missed: missed.length, resent: resent.size }, 'callbacks failed to reach the receiver; the service sends them again (those it cannot are collected by id)');
  } catch (err) {
    o.logger.warn({ err: (err as Error).message }, 'failed deliveries could not be looked up or re-sent; collecting stragglers by id');
  }
  return resent;
}
