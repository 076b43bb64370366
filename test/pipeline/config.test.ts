import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
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
    expect(loadConfig({ root: project(''), env: {} }).warehouse).toEqual({ dir: 'data', memory_limit: '256MB' });
  });

  test('sizes are read as DuckDB reads them', async () => {
    const { sizeInBytes } = await import('../../src/config/index.js');
    expect(sizeInBytes('64MB')).toBe(64_000_000);
    expect(sizeInBytes('1.5 GiB')).toBe(1.5 * 2 ** 30);
    expect(() => sizeInBytes('64')).toThrow(/a size such as/);
  });
});
