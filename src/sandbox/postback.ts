/** The body of a postback: the envelope task_get would answer for the task, in the variant postback_data names. */
import { findEndpoint, resolvePath } from '../api/catalog.js';
import type { Envelope } from '../api/envelope.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';
import { envelope, pathSegments, taskObject } from './envelope.js';
import { taskBilled, taskResult } from './results.js';

export function postbackEnvelope(task: StoredTask, ctx: SandboxContext): Envelope {
  const startedNs = process.hrtime.bigint();
  const base = task.postId.replace(/\.task_post$/, '');
  const variant = task.callback?.variant ?? 'advanced';
  const def = findEndpoint(`${base}.task_get.${variant}`) ?? findEndpoint(`${base}.task_get`) ?? findEndpoint(`${base}.task_get.advanced`)!;
  const path = pathSegments(resolvePath(def, ctx.engines, { id: task.id }));
  const result = taskResult(def, task, ctx, variant);
  const t = taskObject({ id: task.id, code: 20000, startedNs, path, cost: taskBilled(def, task, ctx), data: { ...task.data, api: def.api, function: def.fn }, result });
  return envelope(def.version, [t], startedNs);
}
