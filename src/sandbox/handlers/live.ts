/**
 * Live and list endpoints with a POST body (E6, E7, E13, E14): one task per call (the rest get the overflow
 * code), each validated by the catalog, answered in the same response and billed per request where priced.
 */
import { randomUUID } from 'node:crypto';
import type { ApiTask, Envelope } from '../../api/envelope.js';
import { validateTask } from '../../api/validate.js';
import { taskPrice } from '../../api/pricing.js';
import { formatTimestamp } from '../../api/envelope.js';
import type { ApiRequest, SandboxContext } from '../context.js';
import { elapsed, envelope, messageWith, pathSegments, taskObject } from '../envelope.js';
import { rejectedEcho } from '../echo.js';
import { FilterError } from '../filters.js';
import { issuesStatus } from './tasks.js';
import type { LiveCompute, LiveOutcome } from '../family.js';


export function handleLive(req: ApiRequest, ctx: SandboxContext, compute: LiveCompute): Envelope {
  const { def } = req;
  const path = pathSegments(req.path);
  const max = def.maxTasksPerPost ?? 1;
  const out: ApiTask[] = [];
  req.body.forEach((raw, i) => {
    const startedNs = process.hrtime.bigint();
    const id = randomUUID();
    const data = rejectedEcho(def, ctx.engines, raw);
    const fail = (code: number, message: string) => {
      const t = taskObject({ id, code, message, startedNs, path, data, result: null });
      out.push(t);
      if (def.api === 'domain_analytics' && def.id !== 'domain_analytics.errors') {
        const at = ctx.clock.now();
        ctx.records.errors.push({
          id, datetime: formatTimestamp(new Date(at)), function: path.slice(1).join('/'), error_code: code, error_message: message,
          http_url: req.path, http_method: def.method, http_code: 200, http_time: Number(elapsed(startedNs).split(' ')[0]), http_response: '', at,
        });
      }
    };
    if (i >= max) {
      const code = def.overflowCode ?? 40000;
      return fail(code, messageWith(code, `task ${i + 1} is past the ${max} task${max === 1 ? '' : 's'} one call may hold`));
    }
    const issues = validateTask(def, raw, { now: new Date(req.now) });
    if (issues.length) {
      const s = issuesStatus(issues);
      return fail(s.code, s.message);
    }
    if (req.taskFault()) return fail(50000, messageWith(50000));
    let outcome: LiveOutcome;
    try {
      outcome = compute(raw as Record<string, unknown>, req, ctx);
    } catch (e) {
      if (e instanceof FilterError) return fail(40501, e.message);
      throw e;
    }
    if ('code' in outcome) return fail(outcome.code, outcome.message);
    const cost = def.billing !== 'request' ? 0 : outcome.cost ?? taskPrice(def, raw as Record<string, unknown>, ctx.config.prices);
    ctx.records.charge({ endpointId: def.id, taskId: id, cost, at: req.now });
    out.push(taskObject({ id, code: 20000, startedNs, cost, path, data, result: outcome.result }));
  });
  return envelope(def.version, out, req.startedNs);
}
