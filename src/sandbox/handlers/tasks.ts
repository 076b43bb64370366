/** The task families' endpoints: task_post, tasks_ready, task_get and tasks_fixed, all driven by the catalog. */
import type { ApiTask, Envelope } from '../../api/envelope.js';
import { ENDPOINTS, findEndpoint, resolvePath } from '../../api/catalog.js';
import { type EndpointDef } from '../../catalog/endpoint.js';
import { validateTask } from '../../api/validate.js';
import { taskPrice } from '../../api/pricing.js';
import { formatTimestamp } from '../../api/envelope.js';
import type { ApiRequest, SandboxContext } from '../context.js';
import { envelope, messageWith, pathSegments, taskObject } from '../envelope.js';
import { acceptedEcho, baseEcho, rejectedEcho } from '../echo.js';
import { referenceDataIssues } from '../semantic.js';
import { seedOf } from '../data/prng.js';
import { taskBilled, taskResult } from '../results.js';
import type { StoredTask } from '../store.js';
import type { SpecialGet } from '../family.js';
import { readyElement } from '../generated.js';

export const ZERO_ID = '00000000-0000-0000-0000-000000000000';
/** Parameters that say where results go or how they are labelled, not what is asked: never part of the data seed. */
const NOT_SEEDED = new Set(['pingback_url', 'postback_url', 'postback_data', 'tag']);

/** The seed of a posted task: the same question gives the same data whatever its callback address or tag. */
export function taskSeed(postId: string, params: Record<string, unknown>): number {
  return seedOf(postId, Object.fromEntries(Object.entries(params).filter(([k]) => !NOT_SEEDED.has(k))));
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which status a list of issues gets: the first issue decides, the message names every issue (up to 5). */
export function issuesStatus(issues: { code: number; message: string }[]): { code: number; message: string } {
  const shown = issues.slice(0, 5).map((i) => i.message);
  if (issues.length > 5) shown.push(`and ${issues.length - 5} more.`);
  return { code: issues[0].code, message: shown.join(' ') };
}

export function handleTaskPost(req: ApiRequest, ctx: SandboxContext): Envelope {
  const { def } = req;
  const path = pathSegments(req.path);
  const max = def.maxTasksPerPost ?? 100;
  const out: ApiTask[] = [];
  const locationsPath = resolvePath(findEndpoint('serp.events.locations')!, ctx.engines);
  req.body.forEach((raw, i) => {
    const startedNs = process.hrtime.bigint();
    if (i >= max) {
      const code = def.overflowCode ?? 40006;
      out.push(taskObject({ code, message: messageWith(code, `task ${i + 1} is past the ${max} tasks one POST may hold`), startedNs, path, data: rejectedEcho(def, ctx.engines, raw), result: null }));
      return;
    }
    const issues = validateTask(def, raw, { now: new Date(req.now) });
    if (issues.length === 0) issues.push(...referenceDataIssues(def, raw as Record<string, unknown>, locationsPath));
    if (issues.length) {
      const { code, message } = issuesStatus(issues);
      out.push(taskObject({ code, message, startedNs, path, data: rejectedEcho(def, ctx.engines, raw), result: null }));
      return;
    }
    if (req.taskFault()) {
      out.push(taskObject({ code: 50000, startedNs, path, data: rejectedEcho(def, ctx.engines, raw), result: null }));
      return;
    }
    const params = raw as Record<string, unknown>;
    const dup = ctx.account.duplicate(taskSeed(def.id, params), req.now);
    if (dup) {
      out.push(taskObject({ code: dup.code, message: messageWith(dup.code, dup.detail), startedNs, path, data: rejectedEcho(def, ctx.engines, raw), result: null }));
      return;
    }
    const cost = taskPrice(def, params, ctx.config.prices);
    const data = acceptedEcho(def, ctx.engines, params);
    const task = ctx.store.add({
      postId: def.id, params, data, cost, seed: taskSeed(def.id, params), now: req.now,
      completionDelayMs: ctx.settings.completionDelayMs, reparseShare: ctx.settings.reparseShare,
      reparsable: Boolean(findEndpoint(def.id.replace(/task_post$/, 'tasks_fixed'))),
    });
    ctx.records.postings.push({ id: task.id, endpointId: def.id, tag: task.tag, data, cost, postedAt: req.now });
    ctx.records.charge({ endpointId: def.id, taskId: task.id, cost, at: req.now });
    if (task.callback) ctx.onCallbackScheduled();
    out.push(taskObject({ id: task.id, code: 20100, startedNs, cost, path, data, result: null }));
  });
  return envelope(def.version, out, req.startedNs);
}

/** The task_get paths a ready-list element points at, by variant; null where the family has no such variant. */
function getterPaths(postDef: EndpointDef, ctx: SandboxContext, id: string): Record<string, string | null> {
  const base = postDef.id.replace(/\.task_post$/, '');
  const path = (getId: string) => {
    const d = findEndpoint(getId);
    return d ? resolvePath(d, ctx.engines, { id }) : null;
  };
  return {
    plain: path(`${base}.task_get`),
    regular: path(`${base}.task_get.regular`),
    advanced: path(`${base}.task_get.advanced`),
    html: path(`${base}.task_get.html`),
  };
}

function readyItem(postDef: EndpointDef, task: StoredTask, ctx: SandboxContext): Record<string, unknown> {
  const paths = getterPaths(postDef, ctx, task.id);
  const item: Record<string, unknown> = { id: task.id, se: task.data.se ?? null };
  if (postDef.seType) item.se_type = postDef.seType;
  else if (postDef.engine === 'keywords_data') item.se_type = postDef.fn; // the ads API's models: se_type (formerly `function`)
  item.date_posted = formatTimestamp(new Date(task.postedAt));
  item.tag = task.tag;
  if (postDef.api === 'keywords_data') item.endpoint = paths.plain;
  else if (postDef.api === 'merchant') Object.assign(item, { endpoint_advanced: paths.advanced, endpoint_html: paths.html });
  else Object.assign(item, { endpoint_regular: paths.regular, endpoint_advanced: paths.advanced, endpoint_html: paths.html });
  return item;
}

export function handleTasksReady(req: ApiRequest, ctx: SandboxContext): Envelope {
  const { def } = req;
  // A family-wide ready list (`/v3/merchant/tasks_ready`) lists the tasks of every task_post of its family.
  const posts = def.postId && findEndpoint(def.postId) ? [findEndpoint(def.postId)!] : ENDPOINTS.filter((e) => e.kind === 'task_post' && e.api === def.api);
  const limit = def.maxResultsPerCall ?? 1000;
  const ready = posts.flatMap((p) => ctx.store.ready(p.id, req.now, limit).map((t) => ({ t, p }))).slice(0, limit);
  // A generated family's ready list has the fields its model declares (generated.ts); the others their own.
  const result = ready.map(({ t, p: postDef }) => {
    const item = readyItem(postDef, t, ctx);
    const paths = getterPaths(postDef, ctx, t.id);
    return def.ref === 'client' ? readyElement(def, { ...item, endpoint: paths.plain ?? paths.advanced ?? paths.regular, function: postDef.fn, se_type: postDef.seType ?? postDef.fn }) ?? item : item;
  });
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(def, ctx.engines), ...Object.fromEntries(req.query) }, result });
  return envelope(def.version, [task], req.startedNs);
}

export function handleTasksFixed(req: ApiRequest, ctx: SandboxContext): Envelope {
  const { def } = req;
  const postDef = findEndpoint(def.postId!)!;
  const fixed = ctx.store.fixed(postDef.id, req.now, def.maxResultsPerCall ?? 1000);
  const result = fixed.map((t) => {
    const paths = getterPaths(postDef, ctx, t.id);
    const item = {
      id: t.id, se: t.data.se ?? null, se_type: postDef.seType ?? null,
      // The SERP types' lists carry the posting time (client Serp*TasksFixedResultInfo); events keep the reference's date_fixed.
      ...(postDef.seType === 'events' ? { date_fixed: formatTimestamp(new Date(t.reparsedAt!)) } : { date_posted: formatTimestamp(new Date(t.postedAt)) }), tag: t.tag,
      endpoint_regular: paths.regular, endpoint_advanced: paths.advanced, endpoint_html: paths.html,
    };
    // A family declared from the models lists what its model declares; the hand-written ones keep their own fields.
    return def.ref === 'client' ? readyElement(def, { ...item, date_fixed: formatTimestamp(new Date(t.reparsedAt!)), date_posted: formatTimestamp(new Date(t.postedAt)), endpoint: paths.plain }) ?? item : item;
  });
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(def, ctx.engines), ...Object.fromEntries(req.query) }, result });
  return envelope(def.version, [task], req.startedNs);
}


export function handleTaskGet(req: ApiRequest, ctx: SandboxContext, special?: SpecialGet): Envelope {
  const { def } = req;
  const id = req.id ?? '';
  const path = pathSegments(req.path);
  const startedNs = req.startedNs;
  const getEcho = { ...baseEcho(def, ctx.engines), ...Object.fromEntries(req.query) };
  const one = (t: ApiTask) => envelope(def.version, [t], startedNs);
  const pre = special?.(req, ctx);
  if (pre) return one(pre);
  if (!UUID.test(id)) {
    return one(taskObject({ id, code: 40501, message: messageWith(40501, `'id' in the path must be a task id in UUID format (got ${JSON.stringify(id.slice(0, 80))})`), startedNs, path, data: getEcho, result: null }));
  }
  if (req.taskFault()) return one(taskObject({ id, code: 50000, startedNs, path, data: getEcho, result: null }));
  const outcome = ctx.store.collect(id, def.postId!, req.now);
  switch (outcome.status) {
    case 'not_found':
      return one(taskObject({ id, code: 40401, message: messageWith(40401, `no task with id ${id} was posted to this account`), startedNs, path, data: getEcho, result: null }));
    case 'other_function': {
      const other = findEndpoint(outcome.task.postId)!;
      const code = other.api === def.api ? 40004 : 40401;
      return one(taskObject({ id, code, message: messageWith(code, `task ${id} was posted to ${other.id}, not to ${def.postId}`), startedNs, path, data: getEcho, result: null }));
    }
    case 'in_queue':
      return one(taskObject({ id, code: 40602, startedNs, path, data: { ...outcome.task.data, api: def.api, function: def.fn }, result: null }));
    case 'expired':
      return one(taskObject({ id, code: 40403, message: messageWith(40403, `results are kept 30 days after completion; task ${id} completed ${formatTimestamp(new Date(outcome.task.completeAt))}`), startedNs, path, data: { ...outcome.task.data, api: def.api, function: def.fn }, result: null }));
    case 'ok': {
      const result = taskResult(def, outcome.task, ctx);
      // The answer's cost is what the task was billed (SERP: after the refunds of pages and options not used).
      const cost = taskBilled(def, outcome.task, ctx);
      return one(taskObject({ id, code: 20000, startedNs, path, cost, data: { ...outcome.task.data, api: def.api, function: def.fn }, result }));
    }
  }
}
