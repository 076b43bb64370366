/**
 * Reading the raw archive back, streaming (memory stays flat however large the archive): complete lines only.
 * A `.partial` file left by a killed process, or a gzip stream cut short, is read up to its last complete line;
 * what could not be read is reported, never thrown, so one torn file cannot stop a reprocess.
 */
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { constants as zc, createGunzip } from 'node:zlib';

export interface ReadReport {
  file: string;
  lines: number;
  /** Bytes of an unterminated last line that were dropped. */
  droppedBytes: number;
  /** Why reading stopped early (corrupt gzip data), if it did. */
  error?: string;
}

/** Files of the archive in load order: by day, then run and file number; `.partial` files included. */
export function listArchiveFiles(rawDir: string): string[] {
  if (!existsSync(rawDir)) return [];
  const out: string[] = [];
  for (const day of readdirSync(rawDir).sort()) {
    const dir = path.join(rawDir, day);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir).filter((f) => /\.ndjson(\.gz)?(\.partial)?$/.test(f));
    files.sort((a, b) => fileKey(a).localeCompare(fileKey(b)));
    for (const f of files) out.push(path.join(dir, f));
  }
  return out;
}

function fileKey(name: string): string {
  const m = /^(.*)-(\d+)\.ndjson/.exec(name);
  return m ? `${m[1]}\u0000${m[2].padStart(10, '0')}` : name;
}

/**
 * Complete lines of one archive file (gzip or plain), as Buffers without the newline. `report` is filled as it
 * goes; read it after the iteration ends.
 */
export async function* readLines(file: string, report: ReadReport = { file, lines: 0, droppedBytes: 0 }): AsyncGenerator<Buffer> {
  const gz = /\.gz(\.partial)?$/.test(file);
  const input = createReadStream(file, { highWaterMark: 1 << 20 });
  // SYNC_FLUSH at the end: a stream cut short yields what it has instead of failing with "unexpected end".
  const stream = gz ? input.pipe(createGunzip({ finishFlush: zc.Z_SYNC_FLUSH, chunkSize: 1 << 18 })) : input;
  let rest: Buffer | null = null;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      let nl: number;
      while ((nl = buf.indexOf(10, start)) >= 0) {
        if (nl > start) {
          report.lines++;
          yield buf.subarray(start, nl);
        }
        start = nl + 1;
      }
      rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      buf = Buffer.alloc(0);
    }
  } catch (err) {
    report.error = (err as Error).message;
  } finally {
    input.destroy();
  }
  if (rest && rest.length) report.droppedBytes = rest.length;
}
