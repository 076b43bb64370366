/**
 * Reading the raw archive back, streaming (memory stays flat however large the archive): complete lines only.
 * A `.partial` file left by a killed process, or a gzip stream cut short, is read up to its last complete line;
 * what could not be read is reported, never thrown, so one torn file cannot stop a reprocess: readProblem names it.
 * A closed `.gz` file always ends with its gzip trailer (the writer ends the stream before the rename), so one without
 * it was cut short, even where the cut fell between two lines.
 */
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { idsInText, type ArchiveProblem } from './records.js';

export interface ReadReport {
  file: string;
  lines: number;
  /** Bytes of an unterminated last line that were dropped. */
  droppedBytes: number;
  /** Why reading stopped early (corrupt gzip data), if it did. */
  error?: string;
  /** The gzip stream ended without its trailer: the file was cut short (a `.partial` file always is). */
  unterminated?: true;
  /** The 1-based number of the line last yielded (blank lines counted); read it as each line comes. */
  at?: number;
  /** The start of the unterminated last line that was dropped (where its task ids are read). */
  torn?: string;
}

/** How much of a torn last line is kept to read its task ids from (they come early in a line). */
const TORN_HEAD = 64 * 1024;

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
  // A stream cut short yields everything it holds, then fails with "unexpected end of file" (Z_BUF_ERROR).
  const stream = gz ? input.pipe(createGunzip({ chunkSize: 1 << 18 })) : input;
  let rest: Buffer | null = null;
  let lineNo = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      let nl: number;
      while ((nl = buf.indexOf(10, start)) >= 0) {
        lineNo++;
        if (nl > start) {
          report.lines++;
          report.at = lineNo;
          yield buf.subarray(start, nl);
        }
        start = nl + 1;
      }
      rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      buf = Buffer.alloc(0);
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'Z_BUF_ERROR') report.unterminated = true;
    else report.error = (err as Error).message;
  } finally {
    input.destroy();
  }
  report.at = lineNo;
  if (rest && rest.length) {
    report.droppedBytes = rest.length;
    report.torn = rest.subarray(0, TORN_HEAD).toString('utf8');
  }
}

/**
 * What a file's reading could not give, named (readLines's report, read after its iteration): the torn last line
 * (its line number, the task ids its start shows), or where corrupt gzip data stopped the reading. Pure.
 */
export function readProblem(r: ReadReport): ArchiveProblem | null {
  const line = (r.at ?? r.lines) + 1;
  const gzip = r.error ? ` (gzip: ${r.error})` : '';
  if (r.droppedBytes && !r.error && r.file.endsWith('.partial')) {
    // A killed run's open file: its last write was cut, the answer never loaded, and the run's resume fetches it again.
    return { file: r.file, line, task: idsInText(r.torn ?? ''), reason: `a killed run's last line, cut in its write; the ${r.lines} line(s) before it are read (its task was not loaded: \`resume\` fetches it again)`, crashTail: true };
  }
  if (r.droppedBytes) {
    return { file: r.file, line, task: idsInText(r.torn ?? ''), reason: `cut short: the file ends inside this line${gzip}; the ${r.lines} line(s) before it are read` };
  }
  if (r.error) return { file: r.file, line, task: null, reason: `the file cannot be read from here on${gzip}; the ${r.lines} line(s) before it are read` };
  if (r.unterminated && !r.file.endsWith('.partial')) {
    return { file: r.file, line, task: null, reason: `cut short: the gzip file ends without its trailer, after a complete line; the ${r.lines} line(s) before it are read, and any written after them are lost` };
  }
  return null;
}
