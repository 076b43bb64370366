/** docs/api-live.md `## Limits and account`: user_data, `seo-etl check`, the account's answers, webhook_resend. */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProject, ROOT, type TestProject } from '../helpers/project.js';
import { ApiClient, ApiError } from '../../src/api/client.js';
import { RateLimiter } from '../../src/queue/index.js';
import { checkCommand, compareBalance, summarizeUserData } from '../../src/check/index.js';
import { planCommand } from '../../src/run/command.js';
import { describeError, exitCodeOf, EXIT } from '../../src/exit.js';

let p: TestProject;
beforeAll(async () => { p = await startProject({ sandbox: { completion_delay_ms: 0, rate_limit_calls: 100000 } }); });
afterAll(() => p.close());
beforeEach(() => p.sandbox.controls.reset());

const apiClient = (password = p.config.sandbox.password) => new ApiClient({
  baseUrl: p.sandbox.url, credentials: { login: p.config.sandbox.login, password }, engines: p.config.paths,
  limiter: new RateLimiter({ calls: 100000, windowMs: 60000, concurrency: 4 }), timeoutMs: 5000, retries: 1, retryBaseMs: 5, tasksPerPost: 100,
});
const TASK = { keyword: 'tent', location_code: 2840, language_code: 'en' };
const refusal = async (fn: () => Promise<unknown>): Promise<ApiError> => {
  try { await fn(); } catch (err) { if (err instanceof ApiError) return err; throw err; }
  throw new Error('expected an ApiError');
};
const PIPELINE = (() => {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-check-'));
  const file = path.join(dir, 'shop.yaml');
  writeFileSync(file, 'name: shop\nbudget_usd: 1\nsteps:\n  - name: shop\n    endpoint: merchant.google.products.task_post\n    params: { location_code: 2840, language_code: en, depth: 120 }\n    for_each:\n      keyword: [tent, stove, lantern, boots]\n    collect: tasks_ready\n');
  return file;
})();

describe('the account', () => {
  it('[account.user_data] user_data is free and tells login, balance, limits and use, in the live shape', async () => {
    await apiClient().postTasks('merchant.google.products.task_post', [TASK]);
    p.sandbox.controls.setAccount({ funds: 50, dailyCostLimit: 5 });
    const o = await apiClient().list('appendix.user_data');
    expect(o.ok).toBe(true);
    const r = (o as any).task.result[0];
    expect(r).toMatchObject({ login: p.config.sandbox.login, timezone: 'UTC', money: { total: 50, balance: 50 - p.sandbox.controls.billed(), limits: { day: { total: 5 } } }, rates: { limits: { minute: { total: 100000 } } } });
    expect(summarizeUserData(r)).toEqual({ login: p.config.sandbox.login, balance: 50 - p.sandbox.controls.billed(), dailyCostLimit: 5, spentToday: p.sandbox.controls.billed(), callsPerMinute: 100000, timeZone: 'UTC' });
    expect((o as any).cost).toBe(0);
    expect(p.sandbox.controls.charges()).toHaveLength(1);
  });

  it('[account.check] `seo-etl check` proves the credentials, shows the balance and compares it with a pipeline\'s plan', async () => {
    const env = { SEO_ETL_API_BASE_URL: p.sandbox.url, SEO_ETL_LOGIN: p.config.sandbox.login, SEO_ETL_PASSWORD: p.config.sandbox.password };
    const lines: string[] = [];
    expect(await checkCommand({ root: ROOT, env, out: (l) => lines.push(l) })).toBe(EXIT.ok);
    expect(lines).toEqual([`credentials: accepted by ${p.sandbox.url}`, `account: ${p.config.sandbox.login}`, 'balance: $1000.0000', 'daily cost limit: none', 'rate limit: 100000 calls a minute']);
    // 4 tasks of depth 120 = 3 pages each at the configured page price.
    lines.length = 0;
    expect(await checkCommand({ root: ROOT, env, pipeline: PIPELINE, out: (l) => lines.push(l) })).toBe(EXIT.ok);
    expect(lines.at(-1)).toBe(`${PIPELINE}: the balance $1000.0000 covers the plan's $0.0240`);
    p.sandbox.controls.setAccount({ funds: 0.01 });
    lines.length = 0;
    expect(await checkCommand({ root: ROOT, env, pipeline: PIPELINE, out: (l) => lines.push(l) })).toBe(EXIT.budget);
    expect(lines.at(-1)).toBe(`${PIPELINE}: the balance $0.0100 does not cover the plan's $0.0240`);
    expect(compareBalance({ login: 'x', balance: 10, dailyCostLimit: 1, spentToday: 0.99, callsPerMinute: 1, timeZone: null }, 0.02)).toEqual({ enough: false, message: "the daily cost limit leaves $0.0100 today, less than the plan's $0.0200" });
    // Wrong credentials: an ApiError (exit 5) naming what to check, printed without a stack.
    const err = await refusal(() => checkCommand({ root: ROOT, env: { ...env, SEO_ETL_PASSWORD: 'wrong' }, out: () => {} }));
    expect(exitCodeOf(err)).toBe(EXIT.refused);
    expect(describeError(err)).toMatch(/HTTP 401.*check SEO_ETL_LOGIN and SEO_ETL_PASSWORD/);
    expect(describeError(err)).not.toContain('    at ');
  });

  it('[account.plan] `plan` adds the balance when it reaches the service and only a note when it cannot', async () => {
    const saved = { ...process.env };
    const write = process.stdout.write;
    const out: string[] = [];
    process.stdout.write = ((c: string) => { out.push(String(c)); return true; }) as never;
    try {
      Object.assign(process.env, { SEO_ETL_API_BASE_URL: p.sandbox.url, SEO_ETL_LOGIN: p.config.sandbox.login, SEO_ETL_PASSWORD: p.config.sandbox.password });
      expect(await planCommand({ root: ROOT, pipeline: PIPELINE, json: false })).toBe(EXIT.ok);
      expect(out.join('')).toContain("plan: the balance $1000.0000 covers the plan's $0.0240");
      out.length = 0;
      process.env.SEO_ETL_API_BASE_URL = 'http://127.0.0.1:9'; // nothing listens there
      expect(await planCommand({ root: ROOT, pipeline: PIPELINE, json: false })).toBe(EXIT.ok);
      expect(out.join('')).toMatch(/account: not checked \(appendix\.user_data: the service could not be reached: /);
      expect(out.join('')).toContain('Plan for shop');
    } finally {
      process.stdout.write = write;
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('[account.answers] 401, 402, 40203, 40204 stop the call with their advice and cost nothing; 40205/40206 refuse the repeated task only', async () => {
    const e401 = await refusal(() => apiClient('wrong').postTasks('merchant.google.products.task_post', [TASK]));
    expect([e401.httpStatus, e401.code]).toEqual([401, 40100]);
    p.sandbox.controls.setAccount({ funds: 0 });
    const e402 = await refusal(() => apiClient().postTasks('merchant.google.products.task_post', [TASK]));
    expect([e402.httpStatus, e402.code, e402.exitCode]).toEqual([402, 40200, EXIT.refused]);
    expect(e402.message).toContain('top up the balance, then `seo-etl resume`');
    p.sandbox.controls.setAccount({ funds: 1000, dailyCostLimit: 0.002 });
    await apiClient().postTasks('merchant.google.products.task_post', [TASK]);
    const e40203 = await refusal(() => apiClient().postTasks('merchant.google.products.task_post', [{ ...TASK, keyword: 'stove' }]));
    expect([e40203.httpStatus, e40203.code]).toEqual([200, 40203]);
    expect(e40203.message).toContain('daily cost limit');
    p.sandbox.controls.setAccount({ dailyCostLimit: null, deniedEndpoints: ['serp.events.task_post'] });
    const e40204 = await refusal(() => apiClient().postTasks('serp.events.task_post', [{ keyword: 'jazz', location_code: 2840 }]));
    expect(e40204.code).toBe(40204);
    expect(e40204.message).toContain('no access to this endpoint');
    expect(p.sandbox.controls.postings()).toHaveLength(1);
    p.sandbox.controls.setAccount({ deniedEndpoints: [], duplicatesPerHour: 1 });
    const [a, b, c] = await apiClient().postTasks('merchant.google.products.task_post', [{ ...TASK, keyword: 'lamp' }, { ...TASK, keyword: 'lamp', tag: 'again' }, { ...TASK, keyword: 'rope' }]);
    expect([a.ok, b.ok, c.ok]).toEqual([true, false, true]);
    expect(!b.ok && b.error.code).toBe(40205);
    p.sandbox.controls.setAccount({ duplicatesPerHour: null, duplicatesPerDay: 1 });
    const [d] = await apiClient().postTasks('merchant.google.products.task_post', [{ ...TASK, keyword: 'rope' }]);
    expect(!d.ok && d.error.code).toBe(40206);
    expect(p.sandbox.controls.postings()).toHaveLength(3);
  });

  it('[account.webhook_resend] a failed postback is re-sent by webhook_resend, free, and up to 100 ids a call', async () => {
    let hits = 0;
    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits++;
        if (hits === 1) { res.writeHead(500); res.end(); return; }
        bodies.push(gunzipSync(Buffer.concat(chunks)).toString('utf8'));
        res.writeHead(200); res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pb?id=$id`;
      const [posted] = await apiClient().postTasks('merchant.google.products.task_post', [{ ...TASK, postback_url: url, postback_data: 'advanced' }]);
      const id = (posted as any).task.id;
      await p.sandbox.controls.settle();
      expect(hits).toBe(1);
      expect(p.sandbox.controls.tasks()[0].delivery).toBe('failed');
      const billed = p.sandbox.controls.billed();
      const [again, unknown] = await apiClient().resendWebhooks([id, '00000000-0000-0000-0000-00000000abcd']);
      expect(again.ok).toBe(true);
      expect(!unknown.ok && unknown.error.code).toBe(40401);
      await p.sandbox.controls.settle();
      expect(hits).toBe(2);
      expect(JSON.parse(bodies[0]).tasks[0]).toMatchObject({ id, status_code: 20000 });
      expect(p.sandbox.controls.tasks()[0].delivery).toBe('delivered');
      expect(p.sandbox.controls.billed()).toBe(billed);
      const many = Array.from({ length: 150 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`);
      const outcomes = await apiClient().resendWebhooks(many);
      expect(outcomes).toHaveLength(150);
      expect(p.sandbox.controls.calls().filter((c) => c.endpointId === 'appendix.webhook_resend')).toHaveLength(3);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});
