/**
 * Ingest: response files saved elsewhere (the live service's answers, postback bodies, another machine's
 * archive) are added to the raw archive first, then loaded from it, exactly as reprocess would load them.
 * Accepted: JSON or gzip JSON (detected by content, not name), one envelope per file, a JSON array of envelopes,
 * or NDJSON (one envelope or archive line per line).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Engines } from '../config/index.js';
import { findEndpoint, resolvePath } from '../api/catalog.js';
import { type EndpointDef } from '../catalog/endpoint.js';
import { UserError } from '../exit.js';
import { isArchiveRecord, isEnvelope, resolveEndpoint, type ArchiveRecord } from './records.js';
import type { ArchiveEntry } from './writer.js';
import { jsonText } from '../normalize/json-text.js';
import type { ApiTask } from '../api/envelope.js';

/** The JSON documents of one file, each with where it came from (for error messages). */
export function readResponseFile(file: string): { doc: unknown; where: string }[] {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    throw new UserError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      buf = gunzipSync(buf, { finishFlush: 2 /* Z_SYNC_FLUSH: a truncated file yields what it has */ });
    } catch (err) {
      throw new UserError(`${file}: gzip: ${(err as Error).message}`);
    }
  }
  const text = buf.toString('utf8').replace(/^\uFEFF/, '');
  try {
    const doc = JSON.parse(text);
    return (Array.isArray(doc) ? doc : [doc]).map((d, i) => ({ doc: d, where: Array.isArray(doc) ? `${file}[${i}]` : file }));
  } catch {
    // not one document: NDJSON
  }
  const out: { doc: unknown; where: string }[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push({ doc: JSON.parse(line), where: `${file}:${i + 1}` });
    } catch (err) {
      throw new UserError(`${file}:${i + 1}: not JSON (${(err as Error).message}); expected an envelope per file or one per line`);
    }
  });
  return out;
}

/** An archive entry for an ingested document: its endpoint and path as best known from its tasks. */
export function entryOf(doc: unknown, where: string, engines: Engines): ArchiveEntry {
  if (isArchiveRecord(doc)) {
    const rec = doc as ArchiveRecord;
    const body = rec.response !== undefined ? jsonText(rec.response) : rec.response_text ?? '';
    return { endpointId: rec.endpoint_id ?? null, method: rec.method ?? 'GET', path: rec.path ?? '', httpStatus: rec.http_status ?? 200, body, receivedAt: rec.received_at ? new Date(rec.received_at) : undefined };
  }
  if (!isEnvelope(doc)) throw new UserError(`${where}: tasks: required (an API response envelope has a "tasks" array)`);
  const ids = new Set<string>();
  let def: EndpointDef | undefined;
  let first: ApiTask | undefined;
  for (const t of doc.tasks as ApiTask[]) {
    if (!t || typeof t !== 'object') continue;
    first ??= t;
    const id = resolveEndpoint(t, {}, engines);
    ids.add(id);
    def ??= findEndpoint(id);
  }
  const single = ids.size === 1 && def ? def : undefined;
  const taskPath = first && Array.isArray(first.path) ? `/${first.path.join('/')}` : '';
  let pathText = taskPath;
  if (single && !taskPath) pathText = resolvePath(single, engines, { id: first?.id ?? 'unknown' });
  return { endpointId: single ? single.id : null, method: single ? single.method : 'GET', path: pathText, httpStatus: 200, body: jsonText(doc) };
}
