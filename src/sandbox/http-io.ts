/** Reading request bodies and writing JSON answers, without ever throwing into the server. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export type BodyOutcome = { ok: true; text: string } | { ok: false; problem: string };

export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) tooBig = true;
      else chunks.push(c);
    });
    req.on('error', (e) => resolve({ ok: false, problem: `the request body could not be read (${e.message})` }));
    req.on('end', () => {
      if (tooBig) return resolve({ ok: false, problem: `the body is larger than ${maxBytes} bytes` });
      let buf = Buffer.concat(chunks);
      const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
      if (encoding === 'gzip') {
        try {
          buf = gunzipSync(buf, { maxOutputLength: maxBytes });
        } catch (e) {
          return resolve({ ok: false, problem: `the body is declared gzip but does not decompress (${(e as Error).message})` });
        }
      }
      resolve({ ok: true, text: buf.toString('utf8') });
    });
  });
}

export type ParsedBody = { ok: true; tasks: unknown[] } | { ok: false; code: 40502 | 40503; detail: string };

/** The POST body rules: JSON, an array, not empty. */
export function parseTasks(text: string): ParsedBody {
  if (text.trim() === '') return { ok: false, code: 40502, detail: 'the body is empty; send a JSON array of task objects' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, code: 40503, detail: `the body is not valid JSON (${(e as Error).message})` };
  }
  if (!Array.isArray(value)) {
    const got = value === null ? 'null' : typeof value === 'object' ? 'an object' : typeof value;
    return { ok: false, code: 40503, detail: `the body must be a JSON array of task objects (got ${got})` };
  }
  if (value.length === 0) return { ok: false, code: 40502, detail: 'the body is an empty array; send at least one task object' };
  return { ok: true, tasks: value };
}

export function sendJson(res: ServerResponse, httpStatus: number, body: string, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(httpStatus, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...extraHeaders });
  res.end(body);
}

export function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || (address?.startsWith('127.') ?? false);
}
