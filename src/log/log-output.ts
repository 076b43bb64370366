/**
 * Where a run's log lines go. The log file always gets pino's JSON. stderr gets human lines, one per event
 * ("02:15:07 WARN  POST without a clear answer  step=products tasks=30"), formatted by pino-pretty (pino's own
 * formatter) unless JSON is asked for (`--log-format json`, SEO_ETL_LOG_FORMAT=json); on a terminal with the progress
 * bar, and with --quiet, only warnings and errors, so the bar and a cron mail stay readable.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { UserError } from '../exit.js';

export type LogFormat = 'human' | 'json';

/** The format SEO_ETL_LOG_FORMAT names (human when unset). */
export function logFormat(env: NodeJS.ProcessEnv, flag?: string): LogFormat {
  const v = flag ?? env.SEO_ETL_LOG_FORMAT;
  if (v === undefined || v === '' || v === 'human') return 'human';
  if (v === 'json') return 'json';
  throw new UserError(`${flag === undefined ? 'SEO_ETL_LOG_FORMAT' : '--log-format'}: must be human or json, got '${v}'`);
}

/** Fields every line carries, that the message already says, or that only the log file needs (a request's URL and headers). */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'run_id', 'msg', 'request']);

/** A field's value on a human line: objects as their non-zero entries, a long one by its size (the log file has it all). */
function value(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v).filter(([, x]) => x !== 0 && x !== null);
    if (entries.length > 6) return `(${entries.length} entries)`;
    return entries.map(([k, x]) => `${k}:${typeof x === 'object' ? JSON.stringify(x) : String(x)}`).join(',') || '-';
  }
  return JSON.stringify(v);
}

/** A log record as one human line's message part: the message, then key=value for its other fields. */
export function humanMessage(log: Record<string, unknown>): string {
  const err = log.err as { message?: string } | undefined;
  const fields = Object.entries(log)
    .filter(([k, v]) => !HIDDEN.has(k) && k !== 'err' && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  return [String(log.msg ?? ''), ...(err?.message ? [`error=${value(err.message)}`] : []), ...fields].join('  ');
}

export interface StderrLogOptions {
  level: string;
  format: LogFormat;
  /** A progress bar is drawn on stderr, or --quiet: warnings and errors only. */
  warningsOnly: boolean;
  stream?: NodeJS.WritableStream;
  /** Where human lines go instead, while a progress bar is drawn (Progress.log prints them above it). */
  through?: { drawn: boolean; log(line: string): void };
}

/** The stderr entry of the run's pino multistream. */
export function stderrLog(o: StderrLogOptions): pino.StreamEntry {
  const level = o.warningsOnly && pino.levels.values[o.level] < pino.levels.values.warn ? 'warn' : o.level;
  const dest = o.stream ?? process.stderr;
  if (o.format === 'json') return { level: level as pino.Level, stream: dest };
  const format = prettyFactory({
    colorize: false, hideObject: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name',
    messageFormat: (log) => humanMessage(log as Record<string, unknown>),
  });
  // One line per record (pino-pretty leaves the line open when the object is hidden).
  const stream = new Writable({
    write(chunk, _enc, done) {
      const raw = format(JSON.parse(String(chunk)));
      const line = raw.endsWith('\n') ? raw : `${raw}\n`;
      if (o.through?.drawn) o.through.log(line);
      else dest.write(line);
      done();
    },
  });
  return { level: level as pino.Level, stream };
}
