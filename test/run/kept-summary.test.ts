/**
 * The summary of an ingest and of a run names every unknown item type and every unknown field it kept in `extra`,
 * with counts (issue 44): a Labs historical SERP holding a `third_party_reviews` item (a SERP feature its models do
 * not list) and fields the models do not declare.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runJob } from '../../src/run/job.js';
import { useIngestProject } from '../helpers/ingest-project.js';
import { ROOT, collectStream, pipelineFile, startProject, type TestProject } from '../helpers/project.js';

const { call, ingest } = useIngestProject('kept-summary');

let p: TestProject | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await p?.close();
  p = proxy = undefined;
});

/** Two SERPs of a Labs history, both meeting the review feature, the first item of one carrying the new fields. */
function withNewThings(answer: any): any {
  const serps = (answer.tasks?.[0]?.result?.[0]?.items ?? []).slice(0, 2) as { items: Record<string, unknown>[] }[];
  if (!serps.length) return answer;
  answer.tasks[0].result[0].items = serps;
  for (const serp of serps) serp.items.push({ type: 'third_party_reviews', rank_group: 1, rank_absolute: serp.items.length + 1, position: 'left', xpath: '/x', title: 'Reviews', url: 'https://reviewly.com/r', reviews_count: 120 });
  Object.assign(serps[0].items[0], NEW_FIELDS);
  return answer;
}

/** What the summary names under "unknown fields kept in extra", by name, with the total it gives. */
function namedFields(summary: string): { total: number; named: Map<string, number> } {
  const m = /unknown fields kept in extra: (\d+) \(([^)]*)\)/.exec(summary);
  expect(m, summary).not.toBeNull();
  return { total: Number(m![1]), named: new Map(m![2].split(', ').map((e) => { const x = /^(.*) x(\d+)$/.exec(e)!; return [x[1], Number(x[2])] as const; })) };
}

function expectEveryNewThingNamed(summary: string): void {
  expect(summary).toMatch(/unknown item types kept: 2 \(labs_historical_serps__items__items:third_party_reviews x2\)/);
  const { total, named } = namedFields(summary);
  for (const f of Object.keys(NEW_FIELDS)) expect(named.get(`labs_historical_serps__items__items.${f}`), f).toBe(1);
  expect(named.get('labs_historical_serps__items__items.reviews_count')).toBe(2);
  expect([...named.values()].reduce((a, b) => a + b, 0)).toBe(total);
}

/** Twelve fields no model declares: more than a summary that shows the first ten would name. */
const NEW_FIELDS = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`future_field_${String.fromCharCode(97 + i)}`, i]));

describe('what a load kept outside the catalog, named in the summary', () => {
  it('ingest names every unknown item type and field with its count', async () => {
    const answer = await call('POST', '/v3/dataforseo_labs/google/historical_serps/live', [{ keyword: 'running shoes', location_code: 2840, language_code: 'en' }]);
    expect(answer.tasks[0].status_code).toBe(20000);
    expect(withNewThings(answer).tasks[0].result[0].items).toHaveLength(2);
    expectEveryNewThingNamed(await ingest([['historical.json', answer]]));
  });

  it('a run names them too, from the answers it collected', async () => {
    p = await startProject();
    // The service's answer as it will come once it sends the new things: the sandbox's, changed on its way.
    const upstream = p.sandbox.url;
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const r = await fetch(`${upstream}${req.url}`, { method: req.method, headers: { authorization: String(req.headers.authorization ?? ''), 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
      let body = await r.text();
      if (req.url?.includes('/historical_serps/live')) body = JSON.stringify(withNewThings(JSON.parse(body)));
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const file = pipelineFile('name: history\nbudget_usd: 1\nsteps:\n  - name: history\n    endpoint: dataforseo_labs.google.historical_serps.live\n    params: { keyword: running shoes, location_code: 2840, language_code: en }\n');
    const out = collectStream();
    const r = await runJob({
      root: ROOT, pipelineFile: file, runDate: '2026-03-02', env: { ...p.env, SEO_ETL_API_BASE_URL: url }, configOverrides: { ...p.overrides, api: { ...(p.overrides.api as object), base_url: url } },
      progress: false, out, logDestination: collectStream(), stderrLog: false,
    });
    expect(r.exitCode, out.text()).toBe(0);
    expectEveryNewThingNamed(out.text());
  });
});
