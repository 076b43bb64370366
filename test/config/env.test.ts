/** Environment variables: a misspelled one is a warning with a hint, a bad value names its variable and the rule. */
import { expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, configSchema, configWarnings, loadConfig, settingKind, settingKinds } from '../../src/config/index.js';
import { ROOT } from '../helpers/project.js';
import { spawn } from 'node:child_process';
import { CLI, runCli } from '../reliability/helpers.js';

test('a SEO_ETL_* variable that sets nothing is a warning, with the setting it was probably meant for', () => {
  expect(configWarnings({ SEO_ETL_API_BASEURL: 'x', SEO_ETL_RATE_LIMIT_CALLS: '3', SEO_ETL_LOGIN: 'a', SEO_ETL_HOME: '/x', PATH: '/bin' })).toEqual([
    'environment variable SEO_ETL_API_BASEURL is not a seo-etl setting and is ignored (did you mean SEO_ETL_API_BASE_URL?)',
  ]);
  expect(configWarnings({ SEO_ETL_NOTHING_LIKE_IT: '1' })).toEqual(['environment variable SEO_ETL_NOTHING_LIKE_IT is not a seo-etl setting and is ignored']);
});

test.each([
  ['SEO_ETL_RATE_LIMIT_CALLS', 'abc', "rate_limit.calls: must be a number (got 'abc')"],
  ['SEO_ETL_RATE_LIMIT_CALLS', '1.5', 'rate_limit.calls: must be a whole number (got 1.5)'],
  ['SEO_ETL_API_RETRIES', '', "api.retries: must be a number (got '')"],
  // The validator's own text ("Too small: expected number to be >0", "Invalid URL") said as rules.
  ['SEO_ETL_RATE_LIMIT_CALLS', '0', 'rate_limit.calls: must be more than 0 (got 0)'],
  ['SEO_ETL_API_TASKS_PER_POST', '101', 'api.tasks_per_post: must be at most 100 (got 101)'],
  ['SEO_ETL_API_BASE_URL', 'ftp://x', "api.base_url: must be 'sandbox' (the embedded sandbox) or the service's http:// or https:// address (got 'ftp://x')"],
  ['SEO_ETL_NOTIFY_WEBHOOK_URL', 'htps://hooks.example/T0/B0/secret', 'notify.webhook_url: must be empty (no notice) or an http:// or https:// address'],
  ['SEO_ETL_SANDBOX_LOGIN', '', 'sandbox.login: must not be empty'],
  ['SEO_ETL_WAREHOUSE_MEMORY_LIMIT', '10', "warehouse.memory_limit: must be a size such as 256MB or 2GiB (got '10')"],
])('%s=%s is refused naming the variable and the rule, in words', (name, value, says) => {
  let err: unknown;
  try { loadConfig({ root: ROOT, env: { [name]: value } }); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toBe(`environment variable ${name}: ${says}`);
});

test('the CLI prints the warning on stderr and carries on', async () => {
  const r = await runCli(['plan', `${ROOT}/pipelines/nightly.yaml`], { env: { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_RATE_LIMIT_CALS: '10' }, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('seo-etl: warning: environment variable SEO_ETL_RATE_LIMIT_CALS is not a seo-etl setting and is ignored (did you mean SEO_ETL_RATE_LIMIT_CALLS?)');
});

test('SEO_ETL_WAREHOUSE_MEMORY_LIMIT=10MB is refused against the variable before anything starts (it used to fail deep in the load, exit 70)', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-mem-'));
  try {
    const r = await runCli(['run', `${ROOT}/pipelines/nightly.yaml`, '--no-progress'], {
      env: { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dataDir, SEO_ETL_WAREHOUSE_MEMORY_LIMIT: '10MB' }, timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("environment variable SEO_ETL_WAREHOUSE_MEMORY_LIMIT: warehouse.memory_limit: must be at least 128MB (got '10MB')");
    expect(r.stderr).not.toContain('default.yaml');
    expect(readdirSync(dataDir)).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a rule between two settings blames the one the user set: the variable, not default.yaml\'s line of the other', () => {
  expect(() => loadConfig({ root: ROOT, env: { SEO_ETL_PATHS_KEYWORDS_DATA: 'google' } }))
    .toThrow(/^environment variable SEO_ETL_PATHS_KEYWORDS_DATA: paths.keywords_data_legacy: must differ from keywords_data \('google'\)/);
});

/** A valid value of a setting that differs from its default (the first candidate its own schema accepts). */
function anotherValue(section: string, key: string, current: unknown): string {
  const schema = (configSchema.shape as unknown as Record<string, { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> }>)[section].shape[key];
  const candidates: unknown[] = typeof current === 'number'
    ? [current + 2048, current + 1, current - 1, current / 2, 8192, 1, 0]
    : ['zz_other', 'Europe/Berlin', 'http://127.0.0.1:9/x', 'postgres://u:p@127.0.0.1:5432/db', 'smtp://127.0.0.1:25', 's3://seo-etl-lake/nightly', '512MB', '', 'x'];
  const v = candidates.find((c) => c !== current && schema.safeParse(c).success);
  if (v === undefined) throw new Error(`no other valid value for ${section}.${key}`);
  return String(v);
}

test('every setting of the schema can be set by its variable, the sandbox options that have only defaults too (issue 31)', () => {
  const base = loadConfig({ root: ROOT, env: {} }) as unknown as Record<string, Record<string, unknown>>;
  const kinds = settingKinds();
  const keys = Object.entries(kinds).flatMap(([section, ks]) => Object.keys(ks).map((key) => [section, key] as const));
  expect(keys.length).toBeGreaterThan(40);
  // The seven sandbox options the YAML files leave to their defaults are among them.
  for (const k of ['completion_delay_ms', 'reparse_share', 'keywords_per_site_task', 'suggestions_per_keyword', 'merchant_items', 'result_variants', 'callback_timeout_ms']) expect(kinds.sandbox[k]).toBe('number');
  for (const [section, key] of keys) {
    if (section === 'warehouse' && key === 'dir') continue; // resolved against the service (below)
    const name = `SEO_ETL_${section}_${key}`.toUpperCase();
    const value = anotherValue(section, key, base[section][key]);
    const got = loadConfig({ root: ROOT, env: { [name]: value } }) as unknown as Record<string, Record<string, unknown>>;
    expect(String(got[section][key]), name).toBe(value);
    expect(typeof got[section][key], name).toBe(typeof base[section][key]);
    expect(configWarnings({ [name]: value }), name).toEqual([]);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-env-'));
  try {
    expect(loadConfig({ root: ROOT, env: { SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_API_BASE_URL: 'http://127.0.0.1:9' } }).warehouse.dir).toBe(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SEO_ETL_SANDBOX_COMPLETION_DELAY_MS=1500 seo-etl sandbox serves with 1500 ms (it ran with 200)', async () => {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0'], { cwd: ROOT, env: { ...process.env, SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '1500' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += String(c);
        const m = /sandbox listening on (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${out}`)));
    });
    const res = await fetch(`${url}/_sandbox/completion-delay`);
    expect(await res.json()).toEqual({ ms: 1500 });
  } finally {
    child.kill('SIGTERM');
  }
  expect(settingKind(configSchema.shape.sandbox.shape.completion_delay_ms)).toBe('number');
  expect(settingKind(configSchema.shape.api.shape.base_url)).toBe('string');
  expect(settingKind(configSchema.shape.prices)).toBe('nested');
});
