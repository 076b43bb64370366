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
import { documentProblem, isArchiveRecord, isEnvelope, notJson, resolveEndpoint, type ArchiveProblem, type ArchiveRecord } from './records.js';
import type { ArchiveEntry } from './writer.js';
import { jsonText } from '../normalize/json-text.js';
import type { ApiTask } from '../api/envelope.js';

/** One JSON document of an ingested file and where it is: its line (1 for a file of one document) and, in a JSON array, its item. */
export interface ResponseDoc { doc: unknown; file: string; line: number; item?: number }

/**
 * The JSON documents of one file, and what of it is not JSON, named by line (readArchiveLine's rule for a line that
 * is not JSON): a bad line costs only itself. A file that is neither one document nor NDJSON is one problem.
 */
export function readResponseFile(file: string): { docs: ResponseDoc[]; problems: ArchiveProblem[] } {
  const text = responseText(file);
  try {
    const doc = JSON.parse(text);
    return { docs: Array.isArray(doc) ? doc.map((d, item) => ({ doc: d, file, line: 1, item })) : [{ doc, file, line: 1 }], problems: [] };
  } catch (err) {
    const lines = text.split('\n');
    const envelope = (l: string) => { try { return documentProblem(JSON.parse(l)) === null; } catch { return false; } };
    // NDJSON when it has lines and one of them is an envelope alone; else one document (pretty-printed, cut) that is not JSON.
    if (lines.filter((l) => l.trim()).length < 2 || !lines.some((l) => l.trim() && envelope(l))) {
      return { docs: [], problems: [{ file, line: errorLine(text, err), ...notJson(text, err) }] };
    }
  }
  const out: { docs: ResponseDoc[]; problems: ArchiveProblem[] } = { docs: [], problems: [] };
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.docs.push({ doc: JSON.parse(line), file, line: i + 1 });
    } catch (err) {
      out.problems.push({ file, line: i + 1, ...notJson(line, err) });
    }
  });
  return out;
}

/** A file's text, gunzipped when it is gzip (a truncated file gives what it has). */
function responseText(file: string): string {
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
  return buf.toString('utf8').replace(/^\uFEFF/, '');
}

/** The 1-based line where JSON.parse stopped: the line of the last text before its position, else (the input ended) the last line. */
function errorLine(text: string, err: unknown): number {
  const m = /at position (\d+)/.exec((err as Error).message);
  const upTo = (m ? text.slice(0, Number(m[1])) : text).replace(/\s+$/, '');
  return upTo.split('\n').length;
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
