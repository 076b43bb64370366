import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { repoRoot, writeFiles } from './helpers.js';

function project(local?: string): string {
  const dir = writeFiles({});
  mkdirSync(path.join(dir, 'config'));
  copyFileSync(path.join(repoRoot, 'config/default.yaml'), path.join(dir, 'config/default.yaml'));
  if (local !== undefined) writeFileSync(path.join(dir, 'config/local.yaml'), local);
  return dir;
}

function issuesOf(root: string, env: Record<string, string> = {}) {
  try {
    loadConfig({ root, env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('path segments per endpoint family', () => {
  test('the defaults are the live service names, each family on its own segment', () => {
    const p = loadConfig({ root: project(), env: {} }).paths;
    expect(resolvePath(endpoint('keywords_for_site.task_post'), p)).toBe('/v3/keywords_data/google/keywords_for_site/task_post');
    expect(resolvePath(endpoint('merchant.products.tasks_ready'), p)).toBe('/v3/merchant/google/products/tasks_ready');
    expect(resolvePath(endpoint('serp.events.task_post'), p)).toBe('/v3/serp/google/events/task_post');
    expect(p.engine_b).toBe('bing');
  });

  test('one family may be renamed alone, from local.yaml or the environment', () => {
    const p = loadConfig({ root: project('paths:\n  merchant: shopping_x\n'), env: { SEO_ETL_PATHS_ENGINE_A: 'engine_a' } }).paths;
    expect(resolvePath(endpoint('merchant.products.tasks_ready'), p)).toBe('/v3/merchant/shopping_x/products/tasks_ready');
    expect(resolvePath(endpoint('serp.events.task_post'), p)).toBe('/v3/serp/engine_a/events/task_post');
    expect(p.keywords_data).toBe('google_ads');
  });

  test('a bad segment is named with its file and line; the two keyword families may not share one', () => {
    const root = project('# mine\npaths:\n  keywords_data: Google Ads\n');
    expect(issuesOf(root)).toEqual([expect.objectContaining({ file: path.join(root, 'config/local.yaml'), line: 3, key: 'paths.keywords_data', rule: expect.stringContaining('lower-case') })]);
    const same = project('paths:\n  keywords_data: google\n');
    expect(issuesOf(same)).toEqual([expect.objectContaining({ key: 'paths.keywords_data_legacy', rule: expect.stringContaining('must differ from keywords_data') })]);
    expect(issuesOf(project(), { SEO_ETL_PATHS_MERCHANT: 'a/b' })).toEqual([expect.objectContaining({ file: 'environment variable SEO_ETL_PATHS_MERCHANT', key: 'paths.merchant' })]);
    expect(issuesOf(project('paths:\n  engines: google\n'))).toEqual([expect.objectContaining({ line: 2, key: 'paths.engines', rule: 'unknown key' })]);
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
