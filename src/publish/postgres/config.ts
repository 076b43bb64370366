/**
 * The `postgres:` section of the configuration and the one place a connection URL is shown: every message that
 * names the destination goes through `redactUrl`, so the password never reaches a log, a summary or an error.
 */
import { z } from 'zod';

const PROTOCOLS = new Set(['postgres:', 'postgresql:']);

/** Why a URL cannot be a PostgreSQL connection, or undefined. The message never repeats the URL (it holds a password). */
export function postgresUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL such as postgres://user:password@host:5432/database (empty: no PostgreSQL destination)';
  }
  if (!PROTOCOLS.has(u.protocol)) return `must start with postgres:// or postgresql://, got ${u.protocol}//`;
  if (!u.hostname) return 'must name a host (postgres://user:password@host:5432/database)';
  if (u.port && !(Number(u.port) > 0 && Number(u.port) < 65536)) return `port must be 1-65535, got ${u.port}`;
  return undefined;
}

export const postgresSchema = z.strictObject({
  url: z.string().superRefine((url, ctx) => {
    const problem = url === '' ? undefined : postgresUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a PostgreSQL schema name of lower-case letters, digits and _ (not starting with a digit)'),
});

export type PostgresConfig = z.infer<typeof postgresSchema>;

/** The URL with its password replaced by `***` (and any `password=` query parameter too). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return '(unparsable PostgreSQL URL)';
  }
}

/** Every occurrence of the URL's password (plain and URL-encoded) in a text, replaced by `***`. */
export function redactText(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  try {
    const u = new URL(url);
    const secrets = [u.password, decodeURIComponent(u.password), ...[...u.searchParams.entries()].filter(([k]) => /pass/i.test(k)).map(([, v]) => v)];
    for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('***');
  } catch { /* not a URL: nothing more to hide */ }
  return out;
}
