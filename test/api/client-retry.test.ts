import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ApiClient, judgeAttempt, nothingDone, type RawResponse, type TaskError, type TaskOutcome } from '../../src/api/client.js';
import { RateLimiter } from '../../src/queue/index.js';
import pino from 'pino';
import { createLogger, scrubSecrets, secretsOf, REDACTED } from '../../src/log/logger.js';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import { ROOT } from '../helpers/project.js';

const PASSWORD = 'Kx7-retry-secret-Q2';
let config: Config;
let sandbox: Sandbox;
let raws: RawResponse[];
let lines: string[];

function client(over: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  return new ApiClient({
    baseUrl: sandbox.url,
    credentials: { login: config.sandbox.login, password: PASSWORD },
    engines: config.paths,
    limiter: new RateLimiter({ calls: 1000, windowMs: 1000, concurrency: 8 }),
    timeoutMs: 3000,
    retries: 3,
    retryBaseMs: 2,
    tasksPerPost: 100,
    // A plain pino logger, without our redaction options: the client must protect the credentials itself.
    logger: pino({ level: 'debug' }, { write: (s: string) => { lines.push(s); } }),
    onResponse: (r) => { raws.push(r); },
    ...over,
  });
}
const ok = (o: TaskOutcome) => { if (!o.ok) throw new Error(`expected success, got ${o.error.code} ${o.error.message}`); return o; };
const err = (o: TaskOutcome) => { if (o.ok) throw new Error(`expected an error, got ${o.task.status_code}`); return o.error; };
const site = (i: number) => ({ target: `site${i}.example.com`, location_code: 2840, tag: `s${i}` });
const readyPath = () => resolvePath(endpoint('keywords_for_site.tasks_ready'), config.paths);
const postPath = () => resolvePath(endpoint('keywords_for_site.task_post'), config.paths);
const getPrefix = () => resolvePath(endpoint('keywords_for_site.task_get'), config.paths, { id: 'x' }).replace(/x$/, '');
const callsTo = (prefix: string) => sandbox.controls.calls().filter((c) => c.path.startsWith(prefix));

beforeAll(async () => {
  config = loadConfig({ root: ROOT, env: {}, overrides: { sandbox: { completion_delay_ms: 0, password: PASSWORD } } });
  sandbox = await startSandbox({ config, port: 0 });
});
afterAll(async () => { await sandbox?.close(); });
beforeEach(() => { sandbox.controls.reset(); sandbox.controls.setCompletionDelay(0); raws = []; lines = []; });

describe('idempotent calls retry and then stop', () => {
  it('HTTP 500 on every attempt: retries+1 attempts, then a task error naming the transport', async () => {
    const c = client();
    sandbox.controls.setFaults([{ path: getPrefix(), http500: 1 }]);
    const e = err(await c.taskGet('keywords_for_site.task_get', '11111111-2222-3333-4444-555555555555'));
    expect(e).toMatchObject({ code: 50000, transport: 'http', httpStatus: 500, attempts: 4, local: false });
    expect(callsTo(getPrefix())).toHaveLength(4);
  });

  it('a dropped connection and a timeout are retried for GETs, then surface as ApiError from list calls', async () => {
    const c = client({ timeoutMs: 100 });
    sandbox.controls.setFaults([{ path: readyPath(), drop: 1 }]);
    await expect(c.tasksReady('keywords_for_site.tasks_ready')).rejects.toMatchObject({ name: 'ApiError', exitCode: 5 });
    expect(callsTo(readyPath())).toHaveLength(4);
    sandbox.controls.reset();
    sandbox.controls.setFaults([{ path: getPrefix(), slow: 1, slowMs: 400 }]);
    const e = err(await c.taskGet('keywords_for_site.task_get', '11111111-2222-3333-4444-555555555555'));
    expect(e).toMatchObject({ transport: 'timeout', attempts: 4 });
  });

  it('recovers when only some attempts fail, and passes every 2xx body (malformed ones too) to onResponse first, parsed once', async () => {
    const c = client({ retries: 10 });
    const posted = await c.postTasks('keywords_for_site.task_post', [site(1), site(2), site(3), site(4), site(5), site(6)]);
    raws = [];
    sandbox.controls.setFaults([{ path: getPrefix(), malformed: 0.5, http500: 0.2 }], 7);
    for (const p of posted) {
      const id = ok(p).task.id;
      const got = ok(await c.taskGet('keywords_for_site.task_get', id));
      expect(got.task.id).toBe(id);
      expect(raws[raws.length - 1].body).toContain(id);
      // The answer's size, what bounds the results a collector holds and a load takes.
      expect(got.bytes).toBe(raws[raws.length - 1].body.length);
    }
    const attempts = callsTo(getPrefix());
    expect(attempts.length).toBeGreaterThan(6);
    expect(raws).toHaveLength(attempts.filter((a) => a.status === 200).length);
    const unparsable = raws.filter((r) => { try { JSON.parse(r.body); return false; } catch { return true; } });
    expect(unparsable.length).toBeGreaterThan(0);
    expect(unparsable.every((r) => r.httpStatus === 200 && r.endpointId === 'keywords_for_site.task_get')).toBe(true);
    // The archive gets the client's parsed value with the body, so it need not parse a large answer again.
    expect(unparsable.every((r) => r.parsed === undefined)).toBe(true);
    const parsable = raws.filter((r) => !unparsable.includes(r));
    expect(parsable.length).toBeGreaterThan(0);
    for (const r of parsable) expect(r.parsed).toEqual(JSON.parse(r.body));
  });

  it('a task-level 50000 on a GET is retried; if it persists, the service answer stands', async () => {
    const c = client({ retries: 2 });
    const [posted] = await c.postTasks('keywords_for_site.task_post', [site(1)]);
    sandbox.controls.setFaults([{ path: getPrefix(), task50000: 1 }]);
    const e = err(await c.taskGet('keywords_for_site.task_get', ok(posted).task.id));
    expect(e).toMatchObject({ code: 50000, id: ok(posted).task.id });
    expect(callsTo(getPrefix())).toHaveLength(3);
  });

  it('rate-limit answers slow the limiter down for that endpoint only and the call goes through', async () => {
    const limiter = new RateLimiter({ calls: 1000, windowMs: 1000, concurrency: 4, defaultSlowDownMs: 20 });
    const c = client({ limiter });
    sandbox.controls.setFaults([{ path: readyPath(), rateLimitBurst: 2 }]);
    expect(await c.tasksReady('keywords_for_site.tasks_ready')).toEqual([]);
    expect(sandbox.controls.rateLimitAnswers()).toBe(2);
    expect(limiter.stats().byEndpoint['keywords_for_site.tasks_ready'].slowDowns).toBe(2);
    expect(limiter.stats().slowDowns).toBe(2);
    expect(callsTo(readyPath())).toHaveLength(3);
  });
});

describe('live and list calls under a rate limit that outlasts the retries (issue 31)', () => {
  it('keep the service code 40202, not 0, and count as nothing done', async () => {
    const c = client({ retries: 2 });
    sandbox.controls.setFaults([{ path: '/v3/serp/endpoints', rateLimitBurst: 3 }, { path: '/v3/content_generation/', rateLimitBurst: 3 }]);
    const list = err(await c.list('serp.endpoints'));
    expect(list).toMatchObject({ code: 40202, local: false, attempts: 3 });
    expect(nothingDone(list)).toBe(true);
    const live = err(await c.live('content_generation.paraphrase.live', { text: 'The tent sets up in two minutes.', creativity_index: 0.5 }));
    expect(live).toMatchObject({ code: 40202, local: false });
    expect(nothingDone(live)).toBe(true);
    expect(sandbox.controls.billed()).toBe(0);
  });
});

describe('what counts as an answer of a service that did nothing', () => {
  const e = (over: Partial<TaskError>): TaskError => ({ code: 0, message: 'm', path: [], data: null, local: false, ...over });
  it.each([
    ['envelope 40202 after the retries', e({ code: 40202 }), true],
    ['task-level 50000', e({ code: 50000 }), true],
    ['HTTP 500 with its envelope 50000', e({ code: 50000, transport: 'http', httpStatus: 500 }), true],
    ['HTTP 429 without an envelope', e({ code: 429, transport: 'http', httpStatus: 429 }), true],
    ['HTTP 503', e({ code: 503, transport: 'http', httpStatus: 503 }), true],
    ['connection refused (never sent)', e({ transport: 'network', notSent: true }), true],
    ['connection reset after sending', e({ transport: 'network' }), false],
    ['timeout', e({ transport: 'timeout' }), false],
    ['malformed answer', e({ transport: 'malformed', httpStatus: 200 }), false],
    ['HTTP 502 from a gateway', e({ code: 502, transport: 'http', httpStatus: 502 }), false],
    ['HTTP 504 with a 50000 envelope', e({ code: 50000, transport: 'http', httpStatus: 504 }), false],
    ['an ambiguous task post', e({ code: 0, ambiguous: true, transport: 'network' }), false],
    ['our own validation', e({ code: 40501, local: true }), false],
    ['a task-level 40501', e({ code: 40501 }), false],
    ['no result (40102)', e({ code: 40102 }), false],
    ['an answer holding no task', e({ code: 0 }), false],
  ])('%s -> %s', (_name, error, want) => {
    expect(nothingDone(error)).toBe(want);
  });
});

describe('task_post is never re-sent when the service may have created the tasks', () => {
  it('connection dropped after the tasks were created: one POST, every task ambiguous, nothing paid twice', async () => {
    const c = client();
    sandbox.controls.setFaults([{ path: postPath(), dropAfter: 1 }]);
    const outcomes = await c.postTasks('keywords_for_site.task_post', [site(1), site(2)]);
    expect(outcomes.map((o) => err(o))).toMatchObject([
      { ambiguous: true, transport: 'network', local: false },
      { ambiguous: true, transport: 'network', local: false },
    ]);
    expect(callsTo(postPath())).toHaveLength(1);
    expect(sandbox.controls.postings().map((p) => p.tag)).toEqual(['s1', 's2']);
  });

  it('a malformed answer or a timeout after sending is ambiguous too', async () => {
    // The malformed answer gets a timeout no loaded machine reaches; the slow one a short one.
    sandbox.controls.setFaults([{ path: postPath(), malformed: 1 }]);
    const [m] = await client({ timeoutMs: 10_000 }).postTasks('keywords_for_site.task_post', [site(1)]);
    expect(err(m)).toMatchObject({ ambiguous: true, transport: 'malformed' });
    expect(raws).toHaveLength(1);
    sandbox.controls.setFaults([{ path: postPath(), slow: 1, slowMs: 3000 }]);
    const [t] = await client({ timeoutMs: 300 }).postTasks('keywords_for_site.task_post', [site(2)]);
    expect(err(t)).toMatchObject({ ambiguous: true, transport: 'timeout' });
    // On a loaded machine the sandbox may see the timed-out POST after the client gave up: wait for it here, or
    // it is counted by the next test's calls.
    await vi.waitFor(() => expect(callsTo(postPath())).toHaveLength(2), { timeout: 10_000, interval: 20 });
  });

  it('HTTP 500 proves nothing was created: retried, and it stops after the retries', async () => {
    const c = client();
    sandbox.controls.setFaults([{ path: postPath(), http500: 1 }]);
    const outcomes = await c.postTasks('keywords_for_site.task_post', [site(1), site(2)]);
    for (const o of outcomes) expect(err(o)).toMatchObject({ ambiguous: false, httpStatus: 500, attempts: 4 });
    expect(callsTo(postPath())).toHaveLength(4);
    expect(sandbox.controls.postings()).toHaveLength(0);
  });

  it('tasks answered 50000 at no cost are re-posted alone; every task ends up created exactly once', async () => {
    const c = client({ retries: 10 });
    sandbox.controls.setFaults([{ path: postPath(), task50000: 0.4 }], 3);
    const tasks = Array.from({ length: 20 }, (_, i) => site(i));
    const outcomes = await c.postTasks('keywords_for_site.task_post', tasks);
    for (const o of outcomes) ok(o);
    const tags = sandbox.controls.postings().map((p) => p.tag);
    expect(tags.sort()).toEqual(tasks.map((t) => t.tag).sort());
    const bodies = raws.map((r) => (r.requestBody as unknown[]).length);
    expect(bodies[0]).toBe(20);
    expect(bodies.length).toBeGreaterThan(1);
    expect(bodies.slice(1).every((n, i) => n < bodies[i])).toBe(true);
    expect(outcomes.map((o) => ok(o).task.data.tag)).toEqual(tasks.map((t) => t.tag));
  });

  it('a task that keeps failing with 50000 stops after the retries with the service code', async () => {
    const c = client({ retries: 2 });
    sandbox.controls.setFaults([{ path: postPath(), task50000: 1 }]);
    const [o] = await c.postTasks('keywords_for_site.task_post', [site(1)]);
    expect(err(o)).toMatchObject({ code: 50000, attempts: 3 });
    expect(err(o).ambiguous).toBeFalsy();
    expect(callsTo(postPath())).toHaveLength(3);
  });
});

describe('a service that cannot be reached', () => {
  it('a refused connection or a port fetch will not use is "not sent", never an ambiguous post', async () => {
    const closed = await startSandbox({ config, port: 0 });
    const refusedUrl = closed.url;
    await closed.close();
    for (const baseUrl of [refusedUrl, 'http://127.0.0.1:9']) {
      const [o] = await client({ baseUrl, retries: 1 }).postTasks('keywords_for_site.task_post', [site(1)]);
      expect(err(o).ambiguous, baseUrl).toBeFalsy();
      expect(err(o).message, baseUrl).toMatch(/not sent/);
    }
  });
});

describe('the retry rules as a table', () => {
  const env = (status: number, tasks: unknown[] = []) => ({ kind: 'answer' as const, httpStatus: 200, body: '', envelope: { version: 'v', status_code: status, status_message: 'm', time: '0', cost: 0, tasks_count: tasks.length, tasks_error: 0, tasks: tasks as never } });
  const net = (code: string) => ({ kind: 'network' as const, error: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) }), timeout: false, notSent: code === 'ECONNREFUSED' });
  it.each([
    ['connection refused, task_post', net('ECONNREFUSED'), false, 'retry'],
    ['connection reset, task_post', net('ECONNRESET'), false, 'ambiguous'],
    ['connection reset, GET', net('ECONNRESET'), true, 'retry'],
    ['HTTP 504, task_post', { kind: 'answer' as const, httpStatus: 504, body: '' }, false, 'ambiguous'],
    ['HTTP 503, task_post', { kind: 'answer' as const, httpStatus: 503, body: '' }, false, 'retry'],
    ['HTTP 402', { kind: 'answer' as const, httpStatus: 402, body: '' }, true, 'refuse'],
    ['envelope 40200', env(40200), true, 'refuse'],
    ['envelope 40204 with tasks', env(40204, [{ status_code: 40204 }]), false, 'refuse'],
    ['envelope 40202', env(40202), false, 'retry'],
    ['envelope 50301, nothing accepted', env(50301, [{ status_code: 50301 }]), false, 'retry'],
    ['envelope 50000 but a task was created', env(50000, [{ status_code: 20100 }]), false, 'accept'],
    ['envelope 40501 with tasks (per-task errors)', env(40501, [{ status_code: 40501 }]), false, 'accept'],
    ['task 40501 on a GET (validation: never retried)', env(20000, [{ status_code: 40501 }]), true, 'accept'],
    ['task 40202 on a GET', env(20000, [{ status_code: 40202 }]), true, 'retry'],
  ])('%s -> %s', (_name, attempt, idempotent, action) => {
    expect(judgeAttempt(attempt as never, idempotent as boolean).action).toBe(action);
  });
});

describe('credentials never reach the log', () => {
  it('a run with retries and failures logs every retry and failure, with the password and Basic token redacted', async () => {
    const c = client();
    sandbox.controls.setFaults([{ path: getPrefix(), http500: 1 }, { path: postPath(), dropAfter: 1 }]);
    err(await c.taskGet('keywords_for_site.task_get', '11111111-2222-3333-4444-555555555555'));
    await c.postTasks('keywords_for_site.task_post', [site(1)]);
    const out = lines.join('');
    const [, token] = secretsOf({ login: config.sandbox.login, password: PASSWORD });
    expect(lines.filter((l) => l.includes('"retrying"'))).toHaveLength(3);
    expect(lines.some((l) => l.includes('giving up'))).toBe(true);
    expect(lines.some((l) => l.includes('"ambiguous":true'))).toBe(true);
    expect(lines.every((l) => JSON.parse(l).component === 'api')).toBe(true);
    expect(out).toContain(`"authorization":"${REDACTED}"`);
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toContain(token);
  });

  it('the logger scrubs a secret wherever it appears: message, nested fields, errors', () => {
    const seen: string[] = [];
    const log = createLogger({ level: 'info', secrets: [PASSWORD], destination: { write: (s: string) => { seen.push(s); } } });
    log.warn({ deep: { list: [`x${PASSWORD}y`] }, err: new Error(`bad ${PASSWORD}`), password: 'p', login: 'l' }, `message with ${PASSWORD}`);
    const line = seen.join('');
    expect(line).not.toContain(PASSWORD);
    expect(line).toContain(`x${REDACTED}y`);
    expect(line).toContain(`message with ${REDACTED}`);
    expect(JSON.parse(line)).toMatchObject({ password: REDACTED, login: REDACTED });
    expect(scrubSecrets({ a: PASSWORD }, [PASSWORD])).toEqual({ a: REDACTED });
  });
});

describe('the account limiter keeps a live sandbox from ever answering 40202', () => {
  it('60 calls against a sandbox limit of 20 per 400 ms, with the client at the same limit', async () => {
    const tight = loadConfig({ root: ROOT, env: {}, overrides: { sandbox: { password: PASSWORD, rate_limit_calls: 20, rate_limit_window_ms: 400 } } });
    const box = await startSandbox({ config: tight, port: 0 });
    try {
      const limiter = new RateLimiter({ calls: 20, windowMs: 400, concurrency: 4 });
      const c = new ApiClient({ baseUrl: box.url, credentials: { login: tight.sandbox.login, password: PASSWORD }, engines: tight.paths, limiter, timeoutMs: 3000, retries: 0, retryBaseMs: 5, tasksPerPost: 100, logger: createLogger({ level: 'silent' }) });
      const results = await Promise.all(Array.from({ length: 60 }, () => c.list('serp.events.locations')));
      for (const r of results) ok(r);
      expect(box.controls.rateLimitAnswers()).toBe(0);
      expect(limiter.stats().maxInWindow).toBeLessThanOrEqual(20);
    } finally {
      await box.close();
    }
  });
});
