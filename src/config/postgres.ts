/** The `postgres:` section of the configuration: a connection URL (checked without ever repeating it: it holds a password) and a schema. */
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
