/** A ledger task as the collector tracks it. */
import type { LedgerTask } from '../ledger/index.js';
import type { PipelineStep } from '../pipeline/index.js';
import type { TrackedTask } from './types.js';

/** How a step's (or a ledger task's) results are collected. */
export function modeOf(of: { collect: PipelineStep['collect'] }): TrackedTask['mode'] {
  return of.collect === 'pingback' || of.collect === 'postback' ? of.collect : 'tasks_ready';
}

/** For events: which task_get variant to fetch (the postback_data it was posted with). */
export function variantOf(t: LedgerTask): { variant?: string } {
  const v = t.params.postback_data;
  return typeof v === 'string' ? { variant: v } : {};
}

export function trackedFromLedger(t: LedgerTask, mode: TrackedTask['mode']): TrackedTask {
  return { key: t.key, serviceId: t.serviceId!, postId: t.endpointId, mode, ...variantOf(t) };
}
