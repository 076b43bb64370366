import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseYamlDocument, formatIssues, type PositionedIssue } from './yaml.js';

export const ENGINE_TOKENS = ['engine_a', 'engine_b', 'engine_c', 'engine_d'] as const;
export type EngineToken = (typeof ENGINE_TOKENS)[number];
export type Engines = Record<EngineToken, string>;

const segment = z.string().regex(/^[a-z0-9_]+$/, 'a path segment of lower-case letters, digits and _');

const priceSchema = z.strictObject({
  per_task: z.number().nonnegative(),
  per_extra_10_results: z.number().nonnegative().optional(),
  priority_2_multiplier: z.number().positive().optional(),
});

export const configSchema = z.strictObject({
  api: z.strictObject({
    base_url: z.union([z.literal('sandbox'), z.url({ protocol: /^https?$/ })]),
    timeout_ms: z.int().positive(),
    retries: z.int().min(0).max(20),
    retry_base_ms: z.int().positive(),
    tasks_per_post: z.int().min(1).max(100),
  }),
  engines: z.strictObject({ engine_a: segment, engine_b: segment, engine_c: segment, engine_d: segment }),
  rate_limit: z.strictObject({
    calls: z.int().positive(),
    window_ms: z.int().positive(),
    concurrency: z.int().positive().max(256),
  }),
  prices: z.record(z.string(), priceSchema),
  warehouse: z.strictObject({ dir: z.string().min(1) }),
  webhook: z.strictObject({
    listen_host: z.string().min(1),
    listen_port: z.int().min(0).max(65535),
    public_url: z.string(),
    max_body_bytes: z.int().positive(),
    callback_timeout_ms: z.int().positive(),
  }),
  sandbox: z.strictObject({
    port: z.int().min(0).max(65535),
    login: z.string().min(1),
    password: z.string().min(1),
    completion_delay_ms: z.int().min(0),
    reparse_share: z.number().min(0).max(1),
    keywords_per_site_task: z.int().min(1).max(700),
    suggestions_per_keyword: z.int().min(1).max(700),
    merchant_items: z.int().min(4).max(200),
    rate_limit_calls: z.int().positive(),
    rate_limit_window_ms: z.int().positive(),
  }),
});

export type Config = z.infer<typeof configSchema>;
export type PriceTable = Config['prices'];

export interface Credentials { login: string; password: string }

export class ConfigError extends Error {
  constructor(readonly issues: PositionedIssue[]) {
    super(formatIssues(issues));
    this.name = 'ConfigError';
  }
}

/** Environment overrides: SEO_ETL_<SECTION>_<KEY>, for example SEO_ETL_API_BASE_URL or SEO_ETL_RATE_LIMIT_CALLS. */
function applyEnv(raw: Record<string, any>, env: NodeJS.ProcessEnv): void {
  for (const [section, values] of Object.entries(raw)) {
    if (!values || typeof values !== 'object' || section === 'prices') continue;
    for (const key of Object.keys(values)) {
      const name = `SEO_ETL_${section}_${key}`.toUpperCase();
      const v = env[name];
      if (v === undefined) continue;
      const current = values[key];
      values[key] = typeof current === 'number' ? Number(v) : v;
    }
  }
}

function deepMerge(base: any, over: any): any {
  if (over === undefined || over === null) return base;
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof over !== 'object' || Array.isArray(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

export interface LoadConfigOptions {
  /** Project root holding config/; defaults to the current directory. */
  root?: string;
  env?: NodeJS.ProcessEnv;
  /** Values merged last, for tests and for command-line flags. */
  overrides?: Record<string, unknown>;
}

/** Loads config/default.yaml, then config/local.yaml, then SEO_ETL_* variables, and validates the result. */
export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const root = opts.root ?? process.cwd();
  const env = opts.env ?? process.env;
  const files = [path.join(root, 'config', 'default.yaml'), path.join(root, 'config', 'local.yaml')];
  if (!existsSync(files[0])) files[0] = new URL('../../config/default.yaml', import.meta.url).pathname;
  let merged: Record<string, any> = {};
  for (const file of files) {
    if (!existsSync(file)) continue;
    const doc = parseYamlDocument(readFileSync(file, 'utf8'), file);
    if (doc.issues.length) throw new ConfigError(doc.issues);
    const check = configSchema.partial().safeParse(doc.value ?? {});
    if (!check.success) throw new ConfigError(doc.locateZodIssues(check.error.issues));
    merged = deepMerge(merged, doc.value);
  }
  merged = deepMerge(merged, opts.overrides ?? {});
  applyEnv(merged, env);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => ({ file: 'configuration', line: 0, column: 0, key: i.path.join('.'), rule: i.message })));
  }
  return result.data;
}

/**
 * Credentials for the configured service. The sandbox's come from its own config section;
 * a real service's only from SEO_ETL_LOGIN / SEO_ETL_PASSWORD, never from a file.
 */
export function credentialsFor(config: Config, env: NodeJS.ProcessEnv = process.env): Credentials {
  if (config.api.base_url === 'sandbox') {
    return { login: env.SEO_ETL_LOGIN ?? config.sandbox.login, password: env.SEO_ETL_PASSWORD ?? config.sandbox.password };
  }
  const login = env.SEO_ETL_LOGIN;
  const password = env.SEO_ETL_PASSWORD;
  const missing = [!login && 'SEO_ETL_LOGIN', !password && 'SEO_ETL_PASSWORD'].filter(Boolean);
  if (missing.length) {
    throw new ConfigError([{ file: 'environment', line: 0, column: 0, key: missing.join(', '), rule: `required when api.base_url is ${config.api.base_url}: set the live service's API credentials in the environment` }]);
  }
  return { login: login!, password: password! };
}
