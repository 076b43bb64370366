import { describe, expect, test } from 'vitest';
import { taskPrice } from '../../src/api/pricing.js';
import { endpoint } from '../../src/api/catalog.js';
import { expandStep, parseTag, PipelineError, runIdFor, taskKey, tagFor, type QueryFn } from '../../src/pipeline/index.js';
import { load, testConfig, useMemoryDuckDB } from './helpers.js';

const RUN = runIdFor('demo', '2024-05-01');

const db = useMemoryDuckDB();
const query = db.query;

describe('enumeration', () => {
  test('a matrix over keywords x locations x languages, first axis outermost', async () => {
    const { pipeline } = load(
      `name: demo
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    params: { depth: 20 }
    for_each:
      keyword: [concerts, jazz]
      location_code: { file: inputs/locations.csv, column: code }
      language_code: [en, de]
`,
      { 'inputs/locations.csv': 'code,name\n2840,United States\n2826,"United Kingdom"\n' },
    );
    const p = pipeline();
    const tasks = await expandStep(p, 0, { runId: RUN });
    const strip = (t: (typeof tasks)[number]) => {
      const { tag, ...rest } = t.params;
      return rest;
    };
    expect(tasks.map(strip)).toEqual([
      { depth: 20, keyword: 'concerts', location_code: 2840, language_code: 'en' },
      { depth: 20, keyword: 'concerts', location_code: 2840, language_code: 'de' },
      { depth: 20, keyword: 'concerts', location_code: 2826, language_code: 'en' },
      { depth: 20, keyword: 'concerts', location_code: 2826, language_code: 'de' },
      { depth: 20, keyword: 'jazz', location_code: 2840, language_code: 'en' },
      { depth: 20, keyword: 'jazz', location_code: 2840, language_code: 'de' },
      { depth: 20, keyword: 'jazz', location_code: 2826, language_code: 'en' },
      { depth: 20, keyword: 'jazz', location_code: 2826, language_code: 'de' },
    ]);
    expect(new Set(tasks.map((t) => t.key)).size).toBe(8);
    for (const t of tasks) {
      expect(t).toMatchObject({ runId: RUN, step: 'events', stepIndex: 0, endpointId: 'serp.events.task_post', collect: 'tasks_ready' });
      expect(t.params.tag).toBe(`seo-etl/demo/events/${t.key}`);
      expect(t.price).toBe(taskPrice(endpoint('serp.events.task_post'), t.params, testConfig().prices));
    }
  });

  test('text files skip blank lines and # comments; limit takes the first values; duplicates are dropped', async () => {
    const { pipeline } = load(
      `name: demo
budget_usd: 5
steps:
  - name: shop
    endpoint: merchant.google.products.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keyword: { file: kw.txt, limit: 4 }
`,
      { 'kw.txt': '# products\n\n  running shoes  \nrain jacket\r\nrunning shoes\n\ntent\nstove\n' },
    );
    const tasks = await expandStep(pipeline(), 0, { runId: RUN });
    expect(tasks.map((t) => t.params.keyword)).toEqual(['running shoes', 'rain jacket', 'tent']);
  });

  test('keywords_for_keywords: a file of 450 keywords is chunked into tasks of up to 200, or of `chunk`', async () => {
    const words = Array.from({ length: 450 }, (_, i) => `keyword ${i + 1}`).join('\n');
    const yaml = (chunk: string) => `name: demo
budget_usd: 5
steps:
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: { file: words.txt${chunk} }
`;
    const byDefault = await expandStep(load(yaml(''), { 'words.txt': words }).pipeline(), 0, { runId: RUN });
    expect(byDefault.map((t) => (t.params.keywords as string[]).length)).toEqual([200, 200, 50]);
    expect((byDefault[2].params.keywords as string[])[49]).toBe('keyword 450');
    const by100 = await expandStep(load(yaml(', chunk: 100'), { 'words.txt': words }).pipeline(), 0, { runId: RUN });
    expect(by100.map((t) => (t.params.keywords as string[]).length)).toEqual([100, 100, 100, 100, 50]);
    expect(by100.flatMap((t) => t.params.keywords as string[])).toHaveLength(450);
  });

  test('an over-long keyword inside a chunk names its own file line', () => {
    const words = ['a', 'b', 'x'.repeat(81), 'c'].join('\n');
    const { pipeline } = load(
      `name: demo
budget_usd: 5
steps:
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840 }
    for_each:
      keywords: { file: words.txt, chunk: 2 }
`,
      { 'words.txt': words },
    );
    try {
      pipeline();
      expect.unreachable();
    } catch (err) {
      const issues = (err as PipelineError).issues;
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ line: 8, column: 7, key: 'steps[0].for_each.keywords' });
      expect(issues[0].rule).toMatch(/^item must be at most 80 characters .*words\.txt:3:1\)$/);
    }
  });

  test('rows of a CSV bind several parameters per task', async () => {
    const { pipeline } = load(
      `name: demo
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    rows: { file: pairs.csv }
    for_each:
      depth: [10, 30]
`,
      { 'pairs.csv': 'keyword,location_code\nconcerts,2840\nopera,2826\n' },
    );
    const tasks = await expandStep(pipeline(), 0, { runId: RUN });
    expect(tasks.map((t) => [t.params.keyword, t.params.location_code, t.params.depth])).toEqual([
      ['concerts', 2840, 10],
      ['concerts', 2840, 30],
      ['opera', 2826, 10],
      ['opera', 2826, 30],
    ]);
  });

  test('a rows column that is also set in params is an error', () => {
    const { pipeline } = load(
      `name: demo
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    params: { location_code: 2840 }
    rows: { file: pairs.csv }
`,
      { 'pairs.csv': 'keyword,location_code\nconcerts,2826\n' },
    );
    expect(pipeline).toThrow(/pipeline\.yaml:7:5: steps\[0\]\.rows: columns location_code are also set in params or for_each/);
  });

  test('a SQL source feeds a step from what an earlier step loaded, expanded at run time', async () => {
    await db.run(`CREATE OR REPLACE TABLE domains_found (domain VARCHAR, _run_id VARCHAR, domain_rank INTEGER)`);
    await db.run(`INSERT INTO domains_found VALUES ('shop-a.example', '${RUN}', 10), ('shop-b.example', '${RUN}', 5), ('old.example', 'demo-2024-04-30', 1)`);
    const { pipeline } = load(`name: demo
budget_usd: 5
steps:
  - name: domains
    endpoint: domain_analytics.technologies.domains_by_html_terms.live
    params: { search_terms: ["shop.js"], limit: 10 }
  - name: site_keywords
    endpoint: keywords_for_site.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      target: { sql: "SELECT domain FROM domains_found WHERE _run_id = {run_id} ORDER BY domain_rank DESC" }
`);
    const p = pipeline();
    expect(p.steps.map((s) => s.deferred)).toEqual([false, true]);
    await expect(expandStep(p, 1, { runId: RUN })).rejects.toThrow(/needs a query function/);
    const tasks = await expandStep(p, 1, { runId: RUN, query });
    expect(tasks.map((t) => t.params.target)).toEqual(['shop-a.example', 'shop-b.example']);
    expect(tasks[0].key).toBe(taskKey('keywords_for_site.task_post', { location_code: 2840, language_code: 'en', target: 'shop-a.example' }));
  });

  test('SQL rows bind parameters by column name; integers come back as numbers', async () => {
    await db.run(`CREATE OR REPLACE TABLE watch (keyword VARCHAR, location_code BIGINT)`);
    await db.run(`INSERT INTO watch VALUES ('concerts', 2840), ('opera', 2826)`);
    const { pipeline } = load(`name: demo
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    rows: { sql: "SELECT keyword, location_code FROM watch ORDER BY keyword" }
`);
    const tasks = await expandStep(pipeline(), 0, { runId: RUN, query });
    expect(tasks.map((t) => [t.params.keyword, t.params.location_code])).toEqual([['concerts', 2840], ['opera', 2826]]);
  });

  test('a SQL-fed value that breaks a rule is caught before posting, naming the query row', async () => {
    await db.run(`CREATE OR REPLACE TABLE candidates (domain VARCHAR)`);
    await db.run(`INSERT INTO candidates VALUES ('good.example'), ('not a domain!')`);
    const yaml = `name: demo
budget_usd: 5
steps:
  - name: site_keywords
    endpoint: keywords_for_site.task_post
    params: { location_code: 2840 }
    for_each:
      target: { sql: "SELECT domain FROM candidates ORDER BY domain" }
`;
    const p = load(yaml).pipeline();
    const err = await expandStep(p, 0, { runId: RUN, query }).catch((e) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect(err.issues).toEqual([expect.objectContaining({ line: 8, column: 7, key: 'steps[0].for_each.target', rule: 'must be a domain name (got "not a domain!") (row 2 of the query)' })]);
    const failing = await expandStep(load(yaml.replace('FROM candidates', 'FROM missing_table')).pipeline(), 0, { runId: RUN, query }).catch((e) => e);
    expect(failing).toBeInstanceOf(PipelineError);
    expect(failing.issues[0].key).toBe('steps[0].for_each.target.sql');
    expect(failing.issues[0].rule).toContain('the query failed');
  });
});

describe('keys, tags and collection', () => {
  const yaml = (extra = '', params = 'keyword: concerts, location_code: 2840') => `name: demo
budget_usd: 5
steps:
  - name: events
    endpoint: serp.events.task_post
    params: { ${params} }
${extra}`;

  test('the key is a stable hash of endpoint and parameters; the run id is pipeline + day', async () => {
    const a = await expandStep(load(yaml()).pipeline(), 0, { runId: RUN });
    const b = await expandStep(load(yaml()).pipeline(), 0, { runId: runIdFor('demo', '2024-05-02') });
    const c = await expandStep(load(yaml('', 'location_code: 2840, keyword: concerts')).pipeline(), 0, { runId: RUN });
    const d = await expandStep(load(yaml('', 'keyword: concerts, location_code: 2826')).pipeline(), 0, { runId: RUN });
    expect(a[0].key).toMatch(/^[0-9a-f]{24}$/);
    expect(b[0].key).toBe(a[0].key);
    expect(c[0].key).toBe(a[0].key);
    expect(d[0].key).not.toBe(a[0].key);
    expect(RUN).toBe('demo-2024-05-01');
    expect(runIdFor('demo', new Date('2024-05-01T23:59:59Z'))).toBe(RUN);
    expect(() => runIdFor('demo', '2024-02-30')).toThrow(/calendar day/);
  });

  test('a user tag is kept for the ledger and still sent behind the identifying one', async () => {
    const [t] = await expandStep(load(yaml('', 'keyword: concerts, location_code: 2840, tag: campaign-7')).pipeline(), 0, { runId: RUN });
    expect(t.userTag).toBe('campaign-7');
    expect(t.params.tag).toBe(`seo-etl/demo/events/${t.key}/campaign-7`);
    expect(parseTag(t.params.tag)).toEqual({ pipeline: 'demo', step: 'events', key: t.key, userTag: 'campaign-7' });
    const long = tagFor('demo', 'events', t.key, 'u'.repeat(255));
    expect(long).toHaveLength(255);
    expect(parseTag(long)?.key).toBe(t.key);
    expect(parseTag('someone-elses-tag')).toBeUndefined();
  });

  test('pingback and postback: receiver addresses are sent but are not part of the key', async () => {
    const callbacks = { pingback_url: 'http://127.0.0.1:9999/s3cret/pingback?id=$id&tag=$tag', postback_url: 'http://127.0.0.1:9999/s3cret/postback?id=$id&tag=$tag' };
    const plain = await expandStep(load(yaml()).pipeline(), 0, { runId: RUN });
    const ping = await expandStep(load(yaml('    collect: pingback\n')).pipeline(), 0, { runId: RUN, callbacks });
    expect(ping[0].key).toBe(plain[0].key);
    expect(ping[0].params.pingback_url).toBe(callbacks.pingback_url);
    expect(ping[0].params.postback_url).toBeUndefined();
    const post = await expandStep(load(yaml('    collect: postback\n')).pipeline(), 0, { runId: RUN, callbacks });
    expect(post[0]).toMatchObject({ collect: 'postback', params: { postback_url: callbacks.postback_url, postback_data: 'advanced' } });
    const html = await expandStep(load(yaml('    collect: postback\n', 'keyword: concerts, location_code: 2840, postback_data: html')).pipeline(), 0, { runId: RUN, callbacks });
    expect(html[0].params.postback_data).toBe('html');
    expect(html[0].key).not.toBe(post[0].key);
  });

  test('list endpoints take no parameters and give one task; live paging derives pages from the page size', async () => {
    const p = load(`name: demo
budget_usd: 5
steps:
  - name: serp_endpoints
    endpoint: serp.endpoints
  - name: domains
    endpoint: domain_analytics.technologies.domains_by_html_terms.live
    params: { search_terms: ["<script"], limit: 100 }
    paging: { max_items: 250 }
  - name: resources
    endpoint: on_page.resources
    for_each:
      id: [00000000-0000-4000-8000-000000000001]
    paging: { max_pages: 4 }
`).pipeline();
    const [list] = await expandStep(p, 0, { runId: RUN });
    expect(list).toMatchObject({ endpointId: 'serp.endpoints', params: {}, collect: 'list', price: 0 });
    const [domains] = await expandStep(p, 1, { runId: RUN });
    expect(domains).toMatchObject({ collect: 'live', paging: { maxPages: 3, maxItems: 250, pageSize: 100 }, price: 0.01 });
    const [resources] = await expandStep(p, 2, { runId: RUN });
    expect(resources.paging).toEqual({ maxPages: 4, pageSize: 100 });
  });

  test('paging on an endpoint that does not page is an error', () => {
    const { pipeline } = load(yaml('    paging: { max_pages: 2 }\n'));
    expect(pipeline).toThrow(/serp\.events\.task_post does not page/);
  });
});
