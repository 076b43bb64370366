/**
 * The API client: ky over HTTP Basic auth, every attempt through the account-wide RateLimiter, typed envelopes and
 * per-task outcomes, local validation before anything is sent, batching, retries that stop, and a raw-response hook.
 *
 * Contract (other stages use these names):
 *   new ApiClient({ baseUrl, credentials, engines, limiter, timeoutMs, retries, retryBaseMs, tasksPerPost, logger?, onResponse? })
 *   ApiClient.fromConfig(config, { baseUrl?, limiter?, logger?, onResponse? })
 *   postTasks(endpointId, tasks, { onBatchPosted? }) -> TaskOutcome[]   one per input task, in input order
 *   get(endpointId, { id? }) -> Envelope;  taskGet(endpointId, id) -> TaskOutcome
 *   tasksReady(endpointId) -> ReadyItem[];  tasksFixed(endpointId) -> FixedItem[]
 *   live(endpointId, task) -> TaskOutcome;  list(endpointId, body?) -> TaskOutcome
 *   onResponse(raw: RawResponse) is awaited for every 2xx body received (malformed ones and retried attempts included)
 *   before anything is made of it, so the raw archive keeps everything fetched.
 *   Refusals that are not about one task (HTTP 401/402/403/404, envelope 40100/40200/40201/40203/40204/40207, or an
 *   envelope error with no tasks) throw ApiError (exitCode 5).
 *
 * Retry rules (status.ts says which codes are which):
 *   - Idempotent calls (GETs, live and list POSTs, which create nothing) retry on network errors and timeouts,
 *     HTTP 5xx/408/429, malformed 2xx bodies, envelope or task statuses in the 50000 range and 40202 (after
 *     limiter.slowDown of that endpoint: a rate-limit answer slows the endpoint that got it), with jittered exponential backoff, up to `retries` times; then the last answer stands.
 *     A live call billed per request that was lost in transit may be billed again by its retry: the reply is the
 *     product and is otherwise gone, so we re-ask and log it.
 *   - task_post is never re-sent when the service may have accepted it (re-posting would pay twice). It is retried
 *     only on proof that nothing was created: connection refused or unresolvable host (never sent), HTTP 5xx other
 *     than 502/504, 408 and 429 (the service answered that it did not process it), an envelope 40202 or 50000-range
 *     status with no accepted task; and per task, only the tasks answered 40202 or 50000-range at cost 0 are
 *     re-posted (the batch's re-posts share its `retries` budget). A timeout,
 *     a dropped connection, HTTP 502/504 (a gateway gave up on an origin that may have finished) or a malformed 2xx
 *     body after the request went out are reported per task as `ambiguous: true`: the caller reconciles them through
 *     tasks_ready and its ledger tags instead of paying twice.
 *   - Never retried: authorization, payment, access and validation errors.
 */
import ky from 'ky';
import { endpoint, resolvePath } from './catalog.js';
import { type EndpointDef } from '../catalog/endpoint.js';
import { isEnvelope, type ApiTask, type Envelope } from './envelope.js';
import { accountAdvice, dispositionOf, isRetryableHttp, isTaskError, statusMessage, RATE_LIMIT_CODE } from './status.js';
import { validateTask } from './validate.js';
import { apiLogger, createLogger, scrubSecrets, secretsOf, type Logger } from '../log/logger.js';
import { credentialsFor, type Config, type Credentials, type Engines } from '../config/index.js';
import { RateLimiter, type RateLimitHeaders } from '../queue/index.js';
import { EXIT } from '../exit.js';

export interface RawResponse {
  endpointId: string;
  method: string;
  path: string;
  requestBody: unknown | null;
  httpStatus: number;
  body: string;
  receivedAt: Date;
  /** The body's JSON value, when it is JSON (the archive then need not parse it again). */
  parsed?: unknown;
}

export interface TaskError {
  /** The service's task or envelope status, the HTTP status for transport answers, 0 when nothing came back. */
  code: number;
  message: string;
  /** Path segments of the call, as the service's task `path` lists them. */
  path: string[];
  /** The task as sent (local and transport errors) or the service's `data` echo. */
  data: unknown;
  /** True when the task failed our own validation and was never sent (it cost nothing). */
  local: boolean;
  field?: string;
  rule?: string;
  /** The service's task id, when it gave one. */
  id?: string;
  /** The request may have reached the service and created (and billed) the task: reconcile, do not re-post. */
  ambiguous?: boolean;
  /** Set when no usable envelope came back: how the attempt failed. */
  transport?: 'network' | 'timeout' | 'http' | 'malformed';
  httpStatus?: number;
  attempts?: number;
  /** A connection that failed before the request left (refused, unknown host): nothing reached the service. */
  notSent?: boolean;
}

/**
 * Whether a final error is an answer the service gives when it did nothing (rate limit, the 50000 range, HTTP
 * 408/429/500/503, a request that never left), so the task may be asked again without paying twice. Pure.
 */
export function nothingDone(e: TaskError): boolean {
  if (e.local || e.ambiguous) return false;
  if (e.transport === 'network' || e.transport === 'timeout' || e.transport === 'malformed') return e.notSent === true;
  if (e.httpStatus === 502 || e.httpStatus === 504) return false;
  return e.code === RATE_LIMIT_CODE || e.code >= 50000 || (e.httpStatus !== undefined && isRetryableHttp(e.httpStatus));
}

/** `version` is the answering envelope's `version` (tasks do not carry one), for calls that return a result. */
/**
 * `bytes`: the length of the answer it came in (JSON characters, shared out among the answer's tasks): about what
 * holding the parsed task costs, which bounds the results a collector holds and a load transaction takes.
 */
export type TaskOutcome = { ok: true; task: ApiTask; cost: number; version?: string; bytes?: number } | { ok: false; error: TaskError };

/** An element of a tasks_ready result: the task id and the path(s) its result can be collected from. */
export interface ReadyItem {
  id: string;
  endpoint?: string | null;
  endpoint_regular?: string | null;
  endpoint_advanced?: string | null;
  endpoint_html?: string | null;
  tag?: string | null;
  [key: string]: unknown;
}

/** An element of a tasks_fixed result (E12). */
export interface FixedItem extends ReadyItem {
  date_fixed?: string;
}

/** One task's final outcome within a POST, reported to onBatchPosted before the next POST goes out. */
export interface BatchEntry {
  /** Position of the task in the postTasks input. */
  index: number;
  task: Record<string, unknown>;
  outcome: TaskOutcome;
}

export interface PostTasksOptions {
  /** Awaited after each POST with the outcomes it settled (local failures come first, in one call of their own). */
  onBatchPosted?: (entries: BatchEntry[]) => void | Promise<void>;
}

export class ApiError extends Error {
  readonly exitCode: number = EXIT.refused;
  constructor(
    message: string,
    readonly code: number,
    readonly httpStatus: number,
    readonly endpointId: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  engines: Engines;
  limiter: RateLimiter;
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  retryBaseMs: number;
  tasksPerPost: number;
  logger?: Logger;
  onResponse?: (r: RawResponse) => void | Promise<void>;
  /** Longest wait between attempts. */
  retryMaxMs?: number;
  /** Source of jitter (tests pass a seeded one). */
  random?: () => number;
}

/** Envelope statuses that refuse the whole account or request, whatever tasks it carries. */
const ACCOUNT_REFUSALS: ReadonlySet<number> = new Set([40100, 40200, 40201, 40203, 40204, 40207]);
/** Connection errors that prove the request never left (nothing can have been created). */
/** fetch refuses ports on its block list (9, 25, 6000, ...) before connecting, with this message and no code. */
const BAD_PORT = 'FETCH_BAD_PORT';
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ERR_INVALID_URL', BAD_PORT]);

type Attempt =
  | { kind: 'answer'; httpStatus: number; bytes: number; envelope?: Envelope; parseError?: string; retryAfterMs?: number }
  | { kind: 'network'; error: unknown; timeout: boolean; notSent: boolean };

/** What to do with one attempt's result. */
export type Verdict =
  | { action: 'accept' }
  | { action: 'retry'; reason: string; slowDown?: boolean; retryAfterMs?: number }
  | { action: 'ambiguous'; reason: string }
  | { action: 'refuse'; code: number; reason: string };

interface Failure {
  code: number;
  message: string;
  transport: NonNullable<TaskError['transport']>;
  httpStatus?: number;
  ambiguous: boolean;
  attempts: number;
  notSent?: boolean;
}

type Final = { kind: 'envelope'; envelope: Envelope; attempts: number; bytes: number } | { kind: 'failed'; failure: Failure };

function errorCodes(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== 'object' || depth > 4) return [];
  const out: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') out.push(code);
  if (err instanceof Error && err.message === 'bad port') out.push(BAD_PORT);
  out.push(...errorCodes((err as { cause?: unknown }).cause, depth + 1));
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner)) for (const e of inner) out.push(...errorCodes(e, depth + 1));
  return out;
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown })?.name;
  return name === 'TimeoutError' || (name === 'AbortError' && String((err as { message?: unknown }).message).includes('timeout'));
}

function describeNetwork(err: unknown): string {
  const codes = errorCodes(err);
  const msg = err instanceof Error ? err.message : String(err);
  return codes.length ? `${msg} (${[...new Set(codes)].join(', ')})` : msg;
}

/** The Retry-After header in ms (seconds or an HTTP date), if the service sent one. */
function retryAfterOf(value: string | null): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const d = Date.parse(value);
  return Number.isNaN(d) ? undefined : Math.max(0, d - Date.now());
}

/**
 * The retry rules in one pure function. `idempotent` is false only for task_post, where an attempt that may have
 * reached the service is `ambiguous` instead of retryable.
 */
export function judgeAttempt(a: Attempt, idempotent: boolean): Verdict {
  if (a.kind === 'network') {
    if (a.notSent) return { action: 'retry', reason: `not sent: ${describeNetwork(a.error)}` };
    const reason = a.timeout ? 'timed out' : `connection failed: ${describeNetwork(a.error)}`;
    return idempotent ? { action: 'retry', reason } : { action: 'ambiguous', reason };
  }
  const { httpStatus: http, envelope: env } = a;
  if (http < 200 || http >= 300) {
    const code = env?.status_code ?? http;
    const what = `HTTP ${http}${env ? ` (${env.status_code} ${env.status_message})` : ''}`;
    if (http === 429 || env?.status_code === RATE_LIMIT_CODE) return { action: 'retry', reason: `rate limited: ${what}`, slowDown: true, retryAfterMs: a.retryAfterMs };
    if (isRetryableHttp(http)) {
      if (!idempotent && (http === 502 || http === 504)) return { action: 'ambiguous', reason: `${what}: a gateway gave up on a request the service may have finished` };
      return { action: 'retry', reason: what };
    }
    return { action: 'refuse', code, reason: what };
  }
  if (!env) {
    const reason = `malformed answer (HTTP ${http}): ${a.parseError ?? 'not an envelope'}`;
    return idempotent ? { action: 'retry', reason } : { action: 'ambiguous', reason };
  }
  const code = env.status_code;
  const tasks = env.tasks ?? [];
  if (ACCOUNT_REFUSALS.has(code)) return { action: 'refuse', code, reason: `${code} ${env.status_message}` };
  const accepted = tasks.some((t) => t && typeof t.status_code === 'number' && !isTaskError(t.status_code));
  const disposition = dispositionOf(code);
  if ((disposition === 'retry' || disposition === 'slow_down') && !accepted) {
    return { action: 'retry', reason: `envelope ${code} ${env.status_message}`, slowDown: disposition === 'slow_down' };
  }
  if (disposition === 'fatal' && tasks.length === 0) return { action: 'refuse', code, reason: `${code} ${env.status_message}` };
  if (idempotent) {
    const again = tasks.find((t) => t && ['retry', 'slow_down'].includes(dispositionOf(t.status_code)));
    if (again) return { action: 'retry', reason: `task ${again.status_code} ${again.status_message}`, slowDown: dispositionOf(again.status_code) === 'slow_down' };
  }
  return { action: 'accept' };
}

/** A task's outcome: an error when its status is 40000 or more, or when it carries no result (task posts excepted). */
export function taskOutcome(def: EndpointDef, task: ApiTask | undefined, sent: unknown, path: string[]): TaskOutcome {
  if (!task || typeof task !== 'object') {
    return { ok: false, error: { code: 0, message: 'the answer holds no task for this request', path, data: sent, local: false, ambiguous: def.kind === 'task_post' } };
  }
  const taskPath = Array.isArray(task.path) ? task.path : path;
  if (typeof task.status_code !== 'number' || isTaskError(task.status_code)) {
    const code = typeof task.status_code === 'number' ? task.status_code : 0;
    return { ok: false, error: { code, message: task.status_message ?? statusMessage(code), path: taskPath, data: task.data ?? sent, local: false, id: task.id } };
  }
  if (def.kind !== 'task_post' && !Array.isArray(task.result)) {
    return { ok: false, error: { code: task.status_code, message: `${task.status_message} (the task has no result)`, path: taskPath, data: task.data ?? sent, local: false, id: task.id } };
  }
  return { ok: true, task, cost: typeof task.cost === 'number' ? task.cost : 0 };
}

export class ApiClient {
  readonly limiter: RateLimiter;
  private readonly baseUrl: string;
  private readonly engines: Engines;
  private readonly authorization: string;
  private readonly secrets: string[];
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly tasksPerPost: number;
  private readonly random: () => number;
  private readonly onResponse?: (r: RawResponse) => void | Promise<void>;

  constructor(opts: ApiClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.engines = opts.engines;
    this.limiter = opts.limiter;
    this.authorization = `Basic ${Buffer.from(`${opts.credentials.login}:${opts.credentials.password}`).toString('base64')}`;
    this.secrets = secretsOf(opts.credentials);
    this.log = apiLogger(opts.logger ?? createLogger({ secrets: this.secrets }), { component: 'api' });
    this.timeoutMs = opts.timeoutMs;
    this.retries = opts.retries;
    this.retryBaseMs = opts.retryBaseMs;
    this.retryMaxMs = opts.retryMaxMs ?? Math.max(opts.retryBaseMs, 30_000);
    this.tasksPerPost = opts.tasksPerPost;
    this.random = opts.random ?? Math.random;
    this.onResponse = opts.onResponse;
  }

  /** A client for the configured service; with `base_url: sandbox` the caller passes the started sandbox's URL. */
  static fromConfig(config: Config, opts: { baseUrl?: string; limiter?: RateLimiter; logger?: Logger; onResponse?: (r: RawResponse) => void | Promise<void> } = {}): ApiClient {
    const baseUrl = opts.baseUrl ?? (config.api.base_url === 'sandbox' ? undefined : config.api.base_url);
    if (!baseUrl) throw new Error('api.base_url is "sandbox": start the sandbox and pass its url as baseUrl');
    return new ApiClient({
      baseUrl,
      credentials: credentialsFor(config),
      engines: config.paths,
      limiter: opts.limiter ?? RateLimiter.fromConfig(config),
      timeoutMs: config.api.timeout_ms,
      retries: config.api.retries,
      retryBaseMs: config.api.retry_base_ms,
      tasksPerPost: config.api.tasks_per_post,
      logger: opts.logger,
      onResponse: opts.onResponse,
    });
  }

  // ---- public calls -------------------------------------------------------------------------------------------

  /**
   * Validates each task locally, posts the valid ones in batches of up to min(def.maxTasksPerPost, tasksPerPost),
   * one batch at a time, and returns one outcome per input task in input order.
   */
  async postTasks(endpointId: string, tasks: Record<string, unknown>[], opts: PostTasksOptions = {}): Promise<TaskOutcome[]> {
    const def = this.def(endpointId, ['task_post']);
    const path = resolvePath(def, this.engines);
    const segments = segmentsOf(path);
    const outcomes: TaskOutcome[] = new Array(tasks.length);
    const toSend: number[] = [];
    const local: BatchEntry[] = [];
    tasks.forEach((task, index) => {
      const issues = validateTask(def, task);
      if (issues.length === 0) return void toSend.push(index);
      const first = issues[0];
      const outcome: TaskOutcome = {
        ok: false,
        error: { code: first.code, message: issues.map((i) => i.message).join(' '), path: segments, data: task, local: true, field: first.field, rule: first.rule },
      };
      outcomes[index] = outcome;
      local.push({ index, task, outcome });
    });
    if (local.length) {
      this.log.info({ endpoint: def.id, rejected: local.length, first: local[0].outcome.ok ? undefined : local[0].outcome.error.message }, 'tasks failed local validation and were not sent');
      await opts.onBatchPosted?.(local);
    }
    const size = Math.max(1, Math.min(def.maxTasksPerPost ?? 100, this.tasksPerPost));
    for (let start = 0; start < toSend.length; start += size) {
      await this.postBatch(def, path, toSend.slice(start, start + size), tasks, outcomes, opts);
    }
    return outcomes;
  }

  /**
   * One batch: post it, settle what the answer settles, re-post only the tasks proven not created. Every POST of
   * the batch, first and re-posts alike, counts against the same `retries` budget.
   */
  private async postBatch(def: EndpointDef, path: string, indexes: number[], tasks: Record<string, unknown>[], outcomes: TaskOutcome[], opts: PostTasksOptions): Promise<void> {
    const segments = segmentsOf(path);
    let pending = indexes;
    let used = 0;
    while (pending.length > 0) {
      const body = pending.map((i) => tasks[i]);
      const final = await this.request(def, 'POST', path, body, false, this.retries - used);
      used += final.kind === 'failed' ? final.failure.attempts : final.attempts;
      const settled: BatchEntry[] = [];
      const again: number[] = [];
      if (final.kind === 'failed') {
        const f = final.failure;
        for (const index of pending) {
          const outcome: TaskOutcome = { ok: false, error: { code: f.code, message: f.message, path: segments, data: tasks[index], local: false, ambiguous: f.ambiguous, transport: f.transport, httpStatus: f.httpStatus, attempts: used, ...(f.notSent ? { notSent: true } : {}) } };
          settled.push({ index, task: tasks[index], outcome });
        }
      } else {
        const answered = final.envelope.tasks ?? [];
        let slowDown = false;
        pending.forEach((index, i) => {
          const t = answered[i];
          const d = t && typeof t.status_code === 'number' ? dispositionOf(t.status_code) : 'fatal';
          // Cost 0 with a 40202 or 50000-range status: the service says it did not create (or bill) the task.
          const notCreated = t && (d === 'retry' || d === 'slow_down') && !(t.cost > 0);
          if (notCreated && used <= this.retries) {
            slowDown ||= d === 'slow_down';
            again.push(index);
            return;
          }
          let outcome = taskOutcome(def, t, tasks[index], segments);
          if (!outcome.ok && !t && final.envelope.status_code >= 40000) {
            outcome = { ok: false, error: { ...outcome.error, code: final.envelope.status_code, message: final.envelope.status_message, ambiguous: false } };
          }
          if (!outcome.ok) outcome.error.attempts = used;
          settled.push({ index, task: tasks[index], outcome });
        });
        if (slowDown) this.limiter.slowDown(undefined, def.id);
      }
      for (const e of settled) outcomes[e.index] = e.outcome;
      this.logTaskErrors(def, path, settled.map((e) => e.outcome));
      if (settled.length) await opts.onBatchPosted?.(settled);
      if (again.length) {
        const delay = this.backoff(used);
        this.logFailure('warn', { endpoint: def.id, method: 'POST', path, tasks: again.length, attempt: used, of: this.retries + 1, delayMs: delay }, 're-posting the tasks the service answered with a retryable status and did not create');
        await sleep(delay);
      }
      pending = again;
    }
  }

  /** The raw envelope of a GET (task_get, tasks_ready, tasks_fixed, lists); idempotent, retried freely. */
  async get(endpointId: string, params: { id?: string } = {}): Promise<Envelope> {
    const def = this.def(endpointId, ['task_get', 'tasks_ready', 'tasks_fixed', 'list'], 'GET');
    const path = resolvePath(def, this.engines, params);
    const final = await this.request(def, 'GET', path, null, true);
    if (final.kind === 'failed') throw this.unavailable(def, 'GET', path, final.failure);
    return final.envelope;
  }

  async taskGet(endpointId: string, id: string): Promise<TaskOutcome> {
    const def = this.def(endpointId, ['task_get']);
    const path = resolvePath(def, this.engines, { id });
    const final = await this.request(def, 'GET', path, null, true);
    return this.single(def, path, final, { id });
  }

  async tasksReady(endpointId: string): Promise<ReadyItem[]> {
    return this.listItems<ReadyItem>(endpointId, 'tasks_ready');
  }

  async tasksFixed(endpointId: string): Promise<FixedItem[]> {
    return this.listItems<FixedItem>(endpointId, 'tasks_fixed');
  }

  /** A live call: one task, validated locally first, answered with its result. */
  async live(endpointId: string, task: Record<string, unknown>): Promise<TaskOutcome> {
    const def = this.def(endpointId, ['live']);
    return this.postOne(def, task);
  }

  /** A list endpoint: GET (serp.endpoints, events locations) or POST with one task (domain_analytics.errors). */
  async list(endpointId: string, body?: Record<string, unknown>): Promise<TaskOutcome> {
    const def = this.def(endpointId, ['list']);
    if (def.method === 'POST') return this.postOne(def, body ?? {});
    const path = resolvePath(def, this.engines);
    return this.single(def, path, await this.request(def, 'GET', path, null, true), null);
  }

  /**
   * Re-sends the pingbacks or postbacks of the given tasks (appendix.webhook_resend, up to 100 ids a call, free):
   * one outcome per id, in order. Idempotent (a second re-send only delivers again), so it is retried freely.
   */
  async resendWebhooks(ids: string[]): Promise<TaskOutcome[]> {
    const def = this.def('appendix.webhook_resend', ['list'], 'POST');
    const path = resolvePath(def, this.engines);
    const out: TaskOutcome[] = [];
    for (let i = 0; i < ids.length; i += def.maxTasksPerPost ?? 100) {
      const body = ids.slice(i, i + (def.maxTasksPerPost ?? 100)).map((id) => ({ id }));
      const final = await this.request(def, 'POST', path, body, true);
      body.forEach((sent, k) => {
        if (final.kind === 'failed') {
          const f = final.failure;
          out.push({ ok: false, error: { code: f.code, message: f.message, path: segmentsOf(path), data: sent, local: false, transport: f.transport, httpStatus: f.httpStatus, attempts: f.attempts, id: sent.id } });
          return;
        }
        const t = final.envelope.tasks?.[k];
        if (t && typeof t.status_code === 'number' && !isTaskError(t.status_code)) out.push({ ok: true, task: t, cost: typeof t.cost === 'number' ? t.cost : 0 });
        else out.push({ ok: false, error: { code: t?.status_code ?? 0, message: t?.status_message ?? 'the answer holds no task for this id', path: segmentsOf(path), data: sent, local: false, id: sent.id } });
      });
    }
    return out;
  }

  // ---- internals ----------------------------------------------------------------------------------------------

  private def(endpointId: string, kinds: EndpointDef['kind'][], method?: EndpointDef['method']): EndpointDef {
    const def = endpoint(endpointId);
    if (!kinds.includes(def.kind) || (method && def.method !== method)) {
      throw new Error(`${endpointId} is a ${def.method} ${def.kind} endpoint; this call takes ${kinds.join('/')}${method ? ` ${method}` : ''} endpoints`);
    }
    return def;
  }

  private async postOne(def: EndpointDef, task: Record<string, unknown>): Promise<TaskOutcome> {
    const path = resolvePath(def, this.engines);
    const issues = validateTask(def, task);
    if (issues.length) {
      const first = issues[0];
      return { ok: false, error: { code: first.code, message: issues.map((i) => i.message).join(' '), path: segmentsOf(path), data: task, local: true, field: first.field, rule: first.rule } };
    }
    return this.single(def, path, await this.request(def, 'POST', path, [task], true), task);
  }

  private single(def: EndpointDef, path: string, final: Final, sent: unknown): TaskOutcome {
    const segments = segmentsOf(path);
    if (final.kind === 'failed') {
      const f = final.failure;
      return { ok: false, error: { code: f.code, message: f.message, path: segments, data: sent, local: false, transport: f.transport, httpStatus: f.httpStatus, attempts: f.attempts, ...(f.notSent ? { notSent: true } : {}) } };
    }
    const env = final.envelope;
    // A refusal of the whole call (a rate limit still on after the last retry) holds no task: its code is the answer.
    if (!env.tasks?.[0] && isTaskError(env.status_code)) {
      return { ok: false, error: { code: env.status_code, message: env.status_message ?? statusMessage(env.status_code), path: segments, data: sent, local: false, attempts: final.attempts } };
    }
    const outcome = taskOutcome(def, env.tasks?.[0], sent, segments);
    if (outcome.ok && typeof final.envelope.version === 'string') outcome.version = final.envelope.version;
    if (outcome.ok) outcome.bytes = final.bytes;
    this.logTaskErrors(def, path, [outcome]);
    return outcome;
  }

  /** Task-level errors the service answered (40602 "not ready yet" is routine polling, so only at debug). */
  private logTaskErrors(def: EndpointDef, path: string, outcomes: TaskOutcome[]): void {
    for (const o of outcomes) {
      if (o.ok || o.error.local || o.error.transport) continue;
      const level = dispositionOf(o.error.code) === 'not_ready' ? 'debug' : 'warn';
      this.log[level](scrubSecrets({ endpoint: def.id, path, id: o.error.id, code: o.error.code, message: o.error.message }, this.secrets), 'task error');
    }
  }

  private async listItems<T extends ReadyItem>(endpointId: string, kind: 'tasks_ready' | 'tasks_fixed'): Promise<T[]> {
    const def = this.def(endpointId, [kind]);
    const path = resolvePath(def, this.engines);
    const final = await this.request(def, 'GET', path, null, true);
    if (final.kind === 'failed') throw this.unavailable(def, 'GET', path, final.failure);
    const items: T[] = [];
    for (const task of final.envelope.tasks ?? []) {
      const outcome = taskOutcome(def, task, null, segmentsOf(path));
      if (!outcome.ok) throw new ApiError(`${def.id}: GET ${path}: ${outcome.error.code} ${outcome.error.message}`, outcome.error.code, 200, def.id, path);
      for (const item of outcome.task.result ?? []) if (item && typeof item === 'object') items.push(item as T);
    }
    return items;
  }

  private unavailable(def: EndpointDef, method: string, path: string, f: Failure): ApiError {
    return new ApiError(`${def.id}: ${method} ${path}: ${f.message} (after ${f.attempts} attempts)`, f.code, f.httpStatus ?? 0, def.id, path);
  }

  /** Jittered exponential backoff: half the exponential step fixed, half random, capped. */
  private backoff(attempt: number): number {
    const step = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
    return Math.round(step / 2 + this.random() * (step / 2));
  }

  /** Attempts a call until it is accepted, refused, ambiguous or out of retries. Throws ApiError on refusal. */
  private async request(def: EndpointDef, method: 'GET' | 'POST', path: string, body: unknown[] | null, idempotent: boolean, retries = this.retries): Promise<Final> {
    for (let attempt = 1; ; attempt++) {
      const a = await this.attempt(def, method, path, body);
      const verdict = judgeAttempt(a, idempotent);
      const context = { endpoint: def.id, method, path, attempt, of: retries + 1, httpStatus: a.kind === 'answer' ? a.httpStatus : undefined };
      if (verdict.action === 'accept') return { kind: 'envelope', envelope: (a as Extract<Attempt, { kind: 'answer' }>).envelope!, attempts: attempt, bytes: (a as Extract<Attempt, { kind: 'answer' }>).bytes };
      if (verdict.action === 'refuse') {
        this.logFailure('error', { ...context, code: verdict.code, reason: verdict.reason }, 'the service refused the call; not retried');
        const advice = accountAdvice(verdict.code) ?? (a.kind === 'answer' ? accountAdvice(a.httpStatus) : undefined);
        throw new ApiError(`${def.id}: ${method} ${path}: ${verdict.reason}${advice ? ` (${advice})` : ''}`, verdict.code, a.kind === 'answer' ? a.httpStatus : 0, def.id, path);
      }
      const failure = failureOf(a, verdict.reason, verdict.action === 'ambiguous', attempt);
      if (verdict.action === 'ambiguous') {
        this.logFailure('error', { ...context, reason: verdict.reason, ambiguous: true }, 'task post may have reached the service; not re-posted, reconcile by tasks_ready and tags');
        return { kind: 'failed', failure };
      }
      if (verdict.slowDown) this.limiter.slowDown(verdict.retryAfterMs, def.id);
      if (attempt > retries) {
        this.logFailure('error', { ...context, reason: verdict.reason }, 'giving up after the last retry');
        // A service answer (a task-level 50000, say) stands as the result; a transport failure becomes one.
        if (a.kind === 'answer' && a.envelope && (a.httpStatus >= 200 && a.httpStatus < 300)) return { kind: 'envelope', envelope: a.envelope, attempts: attempt, bytes: a.bytes };
        return { kind: 'failed', failure };
      }
      const delay = this.backoff(attempt);
      if (def.billing === 'request' && judgeAttempt(a, false).action === 'ambiguous') {
        this.log.warn({ endpoint: def.id, path }, 're-asking a call billed per request whose answer was lost: the service may bill it twice');
      }
      this.logFailure('warn', { ...context, reason: verdict.reason, delayMs: delay, slowDown: verdict.slowDown ?? false }, 'retrying');
      await sleep(delay);
    }
  }

  private logFailure(level: 'warn' | 'error', fields: Record<string, unknown>, msg: string): void {
    const entry = { ...fields, request: { url: `${this.baseUrl}${fields.path as string}`, headers: { authorization: this.authorization } } };
    this.log[level](scrubSecrets(entry, this.secrets), msg);
  }

  /** One HTTP exchange through the limiter; the body is read inside it so the limiter sees when the answer ended. */
  private async attempt(def: EndpointDef, method: 'GET' | 'POST', path: string, body: unknown[] | null): Promise<Attempt> {
    let received: { httpStatus: number; body: string; retryAfter: string | null; limits: RateLimitHeaders };
    try {
      received = await this.limiter.schedule(def.id, async () => {
        const res = await ky(`${this.baseUrl}${path}`, {
          method,
          headers: { authorization: this.authorization, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          timeout: false,
          retry: 0,
          throwHttpErrors: false,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        return { httpStatus: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after'), limits: rateLimitHeadersOf(res.headers) };
      });
      this.limiter.observe(def.id, received.limits);
    } catch (error) {
      const codes = errorCodes(error);
      return { kind: 'network', error, timeout: isTimeout(error), notSent: codes.some((c) => NOT_SENT_CODES.has(c)) };
    }
    const receivedAt = new Date();
    const answer: Extract<Attempt, { kind: 'answer' }> = { kind: 'answer', httpStatus: received.httpStatus, bytes: received.body.length, retryAfterMs: retryAfterOf(received.retryAfter) };
    // Parsed once, here: the archive takes the parsed value too, so a large answer is not parsed twice.
    let parsed: unknown;
    let json = false;
    try {
      parsed = JSON.parse(received.body);
      json = true;
      if (isEnvelope(parsed)) answer.envelope = parsed;
      else answer.parseError = 'JSON without status_code and tasks';
    } catch (err) {
      answer.parseError = `invalid JSON: ${(err as Error).message}`;
    }
    // Archived before anything is made of it; the body is not kept past this (the attempt holds the parsed value).
    if (received.httpStatus >= 200 && received.httpStatus < 300) {
      await this.onResponse?.({ endpointId: def.id, method, path, requestBody: body, httpStatus: received.httpStatus, body: received.body, receivedAt, ...(json ? { parsed } : {}) });
    }
    return answer;
  }
}

/** X-RateLimit-Limit and X-RateLimit-Remaining, where the service sends them (every endpoint of the live service). */
export function rateLimitHeadersOf(headers: Headers): RateLimitHeaders {
  const int = (name: string) => {
    const v = headers.get(name);
    const n = v === null || v.trim() === '' ? NaN : Number(v);
    return Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  return { limit: int('x-ratelimit-limit'), remaining: int('x-ratelimit-remaining') };
}

function failureOf(a: Attempt, reason: string, ambiguous: boolean, attempts: number): Failure {
  if (a.kind === 'network') return { code: 0, message: reason, transport: a.timeout ? 'timeout' : 'network', ambiguous, attempts, ...(a.notSent ? { notSent: true } : {}) };
  if (a.httpStatus < 200 || a.httpStatus >= 300) return { code: a.envelope?.status_code ?? a.httpStatus, message: reason, transport: 'http', httpStatus: a.httpStatus, ambiguous, attempts };
  if (!a.envelope) return { code: 0, message: reason, transport: 'malformed', httpStatus: a.httpStatus, ambiguous, attempts };
  return { code: a.envelope.status_code, message: reason, transport: 'http', httpStatus: a.httpStatus, ambiguous, attempts };
}

function segmentsOf(path: string): string[] {
  return path.split('?')[0].split('/').filter((s) => s.length > 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
