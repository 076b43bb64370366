/**
 * One dialect (issue 45): every endpoint a family declares by hand keeps the official client's id for the operation
 * whose path it serves, old ids keep working as aliases with a warning, and the task siblings (readyId, getId,
 * postId) are derived by one function for hand and generated families alike.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { ENDPOINTS, ENDPOINT_ALIASES, currentEndpointId, endpoint, findEndpoint } from '../../src/api/catalog.js';
import type { EndpointDef } from '../../src/catalog/endpoint.js';
import { priceRow } from '../../src/api/pricing.js';
import { resolveEndpoint } from '../../src/archive/records.js';
import { loadConfig } from '../../src/config/index.js';
import { FAMILIES } from '../../src/families/index.js';
import { completeFamily, livePath, taskSiblings, type GeneratedFile } from '../../src/families/generated.js';
import { Ledger } from '../../src/ledger/index.js';
import { LEDGER_DDL } from '../../src/ledger/schema.js';
import { planLoad } from '../../src/load/plan.js';
import { loadPipeline, pipelineWarnings, taskKey } from '../../src/pipeline/index.js';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { checkCommand } from '../../src/check/index.js';
import { ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';

const OLD_IDS = path.join(ROOT, 'test', 'families', 'fixtures', 'old-ids.yaml');
const config = loadConfig({ root: ROOT, env: {} });

/**
 * Hand-declared endpoints the official client has no operation for; they keep the family's own ids (a comment
 * says so at each declaration; docs/architecture.md, "Endpoint ids").
 */
const CLIENT_LACKS = [
  // No generated file: the client has no content_generation family.
  'content_generation.paraphrase.live',
  // The legacy Google keyword API (/v3/keywords_data/google/...), retired live; the sandbox serves it.
  ...['keywords_for_site', 'keywords_for_keywords'].flatMap((f) => ['task_post', 'tasks_ready', 'task_get'].map((k) => `${f}.${k}`)),
  // The SERP endpoint list, the events search, and variants and engines the client lacks.
  'serp.endpoints', 'serp.events.locations', 'serp.events.task_post', 'serp.events.tasks_ready', 'serp.events.tasks_fixed',
  'serp.events.task_get.regular', 'serp.events.task_get.advanced', 'serp.events.task_get.html',
  'serp.google.maps.task_get.html', 'serp.google.maps.live.html', 'serp.baidu.organic.live.regular',
  'serp.bing.local_pack.task_post', 'serp.bing.local_pack.tasks_ready', 'serp.bing.local_pack.tasks_fixed',
  'serp.bing.local_pack.task_get.advanced', 'serp.bing.local_pack.task_get.html',
];

/** The client's operation of each hand-declared endpoint, by method and live path, or null when it has none. */
function clientOperations(): { def: EndpointDef; clientId: string | null }[] {
  const out: { def: EndpointDef; clientId: string | null }[] = [];
  for (const family of FAMILIES) {
    const file = path.join(ROOT, 'src', 'families', 'generated', `${family.name}.json`);
    const ops = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as GeneratedFile).operations : [];
    const byPath = new Map(ops.map((o) => [`${o.method} ${o.path.replace(/\{\w+\}/g, '{id}')}`, o.id]));
    for (const def of family.endpoints.filter((e) => e.ref !== 'client')) {
      out.push({ def, clientId: byPath.get(`${def.method} ${livePath(def, config.paths)}`) ?? null });
    }
  }
  return out;
}

describe('every operation keeps the client\'s id', () => {
  test('a hand-declared endpoint has the id of the client operation it serves, or is one the client lacks', () => {
    const all = clientOperations();
    expect(all.length).toBeGreaterThan(100);
    const differ = all.filter((o) => o.clientId !== null && o.clientId !== o.def.id).map((o) => `${o.def.id} -> ${o.clientId}`);
    expect(differ).toEqual([]);
    expect(all.filter((o) => o.clientId === null).map((o) => o.def.id).sort()).toEqual([...CLIENT_LACKS].sort());
  });

  test('the alias table derives from the declarations: each old id names an endpoint that was renamed, and no id now', () => {
    expect(ENDPOINT_ALIASES.size).toBe(25);
    for (const [old, now] of ENDPOINT_ALIASES) {
      expect(endpoint(now).formerly).toBe(old);
      expect(findEndpoint(old)).toBe(endpoint(now));
      expect(currentEndpointId(old)).toBe(now);
      expect(ENDPOINTS.some((e) => e.id === old)).toBe(false);
    }
    expect(ENDPOINT_ALIASES.get('keywords_ads.search_volume.task_post')).toBe('keywords_data.google_ads.search_volume.task_post');
    expect(ENDPOINT_ALIASES.get('merchant.products.task_get.advanced')).toBe('merchant.google.products.task_get.advanced');
    expect(ENDPOINT_ALIASES.get('domain_analytics.domains_by_html_terms.live')).toBe('domain_analytics.technologies.domains_by_html_terms.live');
  });
});

describe('task siblings are derived, never written by hand', () => {
  test('no family declaration writes readyId, getId or postId', () => {
    const files = readdirSync(path.join(ROOT, 'src', 'families'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== 'generated.ts');
    const written = files.filter((f) => /\b(readyId|getId|postId):/.test(readFileSync(path.join(ROOT, 'src', 'families', f), 'utf8')));
    expect(written).toEqual([]);
  });

  test('a hand task without links gets them from the family\'s ids, as a generated one does', () => {
    const base = { ref: 'live', method: 'GET', api: 'x', fn: 'f', version: '1', description: 'd', billing: 'free' } as const;
    const own: EndpointDef[] = [
      { ...base, id: 'x.y.f.task_post', method: 'POST', kind: 'task_post', path: '/v3/x/y/f/task_post', result: 'task_created', billing: 'post' },
      { ...base, id: 'x.y.f.tasks_ready', kind: 'tasks_ready', path: '/v3/x/y/f/tasks_ready', result: 'ready_list' },
      { ...base, id: 'x.y.f.task_get.html', kind: 'task_get', path: '/v3/x/y/f/task_get/html/{id}', result: 'x_html' },
      { ...base, id: 'x.y.f.task_get.advanced', kind: 'task_get', path: '/v3/x/y/f/task_get/advanced/{id}', result: 'x_advanced' },
    ];
    const file: GeneratedFile = { source: 'test', family: 'x', operations: [] };
    const { endpoints } = completeFamily(own, [], file, { prefix: 'x', version: '1' });
    const by = new Map(endpoints.map((e) => [e.id, e]));
    expect(by.get('x.y.f.task_post')).toMatchObject({ readyId: 'x.y.f.tasks_ready', getId: 'x.y.f.task_get.advanced' });
    expect(by.get('x.y.f.tasks_ready')).toMatchObject({ postId: 'x.y.f.task_post', getId: 'x.y.f.task_get.advanced' });
    expect(by.get('x.y.f.task_get.html')).toMatchObject({ postId: 'x.y.f.task_post' });
    expect(taskSiblings('x.y.f.live', 'live', new Set(by.keys()))).toEqual({});
  });

  test('hand families\' tasks resolve their siblings in the catalog', () => {
    expect(endpoint('serp.google.organic.task_post')).toMatchObject({ readyId: 'serp.google.organic.tasks_ready', getId: 'serp.google.organic.task_get.advanced' });
    expect(endpoint('serp.events.tasks_fixed')).toMatchObject({ postId: 'serp.events.task_post', getId: 'serp.events.task_get.advanced' });
    expect(endpoint('keywords_data.google_ads.search_volume.task_post')).toMatchObject({ readyId: 'keywords_data.google_ads.search_volume.tasks_ready', getId: 'keywords_data.google_ads.search_volume.task_get' });
    expect(endpoint('merchant.google.products.task_get.html')).toMatchObject({ postId: 'merchant.google.products.task_post' });
    expect(endpoint('keywords_for_site.tasks_ready')).toMatchObject({ postId: 'keywords_for_site.task_post', getId: 'keywords_for_site.task_get' });
    for (const e of ENDPOINTS.filter((d) => d.kind === 'task_post')) {
      for (const id of [e.readyId, e.getId]) if (id) expect(findEndpoint(id)?.id).toBe(id);
    }
  });
});

describe('old ids keep working', () => {
  test('a pipeline naming old ids validates, with one warning per old id naming the new id at its file:line', () => {
    const p = loadPipeline(OLD_IDS, config);
    expect(p.steps.map((s) => s.endpointId)).toEqual([
      'keywords_data.google_ads.search_volume.task_post', 'merchant.google.products.task_post', 'merchant.google.products.task_post',
      'domain_analytics.technologies.domains_by_html_terms.live',
    ]);
    const file = path.relative(process.cwd(), OLD_IDS);
    expect(pipelineWarnings(p)).toEqual([
      `${file}:7:15: steps[0].endpoint: "keywords_ads.search_volume.task_post" is an old id of keywords_data.google_ads.search_volume.task_post: it still works; write keywords_data.google_ads.search_volume.task_post`,
      `${file}:10:15: steps[1].endpoint: "merchant.products.task_post" is an old id of merchant.google.products.task_post: it still works; write merchant.google.products.task_post`,
      `${file}:17:15: steps[3].endpoint: "domain_analytics.domains_by_html_terms.live" is an old id of domain_analytics.technologies.domains_by_html_terms.live: it still works; write domain_analytics.technologies.domains_by_html_terms.live`,
    ]);
  });

  test('task keys are those an older version planned, so a resumed run posts nothing twice', () => {
    const def = endpoint('merchant.products.task_post');
    expect(def.id).toBe('merchant.google.products.task_post');
    const p = loadPipeline(OLD_IDS, config);
    const params = { keyword: 'hiking boots', location_code: 2840, language_code: 'en' };
    expect(p.steps[1].params).toEqual(params);
    // What src/pipeline/expand.ts keys a task by: the endpoint's first id.
    expect(taskKey(def.formerly ?? def.id, params)).toBe(taskKey('merchant.products.task_post', params));
  });

  test('a price row under an old id (a project\'s own file) is the endpoint\'s price', () => {
    const def = endpoint('keywords_data.google_ads.search_volume.live');
    expect(priceRow(def, config.prices)).toEqual(config.prices['keywords_data.google_ads.search_volume.live']);
    expect(priceRow(def, { ...config.prices, 'keywords_ads.search_volume.live': { per_task: 1 } })).toEqual({ per_task: 1 });
  });

  test('a pipeline whose endpoint is priced under its old id warns that the row should take the new one', () => {
    const priced = { ...config, prices: { ...config.prices, 'keywords_ads.search_volume.task_post': { per_task: 1 } } } as typeof config;
    const warned = pipelineWarnings(loadPipeline(OLD_IDS, priced)).filter((w) => w.includes('prices.'));
    expect(warned).toEqual(['config (prices.yaml, local.yaml): prices.keywords_ads.search_volume.task_post: a row under an old id of keywords_data.google_ads.search_volume.task_post: it still prices it; name the row keywords_data.google_ads.search_volume.task_post']);
    expect(pipelineWarnings(loadPipeline(OLD_IDS, config)).filter((w) => w.includes('prices.'))).toEqual([]);
  });

  test('an archive line of an older version resolves to the endpoint it is now; its tasks row is replaced, not doubled', () => {
    const task = { id: 't-1', status_code: 20000, result: [] } as never;
    expect(resolveEndpoint(task, { endpointId: 'keywords_ads.search_volume.task_get' }, null)).toBe('keywords_data.google_ads.search_volume.task_get');
    const plan = planLoad([{ endpointId: 'keywords_data.google_ads.search_volume.task_get', task: { id: 't-1', result: [] } as never, version: '1' }]);
    expect([...plan.taskRowIds].sort()).toEqual(['t-1@keywords_ads.search_volume.task_get', 't-1@keywords_data.google_ads.search_volume.task_get']);
  });

  test('a ledger an older version wrote has its tasks moved to the ids they have now', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    for (const ddl of LEDGER_DDL) await conn.run(ddl);
    await conn.run(`INSERT INTO _tasks (run_id, task_key, seq, step, step_index, endpoint_id, collect, params, price, state, attempts, pages, updated_at)
      VALUES ('r', 'k1', 1, 's', 0, 'merchant.products.task_post', 'tasks_ready', '{}', 0, 'posted', 1, 0, now()),
             ('r', 'k2', 2, 's', 0, 'serp.google.organic.task_post', 'tasks_ready', '{}', 0, 'posted', 1, 0, now())`);
    await Ledger.open(conn, { endpointAliases: ENDPOINT_ALIASES });
    const ids = (await conn.runAndReadAll('SELECT endpoint_id FROM _tasks ORDER BY task_key')).getRows().map((r) => r[0]);
    expect(ids).toEqual(['merchant.google.products.task_post', 'serp.google.organic.task_post']);
    conn.closeSync();
    instance.closeSync();
  });

  describe('a pipeline naming old ids runs in the sandbox', () => {
    let p: TestProject;
    let r: RunJobResult;
    beforeAll(async () => {
      p = await startProject();
      r = await runJob({ root: ROOT, pipelineFile: OLD_IDS, env: p.env, configOverrides: p.overrides, out: collectStream(), stderrLog: false });
    });
    afterAll(async () => p?.close());

    test('every task loads under the ids they have now, and the log warns once per old id', async () => {
      expect(r.exitCode).toBe(0);
      expect(r.summary!.byState.loaded).toBe(r.summary!.tasks);
      expect(r.summary!.steps.map((s) => s.endpointId)).toEqual([
        'keywords_data.google_ads.search_volume.task_post', 'merchant.google.products.task_post', 'merchant.google.products.task_post',
        'domain_analytics.technologies.domains_by_html_terms.live',
      ]);
      const logs = path.join(p.dataDir, 'logs');
      const records = readFileSync(path.join(logs, readdirSync(logs)[0]), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
      const warned = records.filter((l) => l.level === 40 && l.msg.includes('is an old id of')).map((l) => l.msg);
      expect(warned).toHaveLength(3);
      expect(warned.every((w) => /old-ids\.yaml:\d+:\d+: steps\[\d\]\.endpoint: /.test(w))).toBe(true);
    });

    test('check (the account against the plan\'s cost) warns on stderr once per old id, as plan and run do', async () => {
      const err: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((c: string) => { err.push(String(c)); return true; }) as never;
      let code: number;
      try {
        code = await checkCommand({ root: ROOT, pipeline: OLD_IDS, env: p.env, out: () => undefined });
      } finally {
        process.stderr.write = write;
      }
      expect(code).toBe(0);
      const warned = err.join('').split('\n').filter((l) => l.includes('is an old id of'));
      expect(warned).toHaveLength(3);
      expect(warned.every((w) => /^seo-etl: warning: .*old-ids\.yaml:\d+:\d+: steps\[\d\]\.endpoint: /.test(w))).toBe(true);
    });
  });
});
