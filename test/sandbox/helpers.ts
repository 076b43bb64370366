/** Shared by the sandbox conformance tests: a sandbox per file and a raw HTTP client that shows everything. */
import http from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startSandbox, manualClock, type Sandbox, type SandboxClock } from '../../src/sandbox/index.js';
import { endpoint, resolvePath } from '../../src/api/catalog.js';

export const ENGINES = { engine_a: 'alpha', engine_b: 'bravo', engine_c: 'charlie', engine_d: 'delta', keywords_data: 'alpha_ads', keywords_data_legacy: 'alpha', merchant: 'alpha' };

export function testConfig(sandbox: Record<string, unknown> = {}): Config {
  return loadConfig({
    root: new URL('../..', import.meta.url).pathname,
    env: {},
    overrides: { paths: ENGINES, sandbox: { login: 'tester', password: 's3cret', completion_delay_ms: 1000, ...sandbox } },
  });
}

export interface Started {
  sandbox: Sandbox;
  config: Config;
  clock: SandboxClock;
}

export async function start(sandbox: Record<string, unknown> = {}, opts: { clock?: SandboxClock; callbackTimeoutMs?: number } = {}): Promise<Started> {
  const config = testConfig(sandbox);
  const clock = opts.clock ?? manualClock(Date.UTC(2026, 10, 1, 12));
  const sb = await startSandbox({ config, port: 0, clock, callbackTimeoutMs: opts.callbackTimeoutMs });
  return { sandbox: sb, config, clock };
}

/**
 * One sandbox for a test file: started before its tests, closed after them, and reset before each test when asked.
 * Its parts are read through the returned object once the file's tests run.
 */
export function useSandbox(settings: Record<string, unknown>, opts: { reset?: boolean } = {}): Started & { api: ReturnType<typeof client> } {
  let started: { s: Started; api: ReturnType<typeof client> } | undefined;
  beforeAll(async () => {
    const s = await start(settings);
    started = { s, api: client(s.sandbox) };
  });
  afterAll(() => started?.s.sandbox.close());
  if (opts.reset) beforeEach(() => started!.s.sandbox.controls.reset());
  const ready = () => {
    if (!started) throw new Error('useSandbox: read before the file\'s tests started');
    return started;
  };
  return {
    get sandbox() { return ready().s.sandbox; },
    get config() { return ready().s.config; },
    get clock() { return ready().s.clock; },
    get api() { return ready().api; },
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One HTTP exchange; `auth: null` sends no credentials, a string sends that header value. */
export function call(base: string, method: string, path: string, opts: { body?: unknown; raw?: string | Buffer; auth?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const auth = opts.auth === undefined ? `Basic ${Buffer.from('tester:s3cret').toString('base64')}` : opts.auth;
  const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, agent, headers: { ...(auth ? { authorization: auth } : {}), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function client(sb: Sandbox) {
  return {
    get: (path: string, opts: Parameters<typeof call>[3] = {}) => call(sb.url, 'GET', path, opts),
    post: (path: string, body: unknown, opts: Parameters<typeof call>[3] = {}) => call(sb.url, 'POST', path, { body, ...opts }),
  };
}

/** The configured path of a catalog endpoint. */
export function pathOf(id: string, taskId?: string): string {
  return resolvePath(endpoint(id), ENGINES, taskId === undefined ? {} : { id: taskId });
}

export const ZERO = '00000000-0000-0000-0000-000000000000';
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+00:00$/;
export const TIME = /^\d+\.\d{4} sec\.$/;
