/**
 * The raw archive writer: every API response body, appended as one NDJSON line to gzip files under
 * `<dir>/<yyyy-mm-dd>/<run_id>-<n>.ndjson.gz`.
 *
 * Line format (keys in this order; the loader peeks at the prefix without parsing the whole line):
 *   {"run_id":..,"seq":..,"endpoint_id":..,"method":..,"path":..,"received_at":..,"http_status":..,"response":<body>}
 * The body is spliced in verbatim (no re-serialisation) when it is valid single-line JSON; a body with line
 * breaks is re-serialised compactly; a body that is not JSON goes in as `"response_text":"<string>"`.
 *
 * Crash safety: an open file is named `*.ndjson.gz.partial`. An append's promise resolves only once its line is
 * gzip-SYNC_FLUSHed into the file, so a killed process leaves a partial file readable up to its last complete line
 * (the reader salvages it) and holding every line whose append resolved. Rotation (by size) and close end the gzip
 * stream, fsync and rename to `*.ndjson.gz` atomically, so a reader never sees a torn stream under the final name.
 *
 * Group commit: lines appended while a flush is under way wait for the next one, which writes them all and
 * flushes once. Under a burst (64 postbacks in flight) one flush serves dozens of lines instead of each line
 * queueing behind its own flush, and an append still resolves only after the flush that covers it.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { constants as zc, createGzip, type Gzip } from 'node:zlib';
import { jsonText } from '../normalize/json-text.js';

export interface ArchiveEntry {
  endpointId: string | null;
  method: string;
  path: string;
  httpStatus: number;
  /** The response body as received. */
  body: string;
  receivedAt?: Date;
  /**
   * The body's JSON value, when the caller has parsed it already (so it is valid JSON): spares a second parse.
   * Left out, the writer parses the body itself to tell JSON from text.
   */
  parsed?: unknown;
}

export interface ArchiveWriterOptions {
  /** The raw archive root, `<warehouse.dir>/raw`. */
  dir: string;
  runId: string;
  /** Uncompressed bytes per file before rotating (default 64 MiB). */
  maxBytes?: number;
  now?: () => Date;
  /** Writes compressed bytes to the open file (default `fs.writeSync`); a test's full disk throws here. */
  write?: (fd: number, chunk: Buffer) => void;
}

interface Waiting {
  line: string;
  at: Date;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const SAFE_RUN = /^[A-Za-z0-9._-]+$/;

/** The NDJSON line for one response (without the trailing newline). */
export function archiveLine(runId: string, seq: number, e: ArchiveEntry, receivedAt: Date): string {
  const head = `{"run_id":${JSON.stringify(runId)},"seq":${seq},"endpoint_id":${JSON.stringify(e.endpointId)},"method":${JSON.stringify(e.method)},"path":${JSON.stringify(e.path)},"received_at":${JSON.stringify(receivedAt.toISOString())},"http_status":${e.httpStatus}`;
  const body = e.body;
  let parsed: unknown = e.parsed;
  let ok = e.parsed !== undefined;
  if (!ok) {
    try {
      parsed = JSON.parse(body);
      ok = true;
    } catch {
      ok = false;
    }
  }
  if (!ok) return `${head},"response_text":${JSON.stringify(body)}}`;
  const single = body.indexOf('\n') < 0 && body.indexOf('\r') < 0 && body.indexOf('\u2028') < 0 && body.indexOf('\u2029') < 0;
  return `${head},"response":${single ? body.trim() : jsonText(parsed)}}`;
}

/** zlib output buffer: a large body comes back in a few pieces (a round trip to the thread pool and a file write each), not in 16 KiB ones. */
const GZIP_CHUNK = 256 * 1024;

const joined = (parts: Buffer[]): Buffer => (parts.length === 1 ? parts[0] : Buffer.concat(parts));

export class ArchiveWriter {
  private gzip: Gzip | null = null;
  private fd: number | null = null;
  private file: string | null = null;
  private bytes = 0;
  private seq = 0;
  private fileNo = 0;
  /** Lines appended since the last flush began, in append order, with their callers. */
  private waiting: Waiting[] = [];
  /** The running group commit, if any; it loops until nothing is waiting. */
  private committing: Promise<void> | null = null;
  private readonly maxBytes: number;
  private readonly now: () => Date;
  /** Final names of the files this writer closed. */
  readonly closedFiles: string[] = [];
  /** How many lines each of closedFiles holds (ingest names an archived line by the file it came from). */
  readonly closedLines: number[] = [];
  /** Lines written to the open file. */
  private lines = 0;

  constructor(private readonly opts: ArchiveWriterOptions) {
    if (!SAFE_RUN.test(opts.runId)) throw new Error(`archive: runId: only letters, digits, '.', '_' and '-' go in a file name, got '${opts.runId}'`);
    this.maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Appends one response. The promise resolves when the line has reached the file (gzip-flushed), so a caller
   * that awaits it before normalizing keeps the rule "archived before normalized" even across a crash.
   */
  append(entry: ArchiveEntry): Promise<void> {
    const receivedAt = entry.receivedAt ?? this.now();
    const line = archiveLine(this.opts.runId, this.seq++, entry, receivedAt) + '\n';
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ line, at: receivedAt, resolve, reject });
      this.committing ??= this.commitLoop();
    });
  }

  /** A hook for the API client: `onResponse(raw)` with the body and what the client knows of the call. */
  hook(): (raw: ArchiveEntry) => Promise<void> {
    return (raw) => this.append(raw);
  }

  /** Writes and flushes what is waiting, group by group, until nothing is; one group at a time. */
  private async commitLoop(): Promise<void> {
    try {
      for (;;) {
        // A group waits for the end of the event loop's current turn: the requests handled in that turn join it.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!this.waiting.length) break;
        const group = this.waiting;
        this.waiting = [];
        try {
          await this.writeGroup(group);
        } catch (err) {
          for (const w of group) w.reject(err);
          continue;
        }
        for (const w of group) w.resolve();
      }
    } finally {
      this.committing = null;
    }
  }

  private async writeGroup(group: readonly Waiting[]): Promise<void> {
    // A file that could not be written is left as it is (.partial: its lines up to the failure are readable) and
    // the next group starts a new one.
    if (this.gzip && this.broken) this.abandonFile();
    // Lines go out in runs that fit the current file; a full file is closed (ended, fsynced, renamed) first. Each
    // line is encoded to UTF-8 once: its bytes are both what is counted and what zlib gets.
    let run: Buffer[] = [];
    for (const w of group) {
      if (!this.gzip || this.bytes >= this.maxBytes) {
        if (run.length) this.gzip!.write(joined(run));
        run = [];
        if (this.gzip) await this.closeFile();
        this.openFile(w.at);
      }
      const bytes = Buffer.from(w.line);
      this.bytes += bytes.length;
      this.lines++;
      run.push(bytes);
    }
    // Every write is SYNC_FLUSHed (the stream's flush mode): its callback runs once its bytes are in the file.
    const last = joined(run);
    await new Promise<void>((resolve, reject) => this.gzip!.write(last, (err) => (err ? reject(err) : resolve())));
    if (this.broken) throw this.broken;
  }

  /** Set when a write to the open file failed: nothing more goes to that file, and no line of it is acknowledged. */
  private broken: Error | null = null;

  private openFile(at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const dir = path.join(this.opts.dir, day);
    mkdirSync(dir, { recursive: true });
    // A resumed run continues numbering after the files it already has.
    const prefix = `${this.opts.runId}-`;
    let max = this.fileNo;
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(prefix)) continue;
      const m = /^(\d+)\.ndjson\.gz(\.partial)?$/.exec(f.slice(prefix.length));
      if (m) max = Math.max(max, Number(m[1]));
    }
    this.fileNo = max + 1;
    this.file = path.join(dir, `${prefix}${String(this.fileNo).padStart(4, '0')}.ndjson.gz.partial`);
    this.fd = openSync(this.file, 'wx');
    const fd = this.fd;
    // Z_SYNC_FLUSH as the flush mode of every write: one pass through zlib per group instead of a write and a
    // separate flush (two round trips to the thread pool).
    const gz = createGzip({ level: 6, flush: zc.Z_SYNC_FLUSH, chunkSize: GZIP_CHUNK });
    this.gzip = gz;
    this.broken = null;
    // Written synchronously as gzip produces it: when a write's callback runs, its bytes are in the file. After a
    // failed write nothing more is written to the file (bytes after a gap would be unreadable anyway).
    gz.on('data', (chunk: Buffer) => {
      if (this.gzip !== gz || this.broken) return;
      try {
        (this.opts.write ?? writeSync)(fd, chunk);
      } catch (err) {
        this.broken = err as Error;
      }
    });
    this.bytes = 0;
    this.lines = 0;
  }

  /** Drops a file a write failed on, under its .partial name; the reader salvages its complete lines. */
  private abandonFile(): void {
    const gz = this.gzip!;
    const fd = this.fd!;
    this.gzip = null;
    this.fd = null;
    this.file = null;
    this.broken = null;
    gz.destroy();
    try {
      closeSync(fd);
    } catch {
      // already unusable
    }
  }

  private async closeFile(): Promise<void> {
    if (this.broken) {
      const err = this.broken;
      this.abandonFile();
      throw err;
    }
    const gz = this.gzip!;
    const fd = this.fd!;
    const file = this.file!;
    await new Promise<void>((resolve, reject) => {
      gz.once('end', resolve);
      gz.once('error', reject);
      gz.end();
      gz.resume();
    });
    if (this.broken) {
      const err = this.broken;
      this.abandonFile();
      throw err;
    }
    this.gzip = null;
    this.fd = null;
    this.file = null;
    fsyncSync(fd);
    closeSync(fd);
    const final = file.replace(/\.partial$/, '');
    renameSync(file, final);
    this.closedFiles.push(final);
    this.closedLines.push(this.lines);
  }

  /** Closes the current file (renamed to its final name). */
  async close(): Promise<void> {
    while (this.committing) await this.committing.catch(() => undefined);
    if (this.gzip) await this.closeFile();
  }
}
