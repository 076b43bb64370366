/**
 * Bad pipelines and configurations, run as `seo-etl run` child processes against a sandbox the test owns: each is
 * refused with exit code 2 and a message naming the place (file:line:column, or the variable) and the rule, and
 * nothing reaches the API (the sandbox saw no call at all, so nothing was posted or billed).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, childEnv, runCli, type ChildResult, closeProject } from './helpers.js';

let p: TestProject;
let dir: string;
beforeAll(async () => {
  p = await startProject(SANDBOX_EXTRA);
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-bad-'));
});
afterAll(async () => {
  await closeProject(p);
  rmSync(dir, { recursive: true, force: true });
});

const HEAD = 'name: bad\nbudget_usd: 1\nsteps:\n';
const EVENTS = (params: string) => `${HEAD}  - name: ev\n    endpoint: serp.events.task_post\n    params:\n${params}`;

interface Case {
  name: string;
  /** The pipeline file's text; the file is written as <name>.yaml. */
  pipeline: string;
  /** What stderr must say; `$FILE` stands for the pipeline's path. */
  says: (file: string) => RegExp;
  env?: Record<string, string | undefined>;
  /** A project folder of its own with this config/local.yaml (the run is given --root). */
  localYaml?: string;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const GOOD = EVENTS('      keyword: jazz\n      location_code: 2840\n');

const CASES: Case[] = [
  { name: 'yaml-syntax', pipeline: `${HEAD}  - name: a\n    endpoint: [unclosed\n`, says: (f) => new RegExp(`${esc(f)}:\\d+:\\d+: YAML syntax`) },
  { name: 'unknown-key', pipeline: `${HEAD}  - name: a\n    endpoint: serp.endpoints\n    paramz: {}\n`, says: (f) => new RegExp(`${esc(f)}:6:5: steps\\[0\\]\\.paramz: unknown key \\(did you mean params\\?\\)`) },
  { name: 'unknown-top-key', pipeline: `${HEAD}  - name: a\n    endpoint: serp.endpoints\nbudget: 3\n`, says: (f) => new RegExp(`${esc(f)}:6:1: budget: unknown key`) },
  { name: 'wrong-type', pipeline: `name: bad\nbudget_usd: lots\nsteps:\n  - name: a\n    endpoint: serp.endpoints\n`, says: (f) => new RegExp(`${esc(f)}:2:13: budget_usd: .*number`) },
  { name: 'wrong-param-type', pipeline: EVENTS('      keyword: jazz\n      location_code: "2840"\n'), says: (f) => new RegExp(`${esc(f)}:8:22: steps\\[0\\]\\.params\\.location_code: .*integer`) },
  { name: 'tag-256', pipeline: EVENTS(`      keyword: jazz\n      location_code: 2840\n      tag: ${'t'.repeat(256)}\n`), says: (f) => new RegExp(`${esc(f)}:9:12: steps\\[0\\]\\.params\\.tag: must be at most 255 characters \\(got a string of 256`) },
  { name: 'keyword-701', pipeline: EVENTS(`      keyword: ${'k'.repeat(701)}\n      location_code: 2840\n`), says: (f) => new RegExp(`${esc(f)}:7:16: steps\\[0\\]\\.params\\.keyword: must be at most 700 characters`) },
  { name: 'depth-701', pipeline: EVENTS('      keyword: jazz\n      location_code: 2840\n      depth: 701\n'), says: (f) => new RegExp(`${esc(f)}:9:14: steps\\[0\\]\\.params\\.depth: must be at most 700 \\(got 701\\)`) },
  { name: 'radius', pipeline: EVENTS('      keyword: jazz\n      location_coordinate: "51.5072178,-0.1275862,199"\n'), says: (f) => new RegExp(`${esc(f)}:8:28: steps\\[0\\]\\.params\\.location_coordinate: radius must be from 199\\.9 to 199999`) },
  {
    name: 'filters-9',
    pipeline: `${HEAD}  - name: res\n    endpoint: on_page.resources\n    params:\n      id: 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b\n      filters: [${Array.from({ length: 9 }, (_, i) => `[size, ">", ${i}]`).join(', and, ')}]\n`,
    says: (f) => new RegExp(`${esc(f)}:8:7: steps\\[0\\]\\.params\\.filters: may hold at most 8 conditions \\(has 9\\)`),
  },
  {
    name: 'limit-offset',
    pipeline: `${HEAD}  - name: dom\n    endpoint: domain_analytics.technologies.domains_by_html_terms.live\n    params:\n      search_terms: [shopify]\n      limit: 5000\n      offset: 5001\n`,
    says: (f) => new RegExp(`${esc(f)}:\\d+:\\d+: steps\\[0\\]\\.params\\.(limit|offset): limit plus offset must not exceed 10000 \\(got 10001\\)`),
  },
  { name: 'unknown-endpoint', pipeline: `${HEAD}  - name: a\n    endpoint: serp.event.task_post\n`, says: (f) => new RegExp(`${esc(f)}:5:15: steps\\[0\\]\\.endpoint: unknown endpoint "serp\\.event\\.task_post" \\(did you mean serp\\.events\\.task_post\\?\\)`) },
  { name: 'name-escapes', pipeline: `name: ../../etc\nbudget_usd: 1\nsteps:\n  - name: a\n    endpoint: serp.endpoints\n`, says: (f) => new RegExp(`${esc(f)}:1:7: name: must be 1 to 48 characters of a-z, 0-9, _ and -`) },
  { name: 'tasks-per-post-101', pipeline: GOOD, env: { SEO_ETL_API_TASKS_PER_POST: '101' }, says: () => /environment variable SEO_ETL_API_TASKS_PER_POST.*api\.tasks_per_post: .*100/ },
  { name: 'config-wrong-type', pipeline: GOOD, env: { SEO_ETL_API_RETRIES: 'many' }, says: () => /environment variable SEO_ETL_API_RETRIES.*api\.retries: /},
  { name: 'local-yaml-unknown-key', pipeline: GOOD, localYaml: 'api:\n  retries: 3\n  tasks_per_pots: 5\n', says: (f) => new RegExp(`${esc(path.join(path.dirname(f), 'local-yaml-unknown-key-root', 'config', 'local.yaml'))}:3:3: api\\.tasks_per_pots: unknown key`) },
  { name: 'local-yaml-101', pipeline: GOOD, env: { SEO_ETL_API_TASKS_PER_POST: undefined }, localYaml: 'api:\n  tasks_per_post: 101\n', says: (f) => new RegExp(`${esc(path.join(path.dirname(f), 'local-yaml-101-root', 'config', 'local.yaml'))}:2:\\d+: api\\.tasks_per_post: .*100`) },
  { name: 'missing-credentials', pipeline: GOOD, env: { SEO_ETL_LOGIN: undefined, SEO_ETL_PASSWORD: undefined }, says: () => /SEO_ETL_LOGIN, SEO_ETL_PASSWORD: required when api\.base_url is http:\/\/127\.0\.0\.1:\d+/ },
];

async function runCase(c: Case): Promise<{ file: string; r: ChildResult }> {
  const file = path.join(dir, `${c.name}.yaml`);
  writeFileSync(file, c.pipeline);
  const env = childEnv(p, {});
  for (const [k, v] of Object.entries(c.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const args = ['run', file, '--no-progress'];
  if (c.localYaml) {
    const root = path.join(dir, `${c.name}-root`);
    mkdirSync(path.join(root, 'config'), { recursive: true });
    cpSync(path.join(ROOT, 'config', 'default.yaml'), path.join(root, 'config', 'default.yaml'));
    writeFileSync(path.join(root, 'config', 'local.yaml'), c.localYaml);
    args.unshift('--root', root);
  }
  return { file, r: await runCli(args, { env }) };
}

describe('bad pipelines and configurations', () => {
  const results = new Map<string, { file: string; r: ChildResult }>();
  beforeAll(async () => {
    let next = 0;
    const worker = async () => {
      while (next < CASES.length) {
        const c = CASES[next++];
        results.set(c.name, await runCase(c));
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  });

  for (const c of CASES) {
    test(`${c.name}: exit 2 with the place and the rule`, () => {
      const { file, r } = results.get(c.name)!;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(c.says(file));
      expect(r.stderr, 'no stack trace for bad input').not.toMatch(/\n\s+at /);
    });
  }

  test('nothing reached the API and nothing was left in the data folder', () => {
    expect(p.sandbox.controls.calls()).toEqual([]);
    expect(p.sandbox.controls.postings()).toEqual([]);
    expect(p.sandbox.controls.billed()).toBe(0);
    const left = existsSync(p.dataDir) ? readdirSync(p.dataDir) : [];
    expect(left.filter((f) => f !== 'logs'), 'no lock, warehouse or archive').toEqual([]);
  });
});
