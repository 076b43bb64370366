/** The account endpoints: user_data (balance, limits and their use) and webhook_resend (re-delivery, free). */
import type { FamilySandbox } from '../../family.js';
import { generatedSandbox } from '../../generated.js';
import type { Envelope } from '../../../api/envelope.js';
import { validateTask } from '../../../api/validate.js';
import type { ApiRequest, SandboxContext } from '../../context.js';
import { envelope, messageWith, pathSegments, taskObject } from '../../envelope.js';
import { baseEcho } from '../../echo.js';
import { issuesStatus } from '../../handlers/tasks.js';
import { DAY_MS } from '../../clock.js';

export function handleUserData(req: ApiRequest, ctx: SandboxContext): Envelope {
  const { account, config, records } = ctx;
  const s = config.sandbox;
  const now = req.now;
  const callsSince = (from: number) => records.calls.filter((c) => c.at >= from).length;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const spentLastMinute = Math.round(records.charges.filter((c) => c.at > now - 60_000).reduce((a, c) => a + c.cost, 0) * 1e6) / 1e6;
  const result = [{
    login: s.login,
    timezone: s.account_timezone,
    rates: {
      limits: { day: { total: null }, minute: { total: s.rate_limit_calls } },
      statistics: { day: { total: callsSince(today) }, minute: { total: callsSince(now - s.rate_limit_window_ms) } },
    },
    money: {
      total: account.settings.funds,
      balance: account.balance(),
      limits: { day: { total: account.settings.dailyCostLimit }, minute: { total: null } },
      statistics: { day: { total: account.spentToday(now) }, minute: { total: spentLastMinute } },
    },
    price: {},
    backlinks_subscription_expiry_date: null,
    llm_mentions_subscription_expiry_date: null,
  }];
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: baseEcho(req.def, ctx.engines), result });
  return envelope(req.def.version, [task], req.startedNs);
}

export function handleWebhookResend(req: ApiRequest, ctx: SandboxContext): Envelope {
  const { def } = req;
  const path = pathSegments(req.path);
  const max = def.maxTasksPerPost ?? 100;
  const tasks = req.body.map((raw, i) => {
    const startedNs = process.hrtime.bigint();
    const data = { ...baseEcho(def, ctx.engines), ...(raw && typeof raw === 'object' ? raw : {}) };
    if (i >= max) return taskObject({ code: 40006, message: messageWith(40006, `task ${i + 1} is past the ${max} ids one call may hold`), startedNs, path, data, result: null });
    const issues = validateTask(def, raw);
    if (issues.length) {
      const { code, message } = issuesStatus(issues);
      return taskObject({ code, message, startedNs, path, data, result: null });
    }
    const id = (raw as { id: string }).id;
    const task = ctx.store.get(id);
    if (!task) return taskObject({ id, code: 40401, message: messageWith(40401, `no task with id ${id} was posted to this account`), startedNs, path, data, result: null });
    if (!task.callback) return taskObject({ id, code: 40501, message: messageWith(40501, `task ${id} was set without a pingback_url or postback_url`), startedNs, path, data, result: null });
    if (req.now < task.completeAt) return taskObject({ id, code: 40602, startedNs, path, data, result: null });
    ctx.store.requeueCallback(task);
    ctx.onCallbackScheduled();
    // Free: the task is never billed again.
    return taskObject({ id, code: 20100, startedNs, path, data: { ...task.data, api: 'appendix', function: 'webhook_resend' }, result: null });
  });
  return envelope(def.version, tasks, req.startedNs);
}

const sandbox: FamilySandbox = {
  handlers: { 'appendix.user_data': handleUserData, 'appendix.webhook_resend': handleWebhookResend },
  fallback: generatedSandbox.fallback,
};
export default sandbox;
