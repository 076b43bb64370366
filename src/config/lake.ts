/** The `lake:` section of the configuration: where on S3-protocol object storage the lake lives (docs/parquet.md). */
import { z } from 'zod';

export interface LakeLocation {
  /** The URL as configured, without a trailing slash: s3://bucket/prefix. */
  url: string;
  bucket: string;
  /** The key prefix every object of the lake starts with: empty or ending in '/'. */
  prefix: string;
}

/** Bucket names as S3 allows them (3-63 characters; R2, GCS and MinIO take the same). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The lake's bucket and prefix, or why the URL cannot name one. Pure. */
export function parseLakeUrl(url: string): LakeLocation | { problem: string } {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url.trim());
  if (!m) return { problem: `must be s3://<bucket>/<prefix> (empty: no lake), got '${url}'` };
  const bucket = m[1];
  if (!BUCKET.test(bucket)) return { problem: `the bucket '${bucket}' is not a bucket name (3-63 lower-case letters, digits, '.' and '-')` };
  const parts = (m[2] ?? '').split('/').filter((p) => p !== '');
  if (parts.some((p) => p === '.' || p === '..')) return { problem: `the prefix may not hold '.' or '..' segments, got '${m[2]}'` };
  const prefix = parts.length ? `${parts.join('/')}/` : '';
  return { url: `s3://${bucket}${prefix ? `/${prefix.slice(0, -1)}` : ''}`, bucket, prefix };
}

export const lakeSchema = z.strictObject({
  url: z.string().superRefine((url, ctx) => {
    const parsed = url === '' ? undefined : parseLakeUrl(url);
    if (parsed && 'problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
  }),
});

export type LakeConfig = z.infer<typeof lakeSchema>;

/** The variable that names the S3 endpoint, if one does: the S3-specific one wins, as in the AWS tools. */
export function lakeEndpoint(env: NodeJS.ProcessEnv): { name: string; value: string } | undefined {
  for (const name of ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL']) if (env[name]) return { name, value: env[name]! };
  return undefined;
}

/** Problems with the AWS variables a configured lake reads, each naming its variable; empty when none. Pure. */
export function lakeEnvProblems(env: NodeJS.ProcessEnv): { variable: string; rule: string }[] {
  const out: { variable: string; rule: string }[] = [];
  const endpoint = lakeEndpoint(env);
  if (endpoint) {
    let ok = false;
    try { const u = new URL(endpoint.value); ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''; } catch { /* reported below */ }
    if (!ok) out.push({ variable: endpoint.name, rule: `must be the S3 endpoint's http:// or https:// address, got '${endpoint.value}'` });
  }
  const id = Boolean(env.AWS_ACCESS_KEY_ID);
  const secret = Boolean(env.AWS_SECRET_ACCESS_KEY);
  if (id !== secret) out.push({ variable: id ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID', rule: `must be set with ${id ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'} (or neither: a profile or the instance's role)` });
  return out;
}
