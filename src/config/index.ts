import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseYamlDocument, formatIssues, type PositionedIssue, type ParsedYaml } from './yaml.js';
import { settingVariables, unknownVariableWarnings } from './env.js';
import { postgresSchema } from './postgres.js';
import { lakeEnvProblems, lakeSchema } from './lake.js';
import { dataDirFor } from './service.js';
import { ruleInWords, shown, type ValidatorIssue } from './words.js';

import { ENGINE_TOKENS, PATH_TOKENS, type EngineToken, type Engines } from '../catalog/endpoint.js';
export { ENGINE_TOKENS, PATH_TOKENS, type EngineToken, type Engines };

const isHttpUrl = (v: string) => {
  try { const u = new URL(v); return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''; } catch { return false; }
};

/** Whether `v` is a time zone this runtime knows (an IANA name such as Europe/Berlin, or UTC). */
export const isTimeZoneName = (v: string): boolean => {
  try { new Intl.DateTimeFormat('en-CA', { timeZone: v }); return v !== ''; } catch { return false; }
};

const isSmtpUrl = (v: string) => {
  try { const u = new URL(v); return (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== ''; } catch { return false; }
};

const segment = z.string().regex(/^[a-z0-9_]+$/, 'a path segment of lower-case letters, digits and _');

const SIZE = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;
const size = z.string().regex(SIZE, 'a size such as 256MB or 2GiB');
/** Below this a checkpoint or a large load runs out of memory and the run fails (docs/journal/performance-2026-11-22-to-2026-11-27.md). */
const MIN_MEMORY_BYTES = 128e6;
const UNIT_BYTES: Record<string, number> = { kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** Bytes of a size as DuckDB reads it (KB = 1000 bytes, KiB = 1024). */
export function sizeInBytes(s: string): number {
  const m = SIZE.exec(s.trim());
  if (!m) throw new Error(`not a size: '${s}' (a size such as 256MB or 2GiB)`);
  return Math.round(Number(m[1]) * UNIT_BYTES[m[2].toLowerCase()]);
}

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
  // Each page of results past the first, for endpoints the catalog bills per page (`billedPage`: merchant, SERP).
  per_extra_page: z.number().nonnegative().optional(),
  priority_2_multiplier: z.number().positive().optional(),
  // Each row returned (Labs, Backlinks: per request plus per row); plan reserves the rows `limit` asks for.
  per_row: z.number().nonnegative().optional(),
  // SERP options (docs/api-live.md, SERP prices): added to the base, flat, per click, or a multiplier.
  calculate_rectangles: z.number().nonnegative().optional(),
  load_async_ai_overview: z.number().nonnegative().optional(),
  people_also_ask_click: z.number().nonnegative().optional(),
  search_operators_multiplier: z.number().positive().optional(),
  get_website_url_multiplier: z.number().positive().optional(),
  // The price multiplied when the task sets the field (Google reviews: a `cid` doubles it).
  field_multipliers: z.record(z.string(), z.number().positive()).optional(),
  // On-Page crawl tasks (docs/api-live.md, On-Page prices): each page crawled, reserved for `max_crawl_pages`; each
  // crawl option set true adds this many base page prices (enable_browser_rendering includes resources and JavaScript).
  per_crawled_page: z.number().nonnegative().optional(),
  page_options: z.record(z.string(), z.number().nonnegative()).optional(),
  // LLM responses (docs/api-live.md, AI Optimization prices): the model's tokens at its vendor's price, USD per
  // million, on top of per_task; `models` by model name prefix, the row's own for a model it does not list.
  per_1m_input_tokens: z.number().nonnegative().optional(),
  per_1m_output_tokens: z.number().nonnegative().optional(),
  per_llm_request: z.number().nonnegative().optional(),
  models: z.record(z.string(), z.strictObject({
    per_1m_input_tokens: z.number().nonnegative(),
    per_1m_output_tokens: z.number().nonnegative(),
    per_llm_request: z.number().nonnegative().optional(),
  })).optional(),
});

export const configSchema = z.strictObject({
  api: z.strictObject({
    base_url: z.string().refine((v) => v === 'sandbox' || isHttpUrl(v), { error: (i) => `must be 'sandbox' (the embedded sandbox) or the service's http:// or https:// address (got ${shown(i.input)})` }),
    timeout_ms: z.int().positive(),
    retries: z.int().min(0).max(20),
    retry_base_ms: z.int().positive(),
    tasks_per_post: z.int().min(1).max(100),
  }),
  paths: z
    .strictObject(Object.fromEntries(PATH_TOKENS.map((t) => [t, segment])) as Record<EngineToken, typeof segment>)
    .superRefine((p, ctx) => {
      // Both keyword generations share one path shape; only their segment tells them apart.
      if (p.keywords_data === p.keywords_data_legacy) {
        ctx.addIssue({ code: 'custom', path: ['keywords_data_legacy'], params: { related: [['paths', 'keywords_data']] }, message: `must differ from keywords_data ('${p.keywords_data}'): the two keyword families share their paths but for this segment` });
      }
    }),
  rate_limit: z.strictObject({
    calls: z.int().positive(),
    window_ms: z.int().positive(),
    concurrency: z.int().positive().max(256),
  }),
  prices: z.record(z.string(), priceSchema),
  warehouse: z.strictObject({
    // Empty: data/ for the live service, data/sandbox/ for a sandbox (src/config/service.ts).
    dir: z.string(),
    memory_limit: size.refine((s) => !SIZE.test(s) || sizeInBytes(s) >= MIN_MEMORY_BYTES, { error: (i) => `must be at least 128MB (got ${shown(i.input)}): below it DuckDB runs out of memory loading a night` }),
    // 0: DuckDB's default, a thread per core.
    threads: z.int().min(0).max(256),
  }),
  collect: z.strictObject({
    poll_min_ms: z.int().positive(),
    poll_max_ms: z.int().positive(),
    straggler_after_ms: z.int().positive(),
    ambiguous_grace_ms: z.int().min(0),
    drain_timeout_ms: z.int().positive(),
    load_batch: z.int().positive().max(10_000),
    live_concurrency: z.int().positive().max(64),
    expected_queue_ms: z.int().min(0),
  }),
  webhook: z.strictObject({
    listen_host: z.string().min(1),
    listen_port: z.int().min(0).max(65535),
    public_url: z.string(),
    max_body_bytes: z.int().positive(),
  }),
  notify: z.strictObject({
    // Not echoed in the error: a webhook's path is its secret.
    webhook_url: z.string().refine((v) => v === '' || isHttpUrl(v), 'must be empty (no notice) or an http:// or https:// address'),
    // Not echoed either: the address carries the SMTP password.
    smtp_url: z.string().refine((v) => v === '' || isSmtpUrl(v), 'must be empty (no alert email) or an smtp:// or smtps:// address'),
    email_from: z.string().min(1),
  }),
  sandbox: z.strictObject({
    port: z.int().min(0).max(65535),
    login: z.string().min(1),
    password: z.string().min(1),
    rate_limit_calls: z.int().positive(),
    rate_limit_window_ms: z.int().positive(),
    // The emulator's own behaviour and data sizes (docs/sandbox.md): not in config/default.yaml; tests and the
    // bench set them as overrides, a user in config/local.yaml.
    completion_delay_ms: z.int().min(0).default(200),
    reparse_share: z.number().min(0).max(1).default(0.1),
    keywords_per_site_task: z.int().min(1).max(2000).default(20),
    suggestions_per_keyword: z.int().min(1).max(20_000).default(3),
    merchant_items: z.int().min(4).max(200).default(12),
    /** Items a generated family's answer lists at most (its `limit`, else 10): the bench asks for the live maximum, 1000. */
    generated_items: z.int().min(1).max(1000).default(10),
    /** Above 0, task results are generated once per endpoint and task seed modulo this and served again (the bench). */
    result_variants: z.int().min(0).default(0),
    /** How long the sandbox waits for a pingback/postback receiver (the live service: 10 s). */
    callback_timeout_ms: z.int().positive().default(10_000),
    /** The time zone its account states in user_data (the day a --run-date is checked against). */
    account_timezone: z.string().refine(isTimeZoneName, { error: (i) => `must be a time zone name such as UTC or Europe/Berlin (got ${shown(i.input)})` }).default('UTC'),
  }),
  postgres: postgresSchema,
  lake: lakeSchema,
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

/** What a setting's variable is read as: its schema's scalar type; a nested value cannot come from a variable. */
export type SettingKind = 'number' | 'boolean' | 'string' | 'nested';

/** The scalar type a schema takes, past its defaults and optionality. Pure. */
export function settingKind(schema: unknown): SettingKind {
  let t = schema as { def?: { type?: string; innerType?: unknown; in?: unknown } } | undefined;
  for (let i = 0; i < 10 && t?.def; i++) {
    if (t.def.innerType !== undefined) t = t.def.innerType as typeof t;
    else if (t.def.type === 'pipe') t = t.def.in as typeof t;
    else break;
  }
  const type = t?.def?.type;
  return type === 'number' || type === 'boolean' || type === 'string' ? type : 'nested';
}

/**
 * Every setting a variable can set, by section and key, with its kind: every key of the schema (the price table
 * aside), whether or not a file holds it, so a key with a default only (the sandbox's own options) is set too.
 */
export function settingKinds(): Record<string, Record<string, SettingKind>> {
  const out: Record<string, Record<string, SettingKind>> = {};
  for (const [section, schema] of Object.entries(configSchema.shape)) {
    if (section === 'prices' || !('shape' in schema)) continue;
    out[section] = Object.fromEntries(Object.entries(schema.shape as Record<string, unknown>).map(([key, s]) => [key, settingKind(s)]));
  }
  return out;
}

/** Environment overrides: SEO_ETL_<SECTION>_<KEY>, for example SEO_ETL_API_BASE_URL or SEO_ETL_RATE_LIMIT_CALLS. */
function applyEnv(raw: Record<string, any>, env: NodeJS.ProcessEnv): { path: string[]; name: string }[] {
  const applied: { path: string[]; name: string }[] = [];
  for (const [section, keys] of Object.entries(settingKinds())) {
    for (const [key, kind] of Object.entries(keys)) {
      const name = `SEO_ETL_${section}_${key}`.toUpperCase();
      const v = env[name];
      if (v === undefined || kind === 'nested') continue;
      // A number or flag that does not read as one stays text, so the error shows what was given.
      const asNumber = v.trim() === '' ? NaN : Number(v);
      const values = (raw[section] ??= {}) as Record<string, unknown>;
      values[key] = kind === 'number' && !Number.isNaN(asNumber) ? asNumber
        : kind === 'boolean' && (v === 'true' || v === 'false') ? v === 'true' : v;
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
  zodIssues: readonly ({ path: readonly PropertyKey[]; keys?: string[] } & ValidatorIssue)[],
  sources: ConfigSource[],
  envApplied: { path: string[]; name: string }[],
  overrides: Record<string, unknown>,
  merged: Record<string, unknown>,
): PositionedIssue[] {
  const out: PositionedIssue[] = [];
  /** `related`: the other keys a rule between values compares, so the value set last is the one blamed. */
  const place = (keyPath: PropertyKey[], rule: string, related: PropertyKey[][] = []) => {
    const key = keyPath.map(String).join('.');
    const paths = [keyPath, ...related];
    const fromEnv = envApplied.find((e) => paths.some((p) => e.path.join('.') === p.slice(0, 2).map(String).join('.')));
    if (fromEnv) return out.push({ file: `environment variable ${fromEnv.name}`, line: 0, column: 0, key, rule });
    if (paths.some((p) => hasPath(overrides, p))) return out.push({ file: 'overrides', line: 0, column: 0, key, rule });
    const strPath = keyPath.map((k) => (typeof k === 'number' ? k : String(k)));
    for (const src of [...sources].reverse()) {
      for (const p of paths) {
        const at = src.doc.find(p.map((k) => (typeof k === 'number' ? k : String(k))));
        if (at) return out.push({ file: src.file, ...at, key, rule });
      }
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
    } else place([...i.path], ruleInWords(i, valueAt(merged, i.path)), (i as { params?: { related?: PropertyKey[][] } }).params?.related);
  }
  return out;
}

function valueAt(obj: unknown, keyPath: readonly PropertyKey[]): unknown {
  let cur: any = obj;
  for (const k of keyPath) cur = cur === null || typeof cur !== 'object' ? undefined : cur[k as any];
  return cur;
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

/** Warnings about the environment: SEO_ETL_* variables that set nothing (a misspelling, or a removed setting). */
export function configWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  // The variables applyEnv reads, and no other: a setting no variable can set is warned about too.
  const sections = Object.fromEntries(Object.entries(settingKinds()).map(([name, keys]) => [name, Object.fromEntries(Object.entries(keys).filter(([, k]) => k !== 'nested'))]));
  return unknownVariableWarnings(env, settingVariables(sections));
}

/**
 * Each config file's parse, kept while its text is unchanged: a run, its sandbox and its publishers load the
 * configuration several times, and the YAML parser took some 40 ms a load (prices.yaml). Callers get a copy of
 * the value, which merging and the environment change in place.
 */
const parsedFiles = new Map<string, { text: string; doc: ParsedYaml }>();

function parseConfigFile(file: string): ParsedYaml {
  const text = readFileSync(file, 'utf8');
  const kept = parsedFiles.get(file);
  if (kept?.text === text) return kept.doc;
  const doc = parseYamlDocument(text, file);
  parsedFiles.set(file, { text, doc });
  return doc;
}

/** Loads config/default.yaml, config/prices.yaml, then config/local.yaml, then SEO_ETL_* variables, and validates the result. */
export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const root = opts.root ?? process.cwd();
  const env = opts.env ?? process.env;
  // The shipped files stand in for a project's own copies it lacks; local.yaml is the project's alone.
  const shipped = (name: string) => (existsSync(path.join(root, 'config', name)) ? path.join(root, 'config', name) : new URL(`../../config/${name}`, import.meta.url).pathname);
  const files = [shipped('default.yaml'), shipped('prices.yaml'), path.join(root, 'config', 'local.yaml')];
  let merged: Record<string, any> = {};
  const sources: ConfigSource[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const doc = parseConfigFile(file);
    if (doc.issues.length) throw new ConfigError(doc.issues);
    if (doc.value !== undefined && doc.value !== null && (typeof doc.value !== 'object' || Array.isArray(doc.value))) {
      throw new ConfigError([{ file, ...doc.locate([]), key: '', rule: 'must be a mapping of sections (api, paths, rate_limit, ...)' }]);
    }
    sources.push({ file, doc });
    merged = deepMerge(merged, structuredClone(doc.value));
  }
  // Validated once, merged: a local.yaml may override a single key of a section; each issue is then traced
  // back to the file, variable or override that set the value.
  merged = deepMerge(merged, opts.overrides ?? {});
  const envApplied = applyEnv(merged, env);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError(locateMergedIssues(result.error.issues as any, sources, envApplied, opts.overrides ?? {}, merged));
  }
  result.data.warehouse.dir = dataDirFor(result.data.warehouse.dir, result.data.api.base_url);
  // The lake's AWS variables are checked before anything is posted, not when the night's upload starts.
  const lake = result.data.lake.url ? lakeEnvProblems(env) : [];
  if (lake.length) throw new ConfigError(lake.map((p) => ({ file: `environment variable ${p.variable}`, line: 0, column: 0, key: 'lake.url', rule: p.rule })));
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
