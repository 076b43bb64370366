/**
 * The embedded webhook receiver for pingbacks (GET) and postbacks (POST, gzip JSON).
 *
 * Callbacks are not signed by the service, so every URL carries a per-run secret in its path; a request without
 * it is answered 404 and has no effect. Bodies are bounded twice: on the wire (max_body_bytes) and after gunzip
 * (the same bound), so a gzip bomb is cut off after max_body_bytes of output instead of exhausting memory.
 * The gunzip is synchronous: a postback is a few KB, and a stream through the thread pool cost three times the
 * CPU of inflating it in place (the bound keeps the worst case, a bomb, to max_body_bytes of inflating).
 * A malformed body is answered 400 and reported, never thrown into the run.
 *
 * The answer waits for the handler: a callback the run did not take (a task it does not know yet, or any more) is
 * answered 404, so the service counts the delivery as failed and lists the task as ready instead. Answering 200
 * would make the service forget it: a task whose POST answer was never recorded (a crash) could then not be
 * found again by its tag, and would be posted twice.
 */
import http from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Envelope } from '../api/envelope.js';
import { redactSecret } from './redact.js';

export interface PingbackEvent { id: string; tag: string | null; receivedAt: Date }
export interface PostbackEvent { id: string | null; tag: string | null; envelope: Envelope; body: string; receivedAt: Date }
export interface RejectedEvent { reason: string; status: number; path: string }

export interface WebhookReceiverOptions {
  host: string;
  port: number;
  /** Address the service calls; empty means http://host:port as bound. */
  publicUrl?: string;
  maxBodyBytes: number;
  /** Returns false when the run does not take the callback (answered 404); anything else is a 200. */
  onPingback?: (e: PingbackEvent) => void | boolean | Promise<void | boolean>;
  onPostback?: (e: PostbackEvent) => void | boolean | Promise<void | boolean>;
  onRejected?: (e: RejectedEvent) => void;
  /** Fixed secret for tests; a fresh random one per run otherwise. */
  secret?: string;
}

export interface WebhookReceiver {
  /** `pingback_url` to give the service, with $id and $tag for it to fill in. */
  pingbackUrl: string;
  postbackUrl: string;
  port: number;
  stats(): { pingbacks: number; postbacks: number; rejected: number; unclaimed: number };
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}
/** The run's handler failed on a well-formed callback: answered 500, so the service lists the task instead. */
class HandlerError extends Error {}

async function handled<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new HandlerError((err as Error)?.message ?? String(err));
  }
}

function readLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        (stream as NodeJS.ReadableStream & { destroy?: (e?: Error) => void }).destroy?.(new BodyTooLarge(`body over ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

async function decodeBody(req: http.IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(`content-length ${declared} over ${limit} bytes`);
  const raw = await readLimited(req, limit);
  const gzipped = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  return (gzipped ? gunzipLimited(raw, limit) : raw).toString('utf8');
}

/** Inflates a gzip body, stopping (BodyTooLarge) as soon as the output passes `limit`. */
function gunzipLimited(raw: Buffer, limit: number): Buffer {
  try {
    return gunzipSync(raw, { maxOutputLength: limit });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLarge(`body over ${limit} bytes after gunzip`);
    throw err;
  }
}

function sameSecret(given: string, secret: Buffer): boolean {
  const g = Buffer.from(given);
  return g.length === secret.length && timingSafeEqual(g, secret);
}

export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const secretText = opts.secret ?? randomBytes(24).toString('hex');
  const secret = Buffer.from(secretText);
  const counts = { pingbacks: 0, postbacks: 0, rejected: 0, unclaimed: 0 };
  const unclaimed = (res: http.ServerResponse) => {
    counts.unclaimed++;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown task');
  };

  const reject = (res: http.ServerResponse, status: number, reason: string, path: string) => {
    counts.rejected++;
    opts.onRejected?.({ reason, status, path: redactSecret(path) });
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(reason);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    const [, prefix, given, kind] = url.pathname.split('/');
    if (prefix !== 'cb' || !given || !sameSecret(given, secret)) return reject(res, 404, 'not found', url.pathname);
    const id = url.searchParams.get('id');
    const tag = url.searchParams.get('tag');
    try {
      if (kind === 'pingback' && req.method === 'GET') {
        if (!id) return reject(res, 400, 'pingback without id', url.pathname);
        counts.pingbacks++;
        if ((await handled(() => opts.onPingback?.({ id, tag, receivedAt: new Date() }))) === false) return unclaimed(res);
        res.writeHead(200).end('ok');
        return;
      }
      if (kind === 'postback' && req.method === 'POST') {
        const body = await decodeBody(req, opts.maxBodyBytes);
        let envelope: Envelope;
        try {
          envelope = JSON.parse(body) as Envelope;
        } catch {
          return reject(res, 400, 'body is not valid JSON', url.pathname);
        }
        if (!envelope || typeof envelope !== 'object' || !Array.isArray(envelope.tasks)) return reject(res, 400, 'body is not a response envelope (no tasks array)', url.pathname);
        counts.postbacks++;
        if ((await handled(() => opts.onPostback?.({ id, tag, envelope, body, receivedAt: new Date() }))) === false) return unclaimed(res);
        res.writeHead(200).end('ok');
        return;
      }
      return reject(res, 405, `method ${req.method} not allowed for ${kind ?? 'this path'}`, url.pathname);
    } catch (err) {
      if (err instanceof BodyTooLarge) return reject(res, 413, err.message, url.pathname);
      if (!res.headersSent && err instanceof HandlerError) return reject(res, 500, `handler failed: ${err.message}`, url.pathname);
      if (!res.headersSent) return reject(res, 400, `bad body: ${(err as Error).message}`, url.pathname);
      opts.onRejected?.({ reason: `handler failed: ${(err as Error).message}`, status: 200, path: redactSecret(url.pathname) });
    }
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const base = (opts.publicUrl || `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`).replace(/\/+$/, '');
  return {
    pingbackUrl: `${base}/cb/${secretText}/pingback?id=$id&tag=$tag`,
    postbackUrl: `${base}/cb/${secretText}/postback?id=$id&tag=$tag`,
    port,
    stats: () => ({ ...counts }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
