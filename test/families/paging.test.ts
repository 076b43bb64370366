/**
 * Live list endpoints of the generated families page the way their request models declare (the generator's
 * `paging`): Backlinks' backlinks and On-Page pages with search_after_token, Labs with limit/offset. Against the
 * embedded sandbox: N rows over several pages, each row once, stopping at the reported total; a pipeline step
 * asking for more rows than a page gets them; and a malformed filter stops the run (exit 2, file:line, field,
 * rule) before anything is posted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoint } from '../../src/api/catalog.js';
import type { ApiClient, TaskOutcome } from '../../src/api/client.js';
import { pageEndpoint, pageTokenOf } from '../../src/api/paging.js';
import { validateTask } from '../../src/api/validate.js';
import { loadConfig } from '../../src/config/index.js';
import { manualClock, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { sandboxClient } from '../helpers/api-client.js';
import { ROOT, queryFile } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-generated-paging-'));
// Generated live lists follow the day (11 to 24 rows): a fixed day makes them long enough for every case below. The
// clock stands still within it: a generated row's timestamps follow the sandbox's time, and two calls asking for
// the same row a second apart got two different rows.
const DAY = '2026-11-21';
let box: Sandbox;
let client: ApiClient;
beforeAll(async () => {
  const config = loadConfig({ root: ROOT, env: {} });
  box = await startSandbox({ config, port: 0, clock: manualClock(Date.parse(`${DAY}T12:00:00Z`)) });
  client = sandboxClient(box, config);
});
afterAll(async () => {
  await box?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function collect(gen: AsyncGenerator<TaskOutcome>): Promise<TaskOutcome[]> {
  const out: TaskOutcome[] = [];
  for await (const o of gen) out.push(o);
  return out;
}
const page = (o: TaskOutcome) => {
  if (!o.ok) throw new Error(`${o.error.code} ${o.error.message}`);
  return o.task.result![0] as Record<string, any>;
};
const items = (pages: TaskOutcome[]) => pages.flatMap((o) => page(o).items as unknown[]).map((i) => JSON.stringify(i));

describe('paging of generated endpoints', () => {
  it('the generator records the paging each request model supports', () => {
    expect(endpoint('backlinks.backlinks.live').paging).toBe('search_after_token');
    expect(endpoint('on_page.pages').paging).toBe('search_after_token');
    expect(endpoint('dataforseo_labs.google.ranked_keywords.live').paging).toBe('limit_offset');
    expect(endpoint('app_data.apple.app_listings.search.live').paging).toBe('limit_offset_token');
    expect(endpoint('backlinks.summary.live').paging).toBeUndefined();
  });

  it('Backlinks backlinks: every row once through search_after_token, stopping at the total', async () => {
    const def = endpoint('backlinks.backlinks.live');
    const pages = await collect(pageEndpoint(client, def, { target: 'example.com', mode: 'as_is' }, { pageSize: 5 }));
    const total = page(pages[0]).total_count as number;
    expect(total).toBeGreaterThan(10);
    expect(pages).toHaveLength(Math.ceil(total / 5));
    const rows = items(pages);
    expect(rows).toHaveLength(total);
    expect(new Set(rows).size).toBe(total);
    // Each page but the last hands the next one its token; the pager sent it back.
    expect(pages.map((o) => pageTokenOf((o as Extract<TaskOutcome, { ok: true }>).task, 'search_after_token') !== undefined)).toEqual(pages.map((_, i) => i < pages.length - 1));
    expect(pages.slice(1).every((o) => typeof (o as Extract<TaskOutcome, { ok: true }>).task.data?.search_after_token === 'string')).toBe(true);
  });

  it('a token with another parameter changed is refused (so the test above could fail)', async () => {
    const def = endpoint('backlinks.backlinks.live');
    const first = await client.live(def.id, { target: 'example.com', limit: 5 });
    const token = pageTokenOf((first as Extract<TaskOutcome, { ok: true }>).task, 'search_after_token')!;
    const changed = await client.live(def.id, { target: 'example.org', limit: 5, search_after_token: token });
    expect(changed.ok).toBe(false);
    expect(changed.ok ? 0 : changed.error.code).toBe(40501);
  });

  it('On-Page pages (a POST list endpoint) through search_after_token', async () => {
    const pages = await collect(pageEndpoint(client, endpoint('on_page.pages'), { id: '11261200-1111-2222-3333-444444444444' }, { pageSize: 8 }));
    const total = page(pages[0]).total_items_count as number;
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(items(pages)).size).toBe(total);
  });

  it('Labs ranked keywords: limit/offset pages, each row once, and the same row whatever page asks for it', async () => {
    const def = endpoint('dataforseo_labs.google.ranked_keywords.live');
    const task = { target: 'example.com', location_code: 2840, language_code: 'en' };
    const pages = await collect(pageEndpoint(client, def, task, { pageSize: 7 }));
    const total = page(pages[0]).total_count as number;
    expect(pages.map((o) => (o as Extract<TaskOutcome, { ok: true }>).task.data?.offset)).toEqual(Array.from({ length: Math.ceil(total / 7) }, (_, i) => i * 7));
    const rows = items(pages);
    expect(rows).toHaveLength(total);
    expect(new Set(rows).size).toBe(total);
    const single = await client.live(def.id, { ...task, limit: 1, offset: 9 });
    expect(JSON.stringify(page(single).items[0])).toBe(rows[9]);
    // max_items stops after the page that reaches it: a page is never cut.
    const some = await collect(pageEndpoint(client, def, task, { pageSize: 4, maxItems: 10 }));
    expect(items(some)).toHaveLength(12);
  });

  it('a pipeline step pages through with max_items, and stops at the total when it asks for more', async () => {
    const file = path.join(dir, 'paged.yaml');
    writeFileSync(file, [
      'name: paged',
      'budget_usd: 20',
      'steps:',
      '  - name: backlinks',
      '    endpoint: backlinks.backlinks.live',
      '    params: { target: example.com, limit: 5 }',
      '    paging: { max_items: 12 }',
      '  - name: ranked',
      '    endpoint: dataforseo_labs.google.ranked_keywords.live',
      '    params: { target: example.com, location_code: 2840, language_code: en, limit: 10 }',
      '    paging: { max_items: 1000 }',
      '',
    ].join('\n'));
    const data = path.join(dir, 'data');
    // Lists of 30 rows whatever length the request's seed draws (11 to 24): the third page of five passes 12.
    const r = await runCli(['run', file, '--sandbox', '--no-progress', '--run-date', DAY], { env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: data, SEO_ETL_SANDBOX_GENERATED_ITEMS: '30' }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const q = (sql: string) => queryFile(path.join(data, 'warehouse.duckdb'), sql);
    // Three pages of five: the page that passes 12 is kept whole.
    expect(await q('SELECT count(*)::INT AS n, count(DISTINCT _task_id)::INT AS t FROM backlinks_backlinks__items')).toEqual([{ n: 15, t: 3 }]);
    const [labs] = await q('SELECT count(*)::INT AS n, (SELECT max(total_count)::INT FROM labs_ranked_keywords) AS total, count(DISTINCT _task_id)::INT AS t FROM labs_ranked_keywords__items');
    expect(labs.n).toBe(labs.total);
    expect(labs.t).toBe(Math.ceil((labs.total as number) / 10));
  });
});

describe('filters', () => {
  const def = endpoint('backlinks.backlinks.live');
  const rules = (filters: unknown) => validateTask(def, { target: 'example.com', filters }).map((i) => `${i.field} ${i.rule}`);

  it('accepts the live operators the models list, and refuses malformed conditions', () => {
    for (const op of ['=', '<>', '<', '<=', '>', '>=']) expect(rules(['domain_from_rank', op, 10]), op).toEqual([]);
    for (const op of ['in', 'not_in']) expect(rules(['domain_from', op, ['a.com', 'b.com']]), op).toEqual([]);
    for (const op of ['like', 'not_like', 'ilike', 'not_ilike', 'match', 'not_match', 'regex', 'not_regex']) expect(rules(['anchor', op, '%shoe%']), op).toEqual([]);
    expect(rules([['domain_from_rank', '>', 10], 'and', [['anchor', 'ilike', '%shoe%'], 'or', ['dofollow', '=', true]]])).toEqual([]);
    expect(rules(['domain_from', 'in', 'a.com'])).toEqual(['filters with in the value must be a non-empty array of values']);
    expect(rules(['anchor', 'like', 5])).toEqual(['filters with like the value must be a string']);
    expect(rules(['anchor', 'regex', 'x'.repeat(1001)])).toEqual(['filters a regex pattern may be at most 1000 characters']);
    expect(rules(['domain_from_rank', '>', [1, 2]])).toEqual(['filters with > the value must be a single value (a string, number or boolean), not a list or object']);
    expect(rules(['anchor', 'contains', 'x'])[0]).toMatch(/^filters operator must be one of /);
    expect(rules([['a', '=', 1], 'xor', ['b', '=', 2]])).toEqual(['filters[1] conditions must be joined by "and" or "or"']);
  });

  it('a pipeline with a malformed filter exits 2 with file:line, field and rule, posting nothing', async () => {
    const file = path.join(dir, 'filters.yaml');
    writeFileSync(file, [
      'name: bad-filter',
      'budget_usd: 1',
      'steps:',
      '  - name: backlinks',
      '    endpoint: backlinks.backlinks.live',
      '    params:',
      '      target: example.com',
      '      filters: [[dofollow, "=", true], and, [domain_from, in, example.org]]',
      '',
    ].join('\n'));
    const r = await runCli(['run', file, '--sandbox', '--no-progress', '--run-date', DAY], { env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: path.join(dir, 'bad') }, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/filters\.yaml:8/);
    expect(r.stderr).toMatch(/filters\[2\].*with in the value must be a non-empty array of values/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).not.toMatch(/embedded sandbox started/);
  });
});
