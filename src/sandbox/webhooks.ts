/**
 * Pingback (GET) and postback (POST, gzip JSON) delivery when a task with a callback address completes.
 * Delivery outcome decides the ready list: a delivered task is not listed; a failed one (no answer within the
 * callback timeout, a connection error, or an HTTP status below 200 or above 300) is listed and recorded for E13.
 */
import http from 'node:http';
import https from 'node:https';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { formatTimestamp, type Envelope } from '../api/envelope.js';
import type { SandboxContext } from './context.js';
import type { StoredTask } from './store.js';

const gzipAsync = promisify(gzip);

/** Fills `$id` and `$tag` (url-encoded) in a callback address and url-encodes the characters a URL may not hold. */
export function callbackUrl(template: string, id: string, tag: string | null): string {
  const filled = template.replace(/\$id/g, id).replace(/\$tag/g, encodeURIComponent(tag ?? ''));
  return filled.replace(/[^A-Za-z0-9\-._~:/?[\]@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

export interface DeliveryResult {
  ok: boolean;
  httpCode: number;
  seconds: number;
  response: string;
  error?: string;
}

export function send(url: string, method: 'GET' | 'POST', body: Buffer | null, timeoutMs: number): Promise<DeliveryResult> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<DeliveryResult, 'seconds'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, seconds: Math.round(seconds() * 1e4) / 1e4 });
    };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      resolve({ ok: false, httpCode: 0, seconds: 0, response: '', error: `the callback address is not a URL: ${url}` });
      return;
    }
    const lib = parsed.protocol === 'https:' ? https : http;
    const headers: Record<string, string | number> = { 'user-agent': 'seo-etl-sandbox' };
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
    const req = lib.request(parsed, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < 4096) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8').slice(0, 1000);
        finish({ ok: code >= 200 && code <= 300, httpCode: code, response: text, error: code >= 200 && code <= 300 ? undefined : `the receiving server answered HTTP ${code}` });
      });
      res.on('error', (e) => finish({ ok: false, httpCode: res.statusCode ?? 0, response: '', error: e.message }));
    });
    const timer = setTimeout(() => {
      finish({ ok: false, httpCode: 0, response: '', error: `no answer within ${timeoutMs} ms; the connection was aborted` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => finish({ ok: false, httpCode: 0, response: '', error: e.message }));
    req.end(body ?? undefined);
  });
}

export class Webhooks {
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private ctx: SandboxContext, private postbackEnvelope: (task: StoredTask) => Envelope) {}

  /** Starts the deliveries that are due and arms the timer for the next one. */
  pump(): void {
    if (this.closed) return;
    const now = this.ctx.clock.now();
    const next = this.ctx.store.nextCallbackAt();
    if (next !== null && next <= now) {
      for (const task of this.ctx.store.takeDueCallbacks(now)) {
        const p = this.deliver(task).finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      }
    }
    this.arm();
  }

  /** Resolves when no delivery is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    const next = this.ctx.store.nextCallbackAt();
    if (next === null) return;
    const wait = Math.max(0, next - this.ctx.clock.now());
    const at = Date.now() + wait;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.pump();
    }, Math.min(wait, 2_147_483_647));
    this.timer.unref();
  }

  private async deliver(task: StoredTask): Promise<void> {
    const cb = task.callback!;
    const url = callbackUrl(cb.url, task.id, task.tag);
    const method = cb.kind === 'pingback' ? 'GET' : 'POST';
    let body: Buffer | null = null;
    if (cb.kind === 'postback') body = await gzipAsync(Buffer.from(JSON.stringify(this.postbackEnvelope(task))));
    const r = await send(url, method, body, this.ctx.settings.callbackTimeoutMs);
    if (this.closed) return;
    this.ctx.store.setDelivery(task, r.ok);
    if (!r.ok) {
      const at = this.ctx.clock.now();
      const timedOut = r.httpCode === 0 && /no answer within/.test(r.error ?? '');
      this.ctx.records.errors.push({
        id: task.id,
        datetime: formatTimestamp(new Date(at)),
        function: cb.kind === 'pingback' ? 'pingback_url' : 'postback_url',
        error_code: r.httpCode || (timedOut ? 50401 : 50000),
        error_message: r.error ?? 'delivery failed',
        http_url: url,
        http_method: method,
        http_code: r.httpCode,
        http_time: r.seconds,
        http_response: r.response,
        at,
      });
    }
  }
}
