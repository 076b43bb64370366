/**
 * The request pipeline: test controls apart, then authentication, the account's sliding-window rate limit,
 * routing through the catalog, per-endpoint sub-limits, injected faults, body parsing, and the handler.
 * Nothing a client sends may crash it: every step answers an envelope naming the problem.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointDef } from '../catalog/endpoint.js';
import { findEndpoint, matchPath, ENDPOINTS } from '../api/catalog.js';
import type { Envelope } from '../api/envelope.js';
import type { SandboxContext, ApiRequest } from './context.js';
import { checkBasicAuth } from './auth.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { envelope, messageWith } from './envelope.js';
import { readBody, parseTasks, sendJson } from './http-io.js';
import { handlerFor } from './routes.js';
import { conformEnvelope } from './generated.js';
import type { Faults } from './faults.js';
import type { CallRecord } from './records.js';

/** The version answered where no endpoint is known (unknown paths, auth failures). */
const GENERIC_VERSION = '0.1.20240801';

export interface PipelineDeps {
  ctx: SandboxContext;
  faults: Faults;
  accountLimiter: SlidingWindowLimiter;
  /** Called on every API request before anything else (starts due callback deliveries). */
  beforeRequest(): void;
}

function bare(version: string, code: number, startedNs: bigint, detail?: string): Envelope {
  return envelope(version, [], startedNs, code, messageWith(code, detail));
}

/** Why a path matched no endpoint: a wrong engine or variant segment in a known family, or nothing known. */
function explainUnmatched(method: string, path: string, ctx: SandboxContext): { code: 40400 | 40402; httpStatus: number; detail: string } {
  const anyEngine = matchPath(method, path, ctx.engines, { anyEngine: true });
  if (anyEngine) {
    const configured = anyEngine.def.engine ? ctx.engines[anyEngine.def.engine] : undefined;
    return { code: 40402, httpStatus: 404, detail: `engine segment '${anyEngine.engineSegment}' is not configured here (this family uses '${configured}')` };
  }
  const other = method === 'GET' ? 'POST' : 'GET';
  const otherMethod = matchPath(other, path, ctx.engines, { anyEngine: true });
  if (otherMethod) return { code: 40400, httpStatus: 405, detail: `${path} takes ${other}, not ${method}` };
  const segs = path.split('/');
  for (const def of ENDPOINTS) {
    const tpl = def.path.split('/');
    if (tpl.length !== segs.length || def.method !== method) continue;
    const differing = tpl.map((t, i) => (t === segs[i] || /^\{.+\}$/.test(t) ? -1 : i)).filter((i) => i >= 0);
    if (differing.length === 1 && differing[0] > 3) {
      const i = differing[0];
      return { code: 40402, httpStatus: 404, detail: `path segment ${i} '${segs[i]}' is not valid here (expected '${tpl[i]}', as in ${def.path})` };
    }
  }
  return { code: 40400, httpStatus: 404, detail: `no endpoint ${method} ${path}; GET /v3/serp/endpoints lists the SERP paths` };
}

export function createApiHandler(deps: PipelineDeps) {
  const { ctx, faults, accountLimiter } = deps;
  const subLimiters = new Map<string, SlidingWindowLimiter>();
  const subLimiter = (def: EndpointDef) => {
    let l = subLimiters.get(def.id);
    if (!l) subLimiters.set(def.id, (l = new SlidingWindowLimiter(def.perMinute!, ctx.config.sandbox.rate_limit_window_ms)));
    return l;
  };

  const limiterOf = (endpointId: string): SlidingWindowLimiter => {
    const def = findEndpoint(endpointId);
    return def?.perMinute && def.perMinute < ctx.config.sandbox.rate_limit_calls ? subLimiter(def) : accountLimiter;
  };

  const answer = (res: ServerResponse, call: CallRecord, httpStatus: number, env: Envelope, opts: { malformed?: boolean; dropAfter?: boolean; headers?: Record<string, string> } = {}) => {
    call.status = httpStatus;
    call.statusCode = env.status_code;
    if (env.status_code === 40202) ctx.records.rateLimitAnswers++;
    if (opts.dropAfter) {
      call.status = 0;
      res.socket?.destroy();
      return;
    }
    let body = JSON.stringify(env);
    // The live service sends its rate-limit ceiling and what is left of it on every endpoint.
    const limiter = call.endpointId ? limiterOf(call.endpointId) : accountLimiter;
    opts = { ...opts, headers: { 'x-ratelimit-limit': String(limiter.limit), 'x-ratelimit-remaining': String(Math.max(0, limiter.remaining(ctx.clock.now()))), ...opts.headers } };
    // A cut body is invalid JSON whatever its length; the cut point is fixed so runs repeat.
    if (opts.malformed) body = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
    sendJson(res, httpStatus, body, opts.headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> => {
    const startedNs = process.hrtime.bigint();
    deps.beforeRequest();
    const now = ctx.clock.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const call: CallRecord = { method, path, status: 0, at: now };
    ctx.records.calls.push(call);

    const auth = checkBasicAuth(req.headers.authorization, ctx.config.sandbox.login, ctx.config.sandbox.password);
    if (!auth.ok) return answer(res, call, 401, bare(GENERIC_VERSION, 40100, startedNs, auth.reason), { headers: { 'www-authenticate': 'Basic realm="api"' } });

    // Every authenticated call counts against the account, whatever its outcome; refused calls do not.
    if (!accountLimiter.take(now)) return answer(res, call, 200, bare(GENERIC_VERSION, 40202, startedNs, `more than ${ctx.config.sandbox.rate_limit_calls} calls in ${ctx.config.sandbox.rate_limit_window_ms} ms`));
    const fault = faults.decide(path);
    if (fault.rateLimited) return answer(res, call, 200, bare(GENERIC_VERSION, 40202, startedNs, 'injected rate-limit burst'));

    const match = method === 'GET' || method === 'POST' ? matchPath(method, path, ctx.engines) : undefined;
    if (!match) {
      const why = method === 'GET' || method === 'POST' ? explainUnmatched(method, path, ctx) : { code: 40400 as const, httpStatus: 405, detail: `method ${method} is not used by the API; use GET or POST` };
      return answer(res, call, why.httpStatus, bare(GENERIC_VERSION, why.code, startedNs, why.detail));
    }
    const { def } = match;
    call.endpointId = def.id;
    if (def.perMinute && def.perMinute < ctx.config.sandbox.rate_limit_calls && !subLimiter(def).take(now)) {
      return answer(res, call, 200, bare(def.version, 40202, startedNs, `${def.id} allows ${def.perMinute} calls per ${ctx.config.sandbox.rate_limit_window_ms} ms`));
    }

    // The account's answers: an endpoint it may not use, then, for paid calls, the balance and the daily cost limit.
    if (ctx.account.retired(def.id)) return answer(res, call, 404, bare(GENERIC_VERSION, 40400, startedNs, `${def.id} is retired`));
    if (ctx.account.denied(def.id)) return answer(res, call, 200, bare(def.version, 40204, startedNs, `this account has no access to ${def.id}`));
    if (def.billing !== 'free') {
      const refusal = ctx.account.refusePaid(now);
      if (refusal) return answer(res, call, refusal.httpStatus, bare(def.version, refusal.code, startedNs, refusal.detail));
    }

    if (fault.slowMs > 0) await new Promise((r) => setTimeout(r, fault.slowMs));
    if (fault.drop) {
      call.status = 0;
      req.socket.destroy();
      return;
    }
    if (fault.http500) return answer(res, call, 500, bare(def.version, 50000, startedNs, 'injected HTTP 500'));

    let body: unknown[] = [];
    if (method === 'POST') {
      const raw = await readBody(req);
      if (!raw.ok) return answer(res, call, 200, bare(def.version, 40503, startedNs, raw.problem));
      const parsed = parseTasks(raw.text);
      if (!parsed.ok) return answer(res, call, 200, bare(def.version, parsed.code, startedNs, parsed.detail));
      body = parsed.tasks;
    }
    const apiReq: ApiRequest = { def, id: match.id, path, query, body, startedNs, now: ctx.clock.now(), taskFault: fault.task50000 };
    // Hand-written answers in the shapes of the client's models (fields they leave out come as null).
    const env = conformEnvelope(def, handlerFor(def, ctx.families)(apiReq, ctx));
    answer(res, call, 200, env, { malformed: fault.malformed, dropAfter: fault.dropAfter });
  };

  return (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) =>
    handle(req, res, path, query).catch((err: unknown) => {
      // A bug must cost one answer, never the server.
      const started = process.hrtime.bigint();
      sendJson(res, 500, JSON.stringify(bare(GENERIC_VERSION, 50000, started, `sandbox error: ${(err as Error)?.message ?? String(err)}`)));
    });
}
