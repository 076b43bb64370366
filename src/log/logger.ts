/**
 * The logger every stage writes to (the run, the client, collection, publishing): pino, with credentials kept out
 * of every line.
 *
 * Two layers, because either alone leaks: pino's path redaction removes the fields that hold credentials by name
 * (Authorization headers, login, password) wherever the client puts them; the scrubber replaces a secret value
 * (the password, the Basic token) where a credential can stand in any string, for example in an error message
 * that echoes a URL, a header or a body (src/log/secret-text.ts), not wherever its letters occur.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Credentials } from '../config/index.js';
import { UserError } from '../exit.js';
import { logFormat, stderrLog } from './log-output.js';
import { redactSecretsIn } from './secret-text.js';

export type { Logger } from 'pino';

export const REDACTED = '[redacted]';

/** Field paths that hold credentials, at the top level and one or two levels down (request.headers.authorization). */
export const REDACT_PATHS: readonly string[] = [
  'authorization', 'Authorization', 'password', 'login', 'credentials',
  '*.authorization', '*.Authorization', '*.password', '*.login', '*.credentials',
  '*.headers.authorization', '*.headers.Authorization', 'headers.authorization', 'headers.Authorization',
];

/** The values that must never appear in a log line: the password and the Basic token made from it. */
export function secretsOf(credentials: Credentials): string[] {
  const token = Buffer.from(`${credentials.login}:${credentials.password}`).toString('base64');
  return [credentials.password, token].filter((s) => s.length > 0);
}

/** A copy of `value` with the secrets replaced where they can stand, in strings at any depth (errors included). */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const seen = new WeakMap<object, unknown>();
  const scrubString = (s: string) => redactSecretsIn(s, secrets, REDACTED);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubString(v);
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return seen.get(v);
    if (v instanceof Error) {
      const e: Record<string, unknown> = { type: v.name, message: scrubString(v.message) };
      seen.set(v, e);
      if (v.stack) e.stack = scrubString(v.stack);
      const code = (v as { code?: unknown }).code;
      if (code !== undefined) e.code = walk(code);
      if (v.cause !== undefined) e.cause = walk(v.cause);
      return e;
    }
    if (Array.isArray(v)) {
      const arr: unknown[] = [];
      seen.set(v, arr);
      for (const item of v) arr.push(walk(item));
      return arr;
    }
    const obj: Record<string, unknown> = {};
    seen.set(v, obj);
    for (const [k, item] of Object.entries(v)) obj[k] = walk(item);
    return obj;
  };
  return walk(value) as T;
}

export interface CreateLoggerOptions {
  level?: string;
  /** Where lines go (tests pass a stream to read them back); stderr by default (human lines), keeping stdout for command output. */
  destination?: DestinationStream;
  /** Secret values to scrub from every line (see secretsOf). */
  secrets?: readonly string[];
  name?: string;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** The level SEO_ETL_LOG_LEVEL names (info when unset); an unknown name is an error that lists the known ones. */
export function logLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const v = env.SEO_ETL_LOG_LEVEL;
  if (v === undefined || v === '') return 'info';
  if ((LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new UserError(`SEO_ETL_LOG_LEVEL: must be one of ${LEVELS.join(', ')}, got '${v}'`);
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const secrets = [...(opts.secrets ?? [])];
  return pino(
    {
      name: opts.name ?? 'seo-etl',
      level: opts.level ?? logLevel(),
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      hooks: {
        logMethod(args, method) {
          const clean = scrubSecrets(args, secrets) as unknown[];
          return (method as (...a: unknown[]) => void).apply(this, clean);
        },
      },
    },
    // Off a run (plan, check, sandbox), lines for people on stderr, or JSON when SEO_ETL_LOG_FORMAT=json.
    opts.destination ?? stderrLog({ level: opts.level ?? logLevel(), format: logFormat(process.env), warningsOnly: false }).stream,
  );
}

/**
 * A child of any logger (one the caller built without our options included) that redacts credential fields.
 * Values are scrubbed by the client before it logs, since a child cannot add a logMethod hook.
 */
export function apiLogger(parent: Logger, bindings: Record<string, unknown> = {}): Logger {
  return parent.child(bindings, { redact: { paths: [...REDACT_PATHS], censor: REDACTED } });
}
