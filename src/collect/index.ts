/**
 * The collect stage: every way a result arrives (polling, callbacks, live and list calls with paging, tasks_fixed,
 * leftovers, recovery from the raw archive) ends as one Outcome handed to the run's sink.
 *
 *   open     the collector (its polled tasks wait in the ledger) and, for callback steps, the webhook receiver
 *   resume   what an earlier attempt posted or received
 *   track    tasks posting just created (or could not confirm): polled, or announced by their callbacks
 *   call     a live or list step
 *   drain    until nothing posted is outstanding (or the drain timeout)
 *   finish   tasks_fixed re-collection, then leftovers the ledger still has as posted
 */
import type { ArchiveEntry } from '../archive/writer.js';
import type { PipelineStep } from '../pipeline/index.js';
import type { PollScope, WaitingTask } from '../ledger/index.js';
import { Collector, type AmbiguousTask, type TrackedTask } from './collector.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook.js';
import type { CollectContext } from './context.js';
import { callStep } from './live.js';
import { recollectFixed } from './fixed.js';
import { collectLeftovers, resumeOutstanding } from './recover.js';
import { redactCallbacks, redactOutcome } from './redact.js';
import { postbackMismatch } from './vouch.js';
import type { LoadPort } from './outcome.js';

export { Collector, type AmbiguousTask, type TrackedTask, type WaitingStore, type CollectorOptions } from './collector.js';
export type { Outcome, Sink, LoadPort } from './outcome.js';
export type { CollectContext } from './context.js';
export { modeOf, variantOf } from './tracked.js';
export { postedEcho } from './vouch.js';

export class Collection {
  private constructor(
    private readonly ctx: CollectContext,
    private readonly collector: Collector,
    private readonly receiver: WebhookReceiver | null,
  ) {}

  /** `archive`: where postback bodies are kept before they are parsed (the raw archive). */
  static async open(given: CollectContext, archive: (e: ArchiveEntry) => Promise<void>): Promise<Collection> {
    // Every way a result arrives ends in the load channel: no callback secret reaches a table (redact.ts).
    const load = redacting(given.load);
    // A producer that awaits its outcome's commit (a live call, an adoption, a call about to be sent) cuts the
    // transaction at once: nothing is gained by waiting for the quiet time while it waits.
    const ctx: CollectContext = { ...given, load, sink: async (o) => (await load.admit(o, { now: true })).done };
    const collector = makeCollector(ctx);
    const { webhook } = ctx.config;
    const receiver = ctx.pipeline.steps.some((s) => s.collect === 'pingback' || s.collect === 'postback')
      ? await startWebhookReceiver({
        host: webhook.listen_host,
        port: webhook.listen_port,
        publicUrl: webhook.public_url,
        maxBodyBytes: webhook.max_body_bytes,
        onPingback: (e) => collector.onPingback(e.id, e.tag),
        onPostback: async (e) => {
          await archive({ endpointId: null, method: 'POST', path: '(postback)', httpStatus: 200, body: e.body, parsed: e.envelope, receivedAt: e.receivedAt });
          return collector.onPostback(e.envelope, e.body.length);
        },
        onRejected: (e) => ctx.logger.warn(e, 'webhook request rejected'),
      })
      : null;
    return new Collection(ctx, collector, receiver);
  }

  /**
   * The callback addresses a step's tasks are posted with (the receiver's address changes between attempts);
   * `planned`: as the ledger keeps them, the secret redacted (posting sends the receiver's own).
   */
  callbacksFor(step: PipelineStep, opts: { planned?: boolean } = {}): Record<string, string> | undefined {
    if (!this.receiver) return undefined;
    const urls: Record<string, string> | undefined = step.collect === 'pingback' ? { pingback_url: this.receiver.pingbackUrl } : step.collect === 'postback' ? { postback_url: this.receiver.postbackUrl } : undefined;
    return opts.planned ? redactCallbacks(urls) : urls;
  }

  resume(): Promise<void> {
    return resumeOutstanding(this.ctx, this.collector);
  }

  track(tasks: readonly TrackedTask[]): void {
    this.collector.track(tasks);
  }

  awaitTags(tasks: readonly AmbiguousTask[]): void {
    this.collector.awaitTags(tasks);
  }

  call(step: PipelineStep): Promise<void> {
    return callStep(this.ctx, step);
  }

  async drain(): Promise<void> {
    await this.collector.drain(Date.now() + this.ctx.config.collect.drain_timeout_ms);
  }

  async finish(): Promise<void> {
    await recollectFixed(this.ctx);
    await this.ctx.settled();
    this.swept += await collectLeftovers(this.ctx, this.collector);
  }

  /** Posted tasks the ledger still had once the collector had nothing outstanding (a bug if ever above 0). */
  swept = 0;

  outstanding(): Promise<number> {
    return this.collector.outstanding();
  }

  /** `recovered`: callback tasks whose callback never came, fetched by id instead. */
  get callbacks(): { received: number; rejected: number; recovered: number } {
    return { received: this.collector.stats.callbacks, rejected: this.receiver?.stats().rejected ?? 0, recovered: this.collector.stats.recovered };
  }

  async close(): Promise<void> {
    await this.receiver?.close().catch(() => undefined);
  }
}

function makeCollector(ctx: CollectContext): Collector {
  const c = ctx.config.collect;
  // The polled tasks of this run: its task_post steps', and all an earlier attempt posted.
  const scope: PollScope = { endpoints: [...new Set(ctx.pipeline.steps.filter((s) => s.kind === 'task_post').map((s) => s.endpointId))], attemptStartedAt: ctx.attemptStartedAt };
  return new Collector({
    client: ctx.client,
    engines: ctx.config.paths,
    logger: ctx.logger,
    pollMinMs: c.poll_min_ms,
    pollMaxMs: c.poll_max_ms,
    stragglerAfterMs: c.straggler_after_ms,
    ambiguousGraceMs: c.ambiguous_grace_ms,
    maxInFlight: Math.max(8, ctx.config.rate_limit.concurrency * 2),
    // Polled tasks wait in the ledger (posted, not loaded), not in the collector's memory; a pipeline that posts
    // nothing has none (and an empty list of endpoints cannot be bound).
    store: !scope.endpoints.length ? undefined : {
      waiting: async () => (await ctx.ledger.pollWaiting(ctx.runId, scope)).map((w) => ({ postId: w.endpointId, count: w.count })),
      lookup: async (ids) => (await ctx.ledger.pollLookup(ctx.runId, scope, ids)).map(trackedOf),
      overdue: async (before, limit) => (await ctx.ledger.pollOverdue(ctx.runId, scope, new Date(before), limit)).map(trackedOf),
    },
    load: ctx.load,
    onReady: () => ctx.progress.add('ready'),
    vouch: async (t, task) => {
      const posted = t.posted ?? (await ctx.ledger.byKey(ctx.runId, t.key));
      return posted ? postbackMismatch(posted, task, ctx.config.paths) : 'not a task of this run';
    },
    onAdopt: async (a, serviceId) => {
      const t = await ctx.ledger.byKey(ctx.runId, a.key);
      await ctx.sink({ kind: 'posted', posted: [{ key: a.key, serviceId, cost: t?.price ?? 0 }] });
      ctx.logger.info({ task: a.key, service_id: serviceId }, 'ambiguous POST resolved: the service has the task');
      ctx.progress.add('posted');
    },
    onGiveUp: async (ts) => {
      await ctx.sink({ kind: 'released', keys: ts.map((t) => t.key), reason: 'not found at the service after an unclear POST' });
      ctx.logger.warn({ tasks: ts.length }, 'ambiguous POST: the service never listed these tasks; they are posted again');
    },
  });
}

/** The load channel as collection uses it: every outcome redacted on its way in. */
function redacting(load: LoadPort): LoadPort {
  return {
    admit: (o, opts) => load.admit(redactOutcome(o), opts),
    reserve: async (sizeKey) => {
      const hold = await load.reserve(sizeKey);
      return { admit: (o, opts) => hold.admit(redactOutcome(o), opts), cancel: () => hold.cancel() };
    },
    flush: () => load.flush(),
    idle: () => load.idle(),
  };
}

function trackedOf(w: WaitingTask): TrackedTask {
  return { key: w.key, serviceId: w.serviceId, postId: w.endpointId, mode: 'tasks_ready', ...(w.postbackData ? { variant: w.postbackData } : {}) };
}
