/** Environment variables: a misspelled one is a warning with a hint, a bad value names its variable and the rule. */
import { expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, configWarnings, loadConfig } from '../../src/config/index.js';
import { ROOT } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

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
}, 90_000);

test('a rule between two settings blames the one the user set: the variable, not default.yaml\'s line of the other', () => {
  expect(() => loadConfig({ root: ROOT, env: { SEO_ETL_PATHS_KEYWORDS_DATA: 'google' } }))
    .toThrow(/^environment variable SEO_ETL_PATHS_KEYWORDS_DATA: paths.keywords_data_legacy: must differ from keywords_data \('google'\)/);
});
