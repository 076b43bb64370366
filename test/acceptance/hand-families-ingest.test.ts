/**
 * Answers in the live shape with every field the client's models declare set, for every result kind whose tables a
 * family declares by hand (SERP of every engine and type, merchant, on-page resources, the account, domain
 * technologies, Google Ads keywords), saved as a user would and fed through `seo-etl ingest`: every field lands in
 * a typed column or child table, and `extra` stays empty (test/families/model-columns.test.ts names a missing field).
 */
import { describe, expect, it } from 'vitest';
import { endpoint, resolvePath } from '../../src/api/catalog.js';
import { familyOf, rootTableFor } from '../../src/normalize/catalog.js';
import { loadConfig } from '../../src/config/index.js';
import { useIngestProject } from '../helpers/ingest-project.js';
import { handDeclaredResults, ITEM_TYPE_NAMES, samplesOf } from '../helpers/model-sample.js';
import { ROOT } from '../helpers/project.js';

const { ingest, rows } = useIngestProject('hand-families-ingest');
const PATHS = loadConfig({ root: ROOT, env: {} }).paths;

/** A live answer of one task of `endpointId` with `result`, as the service sends it. */
function answer(endpointId: string, n: number, result: unknown[]): unknown {
  const def = endpoint(endpointId);
  const id = `11111111-2222-4333-8444-${String(n).padStart(12, '0')}`;
  const p = resolvePath(def, PATHS, { id });
  const engine = /^\/v3\/\w+\/(\w+)\//.exec(p)?.[1];
  return {
    version: '0.1.20240801', status_code: 20000, status_message: 'Ok.', time: '0.5000 sec.', cost: 0.002, tasks_count: 1, tasks_error: 0,
    tasks: [{
      id, status_code: 20000, status_message: 'Ok.', time: '0.4000 sec.', cost: 0.002, result_count: result.length, path: p.split('/').filter(Boolean),
      data: { api: def.api, function: def.fn, ...(def.api === 'serp' || def.api === 'merchant' ? { se: engine } : {}), keyword: 'running shoes', location_code: 2840, language_code: 'en' },
      result,
    }],
  };
}

describe('ingest of the hand-declared families with every model field set', () => {
  it('lands every field in typed columns with an empty extra', async () => {
    const cases = handDeclaredResults();
    // One answer per result kind and shape: the task_get and live models of one engine and type are alike.
    const byShape = new Map<string, { endpointId: string; result: unknown[] }>();
    for (const c of cases) {
      const result = samplesOf(c.model, ITEM_TYPE_NAMES);
      const key = `${c.kind} ${JSON.stringify(result)}`;
      if (!byShape.has(key)) byShape.set(key, { endpointId: c.endpointId, result });
    }
    const files = [...byShape.values()].map((c, i): [string, unknown] => [`${c.endpointId}.json`, answer(c.endpointId, i, c.result)]);
    const report = await ingest(files);
    expect(report).toMatch(new RegExp(`ingest: ${files.length} response\\(s\\) archived`));
    expect(report).not.toMatch(/unknown fields kept in extra/);
    expect(report).not.toMatch(/unknown item types kept/);
    expect(report).not.toMatch(/values of an unexpected type/);

    const existing = new Set((await rows(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'`)).map((r) => String(r.table_name)));
    const kinds = new Set(cases.map((c) => c.kind));
    let checked = 0;
    for (const kind of kinds) {
      for (const t of familyOf(rootTableFor(kind)!.name)) {
        if (!t.extra || !existing.has(t.name)) continue;
        const [r] = await rows(`SELECT count(*)::INT n, count(extra)::INT e, any_value(extra)::VARCHAR x FROM "${t.name}"`);
        expect(r.e, `${t.name}: rows with extra ${r.x}`).toBe(0);
        checked += r.n > 0 ? 1 : 0;
      }
    }
    expect(checked).toBeGreaterThan(40);

    // The fields added for the models land typed: a page's own fields beside its resource row, every check as a
    // row, the account's limits and prices, a news result's flag.
    const [html] = await rows(`SELECT h.onpage_score, h.meta__internal_links_count AS links, h.meta__follow AS follow, i.resource_type
      FROM onpage_resources__items__html h JOIN onpage_resources__items i USING (_id)`);
    // internal_links_count is an integer in the models: BIGINT, a bigint here.
    expect(html).toEqual({ onpage_score: expect.any(Number), links: expect.any(BigInt), follow: true, resource_type: 'html' });
    expect((await rows(`SELECT DISTINCT key FROM onpage_resources__items__checks`)).map((r) => r.key)).toEqual(['first_key']);
    expect((await rows(`SELECT count(*)::INT AS n FROM onpage_resources__items__html__htags`))[0].n).toBeGreaterThan(0);
    const [account] = await rows(`SELECT json_extract(price, '$.serp')::VARCHAR AS serp, rate_limits IS NOT NULL AS limits, backlinks_subscription_expiry_date IS NOT NULL AS expiry, typeof(backlinks_subscription_expiry_date) AS expiry_type FROM account_user_data`);
    expect(account.limits).toBe(true);
    expect(account.serp).toMatch(/^\{/);
    // A time the models give a format of: a timestamp, not text.
    expect(account).toMatchObject({ expiry: true, expiry_type: 'TIMESTAMP WITH TIME ZONE' });
    expect((await rows(`SELECT count(*)::INT AS n FROM serp_results WHERE includes_non_news_search_results`))[0].n).toBeGreaterThan(0);
  });
});
