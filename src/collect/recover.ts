/**
 * Results that arrive outside the usual flow: what an earlier attempt posted or received (resume), and posted
 * tasks the collector did not account for once collection is over (leftovers).
 */
import path from 'node:path';
import { endpoint } from '../api/catalog.js';
import { isTaskError } from '../api/status.js';
import { listArchiveFiles, readLines, readProblem, type ReadReport } from '../archive/reader.js';
import { readArchiveLine } from '../archive/records.js';
import type { CollectedTask } from '../normalize/extract.js';
import type { LedgerTask } from '../ledger/index.js';
import type { Collector } from './collector.js';
import type { CollectContext } from './context.js';
import { trackedFromLedger, modeOf, variantOf } from './tracked.js';

const isTaskPost = (t: { endpointId: string }) => endpoint(t.endpointId).kind === 'task_post';
/** When the ledger recorded the task posted (epoch ms; the ledger's timestamps are UTC). */
const postedAt = (t: LedgerTask) => (t.postedAt ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(t.postedAt) ? t.postedAt : `${t.postedAt.replace(' ', 'T')}Z`) : Number.POSITIVE_INFINITY);

/**
 * tasks_ready lists only tasks completed in the last three days, and never those set with a postback
 * (docs/api-live.md, Limits and account, L1): such a task is fetched by id, not waited for.
 */
export const READY_WINDOW_MS = 3 * 24 * 3600 * 1000;

/** On a resumed run: collect what an earlier attempt posted, and look up batches it left without an answer. */
export async function resumeOutstanding(ctx: CollectContext, collector: Collector): Promise<void> {
  let earlier = 0;
  let old = 0;
  const listedSince = (ctx.now ?? Date.now)() - READY_WINDOW_MS;
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['posted', 'ready'] })) {
    const posted = page.filter((t) => isTaskPost(t) && t.serviceId);
    // Their callbacks went to a receiver that is gone: the service lists them as ready instead, for three days,
    // except those set with a postback, which it never lists (L1): those are fetched by id.
    const byId = (t: LedgerTask) => postedAt(t) < listedSince || t.collect === 'postback';
    collector.track(posted.filter((t) => !byId(t)).map((t) => trackedFromLedger(t, 'tasks_ready')));
    collector.fetchNow(posted.filter(byId).map((t) => trackedFromLedger(t, 'tasks_ready')));
    earlier += posted.length;
    old += posted.filter(byId).length;
  }
  if (earlier) {
    ctx.logger.info({ tasks: earlier, by_id: old }, 'collecting tasks posted by an earlier attempt (by id those tasks_ready does not list: postback tasks, and any posted over three days ago)');
    ctx.progress.add('posted', earlier);
  }
  const ambiguous = (await ctx.ledger.ambiguous(ctx.runId)).filter((t) => isTaskPost(t) && t.tag);
  if (ambiguous.length) {
    ctx.logger.warn({ tasks: ambiguous.length }, 'an earlier attempt stopped while posting: looking its tasks up by tag before any re-post');
    collector.awaitTags(ambiguous.map((t) => ({ key: t.key, tag: t.tag!, postId: t.endpointId, mode: 'tasks_ready' as const, ...variantOf(t) })));
  }
  await recoverLiveAnswers(ctx);
}

/**
 * Live calls an earlier attempt sent but did not record are billed already, and their answers are in this run's
 * raw archive: loaded from there instead of asked (and paid for) again. A task is recognised by the tag it was
 * sent with (single-call tasks of endpoints that take a tag); any other is asked again by callStep.
 */
async function recoverLiveAnswers(ctx: CollectContext): Promise<void> {
  const waiting = (await ctx.ledger.tasks(ctx.runId, { states: ['posting'] }))
    .filter((t) => endpoint(t.endpointId).kind === 'live' && t.tag && (t.paging?.maxPages ?? 1) === 1);
  if (!waiting.length) return;
  const byTag = new Map(waiting.map((t) => [t.tag!, t]));
  const found = new Map<string, { result: CollectedTask; cost: number }>();
  const files = listArchiveFiles(ctx.rawDir).filter((f) => path.basename(f).startsWith(`${ctx.runId}-`));
  const unread = 'an archived live answer could not be read: the call is sent again';
  for (const file of files) {
    const report: ReadReport = { file, lines: 0, droppedBytes: 0 };
    for await (const buf of readLines(file, report)) {
      const line = buf.toString('utf8');
      if (!waiting.some((t) => line.includes(t.key))) continue; // the tag holds the key; skip other lines unparsed
      // The archive's one rule for a line (src/archive/records.ts): a line it refuses is named, its task asked again.
      const read = readArchiveLine(line, null);
      for (const p of read.problems) ctx.logger.warn({ file, line: report.at, task: p.task, reason: p.reason }, unread);
      for (const { task, endpointId, version } of read.tasks) {
        const tag = (task.data as { tag?: unknown } | undefined)?.tag;
        const t = typeof tag === 'string' ? byTag.get(tag) : undefined;
        if (!t || endpointId !== t.endpointId || isTaskError(task.status_code) || !Array.isArray(task.result)) continue;
        found.set(t.key, { result: { endpointId: t.endpointId, task, version }, cost: typeof task.cost === 'number' ? task.cost : 0 });
      }
    }
    const torn = readProblem(report);
    if (torn && waiting.some((t) => report.torn?.includes(t.key))) ctx.logger.warn({ file, line: torn.line, task: torn.task, reason: torn.reason }, unread);
  }
  for (const [key, { result, cost }] of found) {
    await ctx.sink({ kind: 'answered', keys: [key], results: [result], pages: 1, posted: { key, serviceId: result.task.id, cost } });
  }
  if (found.size) ctx.logger.info({ tasks: found.size, asked_again: waiting.length - found.size }, 'live answers an earlier attempt received were loaded from the raw archive, not asked again');
}

/** The message the safety net below logs: tests count it (it must never appear). */
export const LEFTOVERS_MESSAGE = 'posted tasks the collector did not account for: collecting them by id';

/**
 * A safety net, not a way of collecting: once the collector has nothing outstanding, the ledger should hold no
 * task still posted or ready. Any it does is a bug in the collector's bookkeeping (the one known, an adopted task
 * counted nowhere while its id was recorded, is fixed in Collector.adopt): reported as an error naming the tasks,
 * and fetched by id rather than left for `resume`. Returns how many it found. Tasks the collector still counts as
 * outstanding (not finished at the service) are left for `resume`.
 */
export async function collectLeftovers(ctx: CollectContext, collector: Collector): Promise<number> {
  if ((await collector.outstanding()) > 0) return 0;
  let left = 0;
  for await (const page of ctx.ledger.pages(ctx.runId, { states: ['posted', 'ready'] })) {
    const missed = page.filter((t) => isTaskPost(t) && t.serviceId);
    if (!missed.length) continue;
    left += missed.length;
    ctx.logger.error({ tasks: missed.length, keys: missed.slice(0, 20).map((t) => t.key) }, LEFTOVERS_MESSAGE);
    collector.fetchNow(missed.map((t) => trackedFromLedger(t, modeOf(t))));
  }
  if (!left) return 0;
  await collector.drain(Date.now() + ctx.config.collect.drain_timeout_ms);
  await ctx.settled();
  return left;
}
