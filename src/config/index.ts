import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseYamlDocument, formatIssues, type PositionedIssue, type ParsedYaml } from './yaml.js';

export const ENGINE_TOKENS = ['engine_a', 'engine_b', 'engine_c', 'engine_d'] as const;
export type EngineToken = (typeof ENGINE_TOKENS)[number];
export type Engines = Record<EngineToken, string>;

const segment = z.string().regex(/^[a-z0-9_]+$/, 'a path segment of lower-case letters, digits and _');

const SIZE = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;
const size = z.string().regex(SIZE, 'a size such as 256MB or 2GiB');
const UNIT_BYTES: Record<string, number> = { kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** Bytes of a size as DuckDB reads it (KB = 1000 bytes, KiB = 1024). */
export function sizeInBytes(s: string): number {
  const m = SIZE.exec(s.trim());
  if (!m) throw new Error(`not a size: '${s}' (a size such as 256MB or 2GiB)`);
  return Math.round(Number(m[1]) * UNIT_BYTES[m[2].toLowerCase()]);
}

/** Below this a checkpoint ran out of memory here (64MB, in a live 100,000-task night: other connections share the limit). */
const MIN_CHECKPOINT_MEMORY = 128e6;

/** DuckDB's own row group size; larger sizes need a newer storage version than the files we write. */
export const DUCKDB_ROW_GROUP_SIZE = 122_880;
/** A row group holds whole vectors of 2048 rows. */
const ROW_GROUP_MULTIPLE = 2048;

/** The rule a row group size breaks, or undefined (DuckDB refuses the ATTACH otherwise). */
export function rowGroupSizeProblem(n: number): string | undefined {
  if (!Number.isInteger(n) || n < ROW_GROUP_MULTIPLE || n > DUCKDB_ROW_GROUP_SIZE || n % ROW_GROUP_MULTIPLE) {
    return `must be a multiple of ${ROW_GROUP_MULTIPLE} from ${ROW_GROUP_MULTIPLE} to ${DUCKDB_ROW_GROUP_SIZE}, got ${n}`;
  }
  return undefined;
}

const priceSchema = z.strictObject({
  per_task: z.number().nonnegative(),
  per_extra_10_results: z.number().nonnegative().optional(),
  // Pages billed past the first (merchant: a SERP of up to 40 results): per_extra_page for each page of results_per_page.
  per_extra_page: z.number().nonnegative().optional(),
  results_per_page: z.int().positive().optional(),
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
  warehouse: z
    .strictObject({
      dir: z.string().min(1),
      memory_limit: size,
      cache_between_loads: size,
      checkpoint_wal: size,
      checkpoint_memory: size,
      row_group_size: z.int(),
      merge_row_groups: z.boolean(),
    })
    .superRefine((w, ctx) => {
      const limit = sizeInBytes(w.memory_limit);
      if (sizeInBytes(w.cache_between_loads) > limit) {
        ctx.addIssue({ code: 'custom', path: ['cache_between_loads'], message: `must not be more than memory_limit (${w.memory_limit})` });
      }
      if (sizeInBytes(w.checkpoint_memory) < MIN_CHECKPOINT_MEMORY) {
        ctx.addIssue({ code: 'custom', path: ['checkpoint_memory'], message: 'must be at least 128MB: a DuckDB checkpoint that runs out of memory can invalidate the database for the rest of the run, and at 64MB one ran out in a 100,000-task night' });
      }
      const rowGroups = rowGroupSizeProblem(w.row_group_size);
      if (rowGroups) ctx.addIssue({ code: 'custom', path: ['row_group_size'], message: rowGroups });
      if (sizeInBytes(w.checkpoint_wal) < 1e6) ctx.addIssue({ code: 'custom', path: ['checkpoint_wal'], message: 'must be at least 1MB' });
    }),
  collect: z.strictObject({
    poll_min_ms: z.int().positive(),
    poll_max_ms: z.int().positive(),
    straggler_after_ms: z.int().positive(),
    ambiguous_grace_ms: z.int().min(0),
    drain_timeout_ms: z.int().positive(),
    load_batch: z.int().positive().max(10_000),
    live_concurrency: z.int().positive().max(64),
  }),
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
    /** How long the sandbox waits for a pingback/postback receiver (the live service: 10 s). */
    callback_timeout_ms: z.int().positive().optional(),
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
function applyEnv(raw: Record<string, any>, env: NodeJS.ProcessEnv): { path: string[]; name: string }[] {
  const applied: { path: string[]; name: string }[] = [];
  for (const [section, values] of Object.entries(raw)) {
    if (!values || typeof values !== 'object' || section === 'prices') continue;
    for (const key of Object.keys(values)) {
      const name = `SEO_ETL_${section}_${key}`.toUpperCase();
      const v = env[name];
      if (v === undefined) continue;
      const current = values[key];
      values[key] = typeof current === 'number' ? Number(v) : v;
      applied.push({ path: [section, key], name });
    }
  }
  return applied;
}

const hasPath = (obj: unknown, keyPath: readonly PropertyKey[]): boolean => {
  let cur: any = obj;
  for (const k of keyPath) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) return false;
    cur = cur[k as any];
  }
  return true;
};

interface ConfigSource { file: string; doc: ParsedYaml }

/**
 * Points each issue of the merged configuration at the place that set the value: an environment variable,
 * the overrides, or the last file that wrote it (local.yaml over default.yaml). A missing key points at the
 * section that lacks it in the last file holding that section.
 */
function locateMergedIssues(
  zodIssues: readonly { path: readonly PropertyKey[]; message: string; code?: string; keys?: string[] }[],
  sources: ConfigSource[],
  envApplied: { path: string[]; name: string }[],
  overrides: Record<string, unknown>,
): PositionedIssue[] {
  const out: PositionedIssue[] = [];
  const place = (keyPath: PropertyKey[], rule: string) => {
    const key = keyPath.map(String).join('.');
    const fromEnv = envApplied.find((e) => e.path.join('.') === keyPath.slice(0, 2).map(String).join('.'));
    if (fromEnv) return out.push({ file: `environment variable ${fromEnv.name}`, line: 0, column: 0, key, rule });
    if (hasPath(overrides, keyPath)) return out.push({ file: 'overrides', line: 0, column: 0, key, rule });
    const strPath = keyPath.map((k) => (typeof k === 'number' ? k : String(k)));
    for (const src of [...sources].reverse()) {
      const at = src.doc.find(strPath);
      if (at) return out.push({ file: src.file, ...at, key, rule });
    }
    // Absent everywhere: point at the deepest existing ancestor, preferring the later file.
    for (let depth = strPath.length - 1; depth >= 0; depth--) {
      for (const src of [...sources].reverse()) {
        const at = depth === 0 ? src.doc.locate([]) : src.doc.find(strPath.slice(0, depth));
        if (at) return out.push({ file: src.file, ...at, key, rule });
      }
    }
    return out.push({ file: 'configuration', line: 0, column: 0, key, rule });
  };
  for (const i of zodIssues) {
    if (i.code === 'unrecognized_keys' && i.keys?.length) {
      for (const k of i.keys) place([...i.path, k], 'unknown key');
    } else place([...i.path], i.message);
  }
  return out;
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
  const sources: ConfigSource[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const doc = parseYamlDocument(readFileSync(file, 'utf8'), file);
    if (doc.issues.length) throw new ConfigError(doc.issues);
    if (doc.value !== undefined && doc.value !== null && (typeof doc.value !== 'object' || Array.isArray(doc.value))) {
      throw new ConfigError([{ file, ...doc.locate([]), key: '', rule: 'must be a mapping of sections (api, engines, rate_limit, ...)' }]);
    }
    sources.push({ file, doc });
    merged = deepMerge(merged, doc.value);
  }
  // Validated once, merged: a local.yaml may override a single key of a section; each issue is then traced
  // back to the file, variable or override that set the value.
  merged = deepMerge(merged, opts.overrides ?? {});
  const envApplied = applyEnv(merged, env);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError(locateMergedIssues(result.error.issues as any, sources, envApplied, opts.overrides ?? {}));
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
