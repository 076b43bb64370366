import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { formatIssue } from '../../src/config/yaml.js';
import { repoRoot, writeFiles } from './helpers.js';

/** A project folder with the repository's default.yaml and the given local.yaml. */
function project(local?: string): string {
  const dir = writeFiles({});
  mkdirSync(path.join(dir, 'config'));
  copyFileSync(path.join(repoRoot, 'config/default.yaml'), path.join(dir, 'config/default.yaml'));
  if (local !== undefined) writeFileSync(path.join(dir, 'config/local.yaml'), local);
  return dir;
}

function configIssues(root: string, env: Record<string, string> = {}, overrides?: Record<string, unknown>) {
  try {
    loadConfig({ root, env, overrides });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('configuration errors point at the file and line that set the value', () => {
  test('tasks_per_post over 100 in local.yaml', () => {
    const root = project('# site settings\napi:\n  tasks_per_post: 101\n');
    const issues = configIssues(root);
    expect(issues).toEqual([expect.objectContaining({ file: path.join(root, 'config/local.yaml'), line: 3, column: 3, key: 'api.tasks_per_post' })]);
    expect(formatIssue(issues[0])).toMatch(/local\.yaml:3:3: api\.tasks_per_post: .*100/);
  });

  test('a local.yaml may set a single key of a section; unknown keys are named where written', () => {
    const ok = loadConfig({ root: project('api:\n  tasks_per_post: 50\n'), env: {} });
    expect(ok.api).toMatchObject({ tasks_per_post: 50, base_url: 'sandbox', retries: 5 });
    const issues = configIssues(project('api:\n  tasks_per_post: 50\nrate_limit:\n  callz: 10\n'));
    expect(issues).toEqual([expect.objectContaining({ line: 4, column: 3, key: 'rate_limit.callz', rule: 'unknown key' })]);
  });

  test('a value from default.yaml is reported in default.yaml', () => {
    const root = project();
    writeFileSync(path.join(root, 'config/default.yaml'), 'api:\n  base_url: sandbox\n  timeout_ms: -5\n');
    const issues = configIssues(root);
    const timeout = issues.find((i) => i.key === 'api.timeout_ms')!;
    expect(timeout).toMatchObject({ file: path.join(root, 'config/default.yaml'), line: 3, column: 3 });
    // A missing key is reported at its section in the last file that has it.
    expect(issues.find((i) => i.key === 'api.retries')).toMatchObject({ line: 1, column: 1 });
  });

  test('values from the environment and from overrides are named as such', () => {
    const root = project();
    expect(configIssues(root, { SEO_ETL_API_TASKS_PER_POST: '101' })).toEqual([
      expect.objectContaining({ file: 'environment variable SEO_ETL_API_TASKS_PER_POST', key: 'api.tasks_per_post' }),
    ]);
    expect(configIssues(root, {}, { api: { tasks_per_post: 0 } })).toEqual([expect.objectContaining({ file: 'overrides', key: 'api.tasks_per_post' })]);
  });
});

describe('warehouse memory', () => {
  test('DuckDB internals are not settings: each is refused where written, as an unknown key', () => {
    for (const key of ['cache_between_loads: 64MB', 'checkpoint_wal: 16MB', 'checkpoint_memory: 128MB', 'row_group_size: 2048', 'merge_row_groups: true']) {
      const issues = configIssues(project(`warehouse:\n  dir: data\n  ${key}\n`));
      expect(issues.map((i) => [i.key, i.line])).toEqual([[`warehouse.${key.split(':')[0]}`, 3]]);
      expect(formatIssue(issues[0])).toMatch(/local\.yaml:3:3: .*unknown key/);
    }
    expect(loadConfig({ root: project(''), env: {} }).warehouse).toEqual({ dir: 'data/sandbox', memory_limit: '256MB', threads: 0 });
  });

  test('sizes are read as DuckDB reads them', async () => {
    const { sizeInBytes } = await import('../../src/config/index.js');
    expect(sizeInBytes('64MB')).toBe(64_000_000);
    expect(sizeInBytes('1.5 GiB')).toBe(1.5 * 2 ** 30);
    expect(() => sizeInBytes('64')).toThrow(/a size such as/);
  });
});

describe('path segments per endpoint family', () => {
  test('the defaults are the live service names, each family on its own segment', () => {
    const p = loadConfig({ root: project(), env: {} }).paths;
    expect(resolvePath(endpoint('keywords_data.google_ads.search_volume.task_post'), p)).toBe('/v3/keywords_data/google_ads/search_volume/task_post');
    expect(resolvePath(endpoint('keywords_data.google_ads.locations.country'), p, { id: 'us' })).toBe('/v3/keywords_data/google_ads/locations/us');
    expect(resolvePath(endpoint('keywords_for_site.task_post'), p)).toBe('/v3/keywords_data/google/keywords_for_site/task_post');
    expect(resolvePath(endpoint('merchant.google.products.tasks_ready'), p)).toBe('/v3/merchant/google/products/tasks_ready');
    expect(resolvePath(endpoint('serp.events.task_post'), p)).toBe('/v3/serp/google/events/task_post');
    expect(p.engine_b).toBe('bing');
  });

  test('one family may be renamed alone, from local.yaml or the environment', () => {
    const p = loadConfig({ root: project('paths:\n  merchant: shopping_x\n'), env: { SEO_ETL_PATHS_ENGINE_A: 'engine_a' } }).paths;
    expect(resolvePath(endpoint('merchant.google.products.tasks_ready'), p)).toBe('/v3/merchant/shopping_x/products/tasks_ready');
    expect(resolvePath(endpoint('serp.events.task_post'), p)).toBe('/v3/serp/engine_a/events/task_post');
    expect(p.keywords_data).toBe('google_ads');
  });

  test('a bad segment is named with its file and line; the two keyword families may not share one', () => {
    const root = project('# mine\npaths:\n  keywords_data: Google Ads\n');
    expect(configIssues(root)).toEqual([expect.objectContaining({ file: path.join(root, 'config/local.yaml'), line: 3, key: 'paths.keywords_data', rule: expect.stringContaining('lower-case') })]);
    const same = project('paths:\n  keywords_data: google\n');
    expect(configIssues(same)).toEqual([expect.objectContaining({ key: 'paths.keywords_data_legacy', rule: expect.stringContaining('must differ from keywords_data') })]);
    expect(configIssues(project(), { SEO_ETL_PATHS_MERCHANT: 'a/b' })).toEqual([expect.objectContaining({ file: 'environment variable SEO_ETL_PATHS_MERCHANT', key: 'paths.merchant' })]);
    expect(configIssues(project('paths:\n  engines: google\n'))).toEqual([expect.objectContaining({ line: 2, key: 'paths.engines', rule: 'unknown key' })]);
  });

  describe('config/reference-paths.yaml runs the sandbox with the reference names', () => {
    let box: Sandbox | undefined;
    afterAll(async () => box?.close());
    test('the sandbox serves whatever the configuration names', async () => {
      const root = project(readFileSync(path.join(repoRoot, 'config/reference-paths.yaml'), 'utf8'));
      const config = loadConfig({ root, env: {} });
      expect(config.paths).toMatchObject({ engine_a: 'engine_a', keywords_data_legacy: 'engine_a', merchant: 'engine_a' });
      box = await startSandbox({ config });
      const auth = `Basic ${Buffer.from(`${config.sandbox.login}:${config.sandbox.password}`).toString('base64')}`;
      const get = async (p: string) => (await (await fetch(`${box!.url}${p}`, { headers: { authorization: auth } })).json()) as any;
      expect((await get('/v3/merchant/engine_a/products/tasks_ready')).tasks[0].status_code).toBe(20000);
      expect((await get('/v3/keywords_data/engine_a/keywords_for_site/tasks_ready')).tasks[0].status_code).toBe(20000);
      expect((await get('/v3/merchant/google/products/tasks_ready')).status_code).toBe(40402);
    });
  });
});
