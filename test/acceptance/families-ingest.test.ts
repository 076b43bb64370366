/**
 * Answers in the live service's shapes (the client's models, which test/acceptance/all-operations.test.ts holds
 * the sandbox to) for Labs ranked keywords and competitors, Backlinks list and summary, LLM mentions and
 * responses, Google reviews and On-Page pages, saved as a user would save them and fed through `seo-etl ingest`:
 * every row lands in typed columns, `extra` stays empty, and only the tables of what was ingested are created.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { familyOf, inUseOnFirstRow, rootTableFor } from '../../src/normalize/catalog.js';
import { endpoint } from '../../src/api/catalog.js';
import { useIngestProject } from '../helpers/ingest-project.js';

const { root, call, ingest } = useIngestProject('families-ingest');

/** Live calls: endpoint id and the task sent. */
const LIVE: [string, Record<string, unknown>][] = [
  ['dataforseo_labs.google.ranked_keywords.live', { target: 'example.com', location_code: 2840, language_code: 'en', limit: 10 }],
  ['dataforseo_labs.google.competitors_domain.live', { target: 'example.com', location_code: 2840, language_code: 'en', limit: 10 }],
  ['dataforseo_labs.google.domain_intersection.live', { target1: 'example.com', target2: 'example.org', location_code: 2840, language_code: 'en', limit: 10 }],
  ['backlinks.backlinks.live', { target: 'example.com', limit: 10 }],
  ['backlinks.summary.live', { target: 'example.com' }],
  ['ai_optimization.llm_mentions.search_mentions.live', { target: [{ domain: 'example.com' }], location_code: 2840, language_code: 'en', limit: 10 }],
  ['ai_optimization.chat_gpt.llm_responses.live', { user_prompt: 'best running shoes?', model_name: 'gpt-4o-mini' }],
  ['on_page.pages', { id: '00000000-0000-0000-0000-000000000001', limit: 10 }],
];

describe('ingest of the generated families in the live shapes', () => {
  it('lands every row in typed columns with an empty extra, creating only the tables ingested', async () => {
    const files: string[] = [];
    for (const [id, task] of LIVE) {
      const env = await call('POST', endpoint(id).path, [task]);
      expect(env.tasks[0].status_code, `${id}: ${env.tasks[0].status_message}`).toBe(20000);
      const file = path.join(root, `${id}.json`);
      writeFileSync(file, JSON.stringify(env));
      files.push(file);
    }
    // Google reviews through their task lifecycle: post, then the task_get answer is what a user saves.
    const posted = await call('POST', '/v3/business_data/google/reviews/task_post', [{ keyword: 'pizza palace', location_code: 2840, language_code: 'en', depth: 10 }]);
    const taskId = posted.tasks[0].id;
    let got: any;
    for (let i = 0; i < 50; i++) {
      got = await call('GET', `/v3/business_data/google/reviews/task_get/${taskId}`);
      if (got.tasks[0].status_code === 20000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(got.tasks[0].status_code).toBe(20000);
    writeFileSync(path.join(root, 'reviews.json'), JSON.stringify(got));
    files.push(path.join(root, 'reviews.json'));

    // The request echo (`data`) of fields the tasks table has no column for is the tasks table's extra; results have none.
    const report = await ingest(files);
    const unknown = /unknown fields kept in extra: \d+ \(([^)]*)\)/.exec(report)?.[1].split(', ').filter((f) => !f.startsWith('tasks.')) ?? [];
    expect(unknown).toEqual([]);

    const wh = await Warehouse.open(warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).work);
    try {
      const rows = async (sql: string) => (await wh.connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, any>[];
      const existing = new Set((await rows(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
      for (const id of [...LIVE.map(([e]) => e), 'business_data.google.reviews.task_get']) {
        const root = rootTableFor(endpoint(id).result)!;
        const tables = familyOf(root.name);
        let total = 0;
        for (const t of tables) {
          // An item type's tables are created with their first row (test/load/item-type-tables.test.ts): one of a
          // type the answers lack may be absent.
          if (inUseOnFirstRow(t) && !existing.has(t.name)) continue;
          expect(existing.has(t.name), `${t.name} created`).toBe(true);
          if (!t.extra) continue;
          const [r] = await rows(`SELECT count(*)::INT n, count(extra)::INT e, any_value(extra)::VARCHAR x FROM "${t.name}"`);
          expect(r.e, `${t.name}: rows with extra ${r.x}`).toBe(0);
          total += r.n;
        }
        expect(total, `${id}: rows`).toBeGreaterThan(0);
      }
      // The one value the tasks table cannot type is the LLM mentions request's `target` (a list of objects, where
      // other families send a domain): kept in the tasks row's extra, the result tables have none.
      const odd = await rows(`SELECT endpoint_id, extra::VARCHAR AS extra FROM tasks WHERE extra IS NOT NULL AND extra::VARCHAR LIKE '%"target"%'`);
      expect(odd.map((r) => r.endpoint_id)).toEqual(['ai_optimization.llm_mentions.search_mentions.live']);
      expect(report).toMatch(/values of an unexpected type kept in extra: 1\n/);
      // Typed values in the columns the models declare (numbers as numbers, nested fields as parent__child).
      const [kw] = await rows(`SELECT keyword_data__keyword AS k, keyword_data__keyword_info__search_volume AS v, item_type AS t FROM labs_ranked_keywords__items LIMIT 1`);
      expect(typeof kw.k).toBe('string');
      expect(typeof kw.v).toBe('bigint'); // search_volume: an integer in the models, BIGINT
      expect(typeof kw.t).toBe('string');
      // Polymorphic items: the common fields and `item_type` in one table, each type's own fields in a table of
      // its own with the common row's `_id`: exactly one row there per common row of that type, none elsewhere.
      for (const [common, types] of [['labs_ranked_keywords__items', ['organic', 'paid', 'featured_snippet']], ['ai_chat_gpt_llm_responses__items', ['message', 'reasoning']]] as const) {
        const byType = await rows(`SELECT item_type, count(*)::INT AS n FROM ${common} GROUP BY item_type`);
        expect(byType.length, `${common}: item types`).toBeGreaterThan(0);
        for (const type of types) {
          const want = byType.find((r) => r.item_type === type)?.n ?? 0;
          if (want) expect(existing.has(`${common}__${type}`), `${common}__${type} created`).toBe(true);
          if (!existing.has(`${common}__${type}`)) continue;
          const [own] = await rows(`SELECT count(*)::INT AS n, count(c._id)::INT AS joined, count(*) FILTER (WHERE c.item_type <> '${type}')::INT AS other FROM ${common}__${type} o LEFT JOIN ${common} c ON c._id = o._id`);
          expect([own.n, own.joined, own.other], `${common}__${type}`).toEqual([want, want, 0]);
        }
      }
      expect(Number((await rows(`SELECT count(*)::INT AS n FROM ai_chat_gpt_llm_responses__items__message`))[0].n)).toBeGreaterThan(0);
      // Two polymorphic objects in one row (domain intersection's two SERP elements): each picks its tables by its own type.
      const [both] = await rows(`SELECT count(*) FILTER (WHERE item_type = 'organic')::INT AS first, count(*) FILTER (WHERE second_domain_serp_element__type = 'organic')::INT AS second,
        (SELECT count(*)::INT FROM labs_domain_intersection__items__organic) AS first_rows, (SELECT count(*)::INT FROM labs_domain_intersection__items__second_domain_serp_element__organic) AS second_rows,
        (SELECT count(*)::INT FROM labs_domain_intersection__items__second_domain_serp_element__organic o JOIN labs_domain_intersection__items i USING (_id) WHERE i.second_domain_serp_element__type <> 'organic') AS wrong
        FROM labs_domain_intersection__items`);
      expect(both.first + both.second).toBeGreaterThan(0);
      expect([both.first_rows, both.second_rows, both.wrong]).toEqual([both.first, both.second, 0]);
      const [organic] = await rows(`SELECT o.url, o.etv FROM labs_ranked_keywords__items i JOIN labs_ranked_keywords__items__organic o USING (_id) WHERE i.item_type = 'organic' LIMIT 1`);
      expect(organic.url).toMatch(/^https?:\/\//);
      expect(typeof organic.etv).toBe('number');
      // A type's own fields are not columns of the common table.
      const commonCols = (await rows(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'labs_ranked_keywords__items'`)).map((r) => String(r.column_name));
      expect(commonCols).toContain('item_type');
      expect(commonCols.filter((c) => c.startsWith('ranked_serp_element__serp_item__url') || c.endsWith('__etv'))).toEqual([]);
      // Tables of families nothing ingested are not created: the warehouse holds what was fetched.
      expect(existing.has('labs_keyword_ideas')).toBe(false);
      expect(existing.has('app_app_searches_advanced')).toBe(false);
    } finally {
      await wh.close();
    }
  });
});
