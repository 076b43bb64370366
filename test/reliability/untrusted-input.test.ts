/**
 * What the API or a pipeline sends is data, never code or a path:
 * - answers the catalog does not expect (unknown fields and item types, wrong types, huge strings, nesting deeper
 *   than JSON.stringify can take) are kept and reported, by the normalizer and through `seo-etl ingest`, and
 *   never crash it;
 * - names that come from the API or a pipeline (field names, item types, tags, texts) cannot inject SQL or put a
 *   file outside the data folder.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { normalizeTask, NormalizeStats } from '../../src/normalize/index.js';
import { jsonText } from '../../src/normalize/json-text.js';
import { queryFile, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, childEnv, runCli, runInProcess, closeProject } from './helpers.js';

const INJECT = 'x"; DROP TABLE keyword_data; --';
const INJECT_SQ = "x'); DROP TABLE keyword_data; --";
const ESCAPE_TAG = '../../etc';
const DEPTH = 20_000;

function nested(depth: number, leaf: unknown = 'bottom'): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

function depthOf(v: unknown): number {
  let d = 0;
  let cur = v;
  while (cur !== null && typeof cur === 'object') {
    cur = Array.isArray(cur) ? cur[0] : (cur as { a: unknown }).a;
    d++;
  }
  return d;
}

const TASK_ID = '5b0a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
const HUGE = 'h'.repeat(3_000_000);

/** A keywords_for_site answer with everything the catalog does not expect. */
function oddKeywordEnvelope(): Record<string, unknown> {
  return {
    version: '0.1.odd', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0, brand_new_envelope_field: { x: 1 },
    tasks: [{
      id: TASK_ID, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, result_count: 1,
      path: ['v3', 'keywords_data', 'engine_a', 'keywords_for_site', 'task_get', TASK_ID],
      data: { api: 'keywords_data', function: 'keywords_for_site', se: 'engine_a', tag: ESCAPE_TAG, target: INJECT_SQ, [INJECT]: 1 },
      result: [{
        keyword: INJECT_SQ, location_code: 2840, language_code: 'en', search_partners: 'sometimes', competition: 0.5, cpc: [1, 2],
        search_volume: 'lots', categories: [1, 'two', { three: 3 }],
        monthly_searches: [{ year: 2024, month: 1, search_volume: 10, [INJECT]: 'month field' }, 'not an object'],
        [INJECT]: 'value of an injected name', nested: nested(DEPTH), huge: HUGE,
      }],
    }],
  };
}

/** A merchant answer with an unknown item type and an item type named like an injection. */
function oddMerchantEnvelope(): Record<string, unknown> {
  const id = '6c1b2d3e-4f50-4b6c-9d7e-8f9a0b1c2d3e';
  return {
    version: '0.1.odd', status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
    tasks: [{
      id, status_code: 20000, status_message: 'Ok.', time: '0.1 sec.', cost: 0, result_count: 1,
      path: ['v3', 'merchant', 'engine_a', 'products', 'task_get', 'advanced', id],
      data: { api: 'merchant', function: 'products', se: 'engine_a', se_type: 'shopping', keyword: 'tent', tag: ESCAPE_TAG },
      result: [{
        keyword: 'tent', type: 'shopping', se_domain: 'x', location_code: 2840, language_code: 'en', check_url: 'u', datetime: '2024-05-01 10:00:00 +00:00',
        spell: null, item_types: ['engine_a_shopping_hologram', INJECT], items_count: 2,
        items: [
          { type: 'engine_a_shopping_hologram', rank_group: 1, rank_absolute: 1, position: 'left', xpath: '/x', glow: 'bright', depth_of_field: nested(50) },
          { type: INJECT, rank_group: 1, rank_absolute: 2, position: 'right', xpath: '/y', title: ESCAPE_TAG },
        ],
      }],
    }],
  };
}

describe('the normalizer keeps and reports what the catalog does not expect', () => {
  test('unknown fields, wrong types, huge strings and deep nesting: kept in extra, counted, no throw', () => {
    const env = oddKeywordEnvelope();
    const task = (env.tasks as Record<string, unknown>[])[0];
    const stats = new NormalizeStats();
    const out = normalizeTask({ endpointId: 'keywords_for_site.task_get', task: task as never, version: '0.1.odd' }, { runId: 'r', loadedAt: new Date() }, stats);
    const [row] = out.get('keyword_data')!;
    expect(row.keyword).toBe(INJECT_SQ);
    expect(row.search_volume).toBeNull();
    const extra = JSON.parse(String(row.extra));
    expect(extra[INJECT]).toBe('value of an injected name');
    expect(extra.huge).toHaveLength(HUGE.length);
    expect(depthOf(extra.nested)).toBe(DEPTH);
    expect(extra.search_volume).toBe('lots');
    expect(stats.unknownFields.get(`keyword_data.${INJECT}`)).toBe(1);
    expect(stats.unknownFields.get('keyword_data.nested')).toBe(1);
    expect(stats.badValueCount).toBeGreaterThanOrEqual(4);
    expect(out.get('keyword_data__categories')).toHaveLength(3);
    expect(out.get('keyword_data__monthly_searches')).toHaveLength(2);
  });

  test('jsonText writes what JSON.stringify writes, and past its depth limit too', () => {
    const samples = [null, 1, 'a"b\u2028', [1, undefined, () => 1], { a: undefined, b: [{}], c: 'x', d: -0, e: Number.NaN }, nested(100)];
    for (const s of samples) expect(jsonText(s)).toBe(JSON.stringify(s));
    expect(() => JSON.stringify(nested(DEPTH))).toThrow(RangeError);
    const deep = nested(DEPTH, { k: [1, 'two', null] });
    expect(depthOf(JSON.parse(jsonText(deep)))).toBe(DEPTH + 1);
  });
});

describe('seo-etl ingest of crafted answers', () => {
  let p: TestProject;
  let dir: string;
  let r: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    p = await startProject(SANDBOX_EXTRA);
    dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-odd-'));
    writeFileSync(path.join(dir, 'keywords.json.gz'), gzipSync(jsonText(oddKeywordEnvelope())));
    writeFileSync(path.join(dir, 'merchant.ndjson'), `${JSON.stringify(oddMerchantEnvelope())}\n`);
    r = await runCli(['ingest', path.join(dir, 'keywords.json.gz'), path.join(dir, 'merchant.ndjson')], { env: childEnv(p) });
  });
  afterAll(async () => {
    await closeProject(p);
    rmSync(dir, { recursive: true, force: true });
  });

  test('loads them, reports what it kept, exit 0', () => {
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stdout).toMatch(/unknown fields kept in extra: \d+/);
    expect(r.stdout).toMatch(/unknown item types kept: \d+ \(.*shopping_hologram/);
    expect(r.stdout).toMatch(/values of an unexpected type kept in extra: \d+/);
  });

  test('the odd values are in the warehouse as data: names that look like SQL stay text, tables intact', async () => {
    const work = path.join(p.dataDir, 'work', 'warehouse.duckdb');
    const [k] = await queryFile(work, `SELECT keyword, extra FROM keyword_data WHERE _task_id = '${TASK_ID}'`);
    expect(k.keyword).toBe(INJECT_SQ);
    const extra = JSON.parse(String(k.extra));
    expect(extra[INJECT]).toBe('value of an injected name');
    expect(extra.huge).toHaveLength(HUGE.length);
    expect(depthOf(extra.nested)).toBe(DEPTH);
    const [t] = await queryFile(work, `SELECT tag, target, extra FROM tasks WHERE _task_id = '${TASK_ID}'`);
    expect(t.tag).toBe(ESCAPE_TAG);
    expect(t.target).toBe(INJECT_SQ);
    expect(JSON.parse(String(t.extra)).data?.[INJECT] ?? JSON.parse(String(t.extra))[INJECT]).toBe(1);
    const items = await queryFile(work, `SELECT type, item_type, title FROM merchant_shopping__items ORDER BY rank_absolute`);
    expect(items.map((i) => i.type)).toEqual(['engine_a_shopping_hologram', INJECT]);
    expect(items[1].title).toBe(ESCAPE_TAG);
    const tables = (await queryFile(work, `SELECT table_name FROM information_schema.tables`)).map((x) => String(x.table_name));
    expect(tables).toContain('keyword_data');
    expect(tables.filter((t) => /[^a-z0-9_]/.test(t)), 'no table named after data').toEqual([]);
  });
});

/** Every path under a folder, relative to it. */
function tree(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory() ? [f + path.sep, ...tree(full).map((x) => path.join(f, x))] : [f];
  });
}

describe('a run whose tags and texts look like paths and SQL', () => {
  let p: TestProject;
  let pipeline: string;
  let pipelineDir: string;
  beforeAll(async () => {
    p = await startProject(SANDBOX_EXTRA);
    pipelineDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-names-'));
    pipeline = path.join(pipelineDir, 'names.yaml');
    writeFileSync(pipeline, [
      'name: names',
      'budget_usd: 1',
      'steps:',
      '  - name: ideas',
      '    endpoint: keywords_for_keywords.task_post',
      `    params: { location_code: 2840, language_code: en, tag: "${ESCAPE_TAG}" }`,
      `    for_each: { keywords: { values: ["${INJECT.replace(/"/g, '\\"')}", "${ESCAPE_TAG}/passwd"], chunk: 1 } }`,
      '    collect: postback',
      '  - name: texts',
      '    endpoint: content_generation.paraphrase.live',
      `    params: { creativity_index: 0.5, tag: "${ESCAPE_TAG}" }`,
      `    for_each: { text: ["${INJECT_SQ}", "${INJECT.replace(/"/g, '\\"')}"] }`,
      '',
    ].join('\n'));
  });
  afterAll(async () => {
    await closeProject(p);
    rmSync(pipelineDir, { recursive: true, force: true });
  });

  test('loads the values verbatim and writes only inside the data folder', async () => {
    // A data folder inside a folder of its own: anything written beside it would show.
    const parent = mkdtempSync(path.join(tmpdir(), 'seo-etl-names-root-'));
    const dataDir = path.join(parent, 'data');
    const r = await runInProcess({ ...p, env: { ...p.env, SEO_ETL_WAREHOUSE_DIR: dataDir } }, { warehouse: { dir: dataDir } }, pipeline);
    expect(r.exitCode, r.out + r.log.slice(-3000)).toBe(0);
    const published = path.join(dataDir, 'warehouse.duckdb');
    const tags = await queryFile(published, `SELECT DISTINCT user_tag FROM _tasks`);
    expect(tags).toEqual([{ user_tag: ESCAPE_TAG }]);
    const keywords = (await queryFile(published, `SELECT keyword FROM tasks__keywords ORDER BY 1`)).map((x) => x.keyword);
    expect(keywords).toEqual([`${ESCAPE_TAG}/passwd`, INJECT].sort());
    const texts = (await queryFile(published, `SELECT text FROM tasks WHERE text IS NOT NULL ORDER BY 1`)).map((x) => x.text);
    expect(texts).toEqual([INJECT_SQ, INJECT].sort());
    const [{ n }] = await queryFile(published, `SELECT count(*)::INT AS n FROM keyword_data`);
    expect(n).toBeGreaterThan(0);
    // Nothing beside the data folder, and inside it only the known layout.
    expect(readdirSync(parent)).toEqual(['data']);
    for (const f of readdirSync(dataDir)) expect(['logs', 'parquet', 'raw', 'reports', 'service.json', 'warehouse.duckdb', 'work']).toContain(f);
    for (const f of tree(parent)) {
      expect(f.split(path.sep)).not.toContain('..');
      expect(f).not.toMatch(/etc|passwd/);
    }
    rmSync(parent, { recursive: true, force: true });
  });
});
