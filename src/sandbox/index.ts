/**
 * The embedded sandbox: an HTTP server on 127.0.0.1 that emulates the whole API (docs/sandbox.md).
 * `startSandbox({config})` -> `{url, port, controls, close()}`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/index.js';
import { systemClock, type SandboxClock } from './clock.js';
import { TaskStore, type StoredTask } from './store.js';
import { TaskJournal } from './journal.js';
import { Records } from './records.js';
import { Faults } from './faults.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { Webhooks } from './webhooks.js';
import { createApiHandler } from './server.js';
import { createControls, handleControlRequest, type SandboxControls } from './controls.js';
import type { SandboxContext } from './context.js';
import { postbackEnvelope } from './postback.js';
import { SandboxAccount } from './account.js';
import { loadFamilySandboxes } from './families/index.js';

export type { SandboxClock } from './clock.js';
export { systemClock, manualClock, clockOnDay } from './clock.js';
export type { SandboxControls, TaskSnapshot } from './controls.js';
export type { AccountSettings } from './account.js';
export type { FaultRule } from './faults.js';
export type { CallRecord, Posting, Charge, ErrorRecord } from './records.js';
export { basicAuthHeader } from './auth.js';

export interface StartSandboxOptions {
  config: Config;
  /** Port to listen on; default config.sandbox.port (0 picks a free one). */
  port?: number;
  host?: string;
  clock?: SandboxClock;
  /** How long a pingback or postback may take before it counts as failed; default config.sandbox.callback_timeout_ms or 10000. */
  callbackTimeoutMs?: number;
  /** Credentials to accept instead of config.sandbox.login/password (e.g. what credentialsFor(config) gives the client). */
  credentials?: { login: string; password: string };
  /** Where the sandbox keeps its tasks across processes (journal.ts); without it, it forgets them when it stops. */
  stateFile?: string;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  controls: SandboxControls;
  /** Answers served from generated results kept for reuse (sandbox.result_variants above 0). */
  readonly resultCache?: { hits: number; misses: number };
  close(): Promise<void>;
}

export async function startSandbox(opts: StartSandboxOptions): Promise<Sandbox> {
  const { config } = opts;
  const s = config.sandbox;
  const effective: Config = opts.credentials ? { ...config, sandbox: { ...s, login: opts.credentials.login, password: opts.credentials.password } } : config;
  const clock = opts.clock ?? systemClock();
  // The families' answers (their folders' sandbox parts) before the first request.
  const families = await loadFamilySandboxes();
  const state = opts.stateFile ? TaskJournal.open(opts.stateFile) : undefined;
  const store = new TaskStore(state?.journal);
  if (state) {
    store.restore(state.events, clock.now());
    // A clock moved onto the run's date must not read earlier than the tasks its journal holds for that day: a
    // resume on a later morning would otherwise find them posted in the future and never completed.
    const last = store.lastPostedOnDayOf(clock.now());
    if (last !== null && last >= clock.now()) clock.advance(last + 1 - clock.now());
  }
  const records = new Records();
  const ctx: SandboxContext = {
    config: effective,
    families,
    engines: config.paths,
    clock,
    store,
    records,
    account: new SandboxAccount(records),
    resultCache: s.result_variants > 0 ? { results: new Map(), hits: 0, misses: 0 } : undefined,
    settings: {
      completionDelayMs: s.completion_delay_ms,
      reparseShare: s.reparse_share,
      callbackTimeoutMs: opts.callbackTimeoutMs ?? s.callback_timeout_ms ?? 10_000,
      keywordsPerSiteTask: s.keywords_per_site_task,
      suggestionsPerKeyword: s.suggestions_per_keyword,
      merchantItems: s.merchant_items,
      generatedItems: s.generated_items,
      resultVariants: s.result_variants,
    },
    onCallbackScheduled: () => webhooks.pump(),
  };
  const faults = new Faults();
  const limiter = new SlidingWindowLimiter(s.rate_limit_calls, s.rate_limit_window_ms);
  const webhooks: Webhooks = new Webhooks(ctx, (task: StoredTask) => postbackEnvelope(task, ctx));
  const controls = createControls(ctx, faults, limiter, webhooks);
  const api = createApiHandler({ ctx, faults, accountLimiter: limiter, beforeRequest: () => webhooks.pump() });

  const server = http.createServer({ keepAlive: true, keepAliveTimeout: 65_000 }, (req, res) => {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
    if (path.startsWith('/_sandbox/')) {
      handleControlRequest(req, res, path, controls, ctx).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err?.message ?? err) }));
      });
      return;
    }
    void api(req, res, path, query);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // A malformed request line or header must not take the process down.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? s.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    controls,
    resultCache: ctx.resultCache,
    close: async () => {
      webhooks.close();
      store.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
