/** Builds the API's response envelope and task objects exactly as the reference shapes them. */
import { randomUUID } from 'node:crypto';
import { formatSeconds, type ApiTask, type Envelope } from '../api/envelope.js';
import { statusMessage, isTaskError } from '../api/status.js';
import { roundUsd } from '../api/pricing.js';

/** `'POST Data Is Invalid.'` + detail -> `'POST Data Is Invalid: body is not JSON.'`, so every rejection names its cause. */
export function messageWith(code: number, detail?: string): string {
  const base = statusMessage(code);
  if (!detail) return base;
  return `${base.replace(/\.$/, '')}: ${detail.replace(/\.$/, '')}.`;
}

/** Seconds since `startedNs` (a process.hrtime.bigint()), as "0.0123 sec.". */
export function elapsed(startedNs: bigint): string {
  return formatSeconds(Number(process.hrtime.bigint() - startedNs) / 1e9);
}

export interface TaskInit {
  id?: string;
  code: number;
  message?: string;
  startedNs: bigint;
  cost?: number;
  path: string[];
  data: Record<string, unknown>;
  result: unknown[] | null;
}

export function taskObject(t: TaskInit): ApiTask {
  return {
    id: t.id ?? randomUUID(),
    status_code: t.code,
    status_message: t.message ?? statusMessage(t.code),
    time: elapsed(t.startedNs),
    cost: t.cost ?? 0,
    result_count: Array.isArray(t.result) ? t.result.length : t.result ? 1 : 0,
    path: t.path,
    data: t.data,
    result: t.result,
  };
}

export function envelope(version: string, tasks: ApiTask[], startedNs: bigint, code = 20000, message?: string): Envelope {
  let cost = 0;
  let errors = 0;
  for (const t of tasks) {
    cost += t.cost;
    if (isTaskError(t.status_code)) errors++;
  }
  return {
    version,
    status_code: code,
    status_message: message ?? statusMessage(code),
    time: elapsed(startedNs),
    cost: roundUsd(cost),
    tasks_count: tasks.length,
    tasks_error: errors,
    tasks,
  };
}

/** Path segments of a call as the task object's `path` lists them (no leading empty segment, no query). */
export function pathSegments(path: string): string[] {
  return path.split('?')[0].split('/').filter((s) => s.length > 0);
}
