/**
 * Issue 47, point 5: an agency's pipeline of Labs (ranked keywords, competitors) and Backlinks (summary) steps over
 * three fixed sandbox days. Every family's rows count in v_run_rows and the report's rows chart, and the report has
 * a section per family that declares one, its charts drawn from the family's history views (what they say, day by
 * day), rendered offline in headless Chromium with every data point. Screenshots in .tmp/test-output/report/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { queryFile } from '../helpers/project.js';
import { startHistory, type History } from './helpers.js';
import { openReport, SCREENSHOTS, type Rendered } from './browser.js';
import type { RunJobResult } from '../../src/run/job.js';
import { FAMILIES } from '../../src/families/index.js';

const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20'];
const CLIENTS = ['trailhub.com', 'peakgear.com'];
const PIPELINE = `name: agency
budget_usd: 1.00
steps:
  - name: ranked
    endpoint: dataforseo_labs.google.ranked_keywords.live
    params: { location_code: 2840, language_code: en, limit: 10 }
    for_each:
      target: [${CLIENTS.join(', ')}]
  - name: competitors
    endpoint: dataforseo_labs.google.competitors_domain.live
    params: { target: ${CLIENTS[0]}, location_code: 2840, language_code: en, limit: 10 }
  - name: backlinks
    endpoint: backlinks.summary.live
    for_each:
      target: [${CLIENTS.join(', ')}]
`;

let dir: string;
let h: History;
const runs: RunJobResult[] = [];
let html: string;
let page: Rendered;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-family-report-'));
  const file = path.join(dir, 'agency.yaml');
  writeFileSync(file, PIPELINE);
  h = await startHistory(file);
  for (const day of DAYS) runs.push(await h.run(day));
  const report = path.join(h.dataDir, 'reports', `agency-${DAYS[2]}.html`);
  html = readFileSync(report, 'utf8');
  mkdirSync(SCREENSHOTS, { recursive: true });
  page = await openReport(report, { screenshot: path.join(SCREENSHOTS, 'families.png'), part: { selector: 'section[data-family]', path: path.join(SCREENSHOTS, 'families-sections.png') } });
});

afterAll(async () => {
  await h?.close();
  if (h) rmSync(h.dataDir, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a run of Labs and Backlinks steps', () => {
  test('every run completes', () => {
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0]);
  });

  test('v_run_rows counts the generated families\' tables, as many rows as each holds of the run', async () => {
    const published = runs[2].publishedPath;
    const runId = runs[2].runId;
    const counted = new Map((await queryFile(published, `SELECT table_name, rows FROM v_run_rows WHERE run_id = '${runId}'`)).map((r) => [String(r.table_name), Number(r.rows)]));
    for (const t of ['labs_ranked_keywords', 'labs_ranked_keywords__items', 'labs_ranked_keywords__metrics', 'labs_competitors_domain', 'labs_competitors_domain__items', 'backlinks_summary']) {
      const [{ n }] = await queryFile(published, `SELECT count(*)::INT AS n FROM ${t} WHERE _run_id = '${runId}'`);
      expect(Number(n), t).toBeGreaterThan(0);
      expect(counted.get(t), t).toBe(Number(n));
    }
    // The report's rows chart has them, under their parent tables.
    const rows = page.charts.find((c) => c.id === 'rows-per-table');
    expect(rows?.declared).toBeGreaterThanOrEqual(3);
    for (const parent of ['labs_ranked_keywords', 'labs_competitors_domain', 'backlinks_summary']) expect(page.text).toContain(parent);
  });

  test('a section per family that declares one, in the registry\'s order, each chart drawn with every point in Chromium', () => {
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    const declaring = FAMILIES.filter((f) => f.report).map((f) => f.name);
    expect(declaring).toEqual(['backlinks', 'dataforseo_labs']);
    const sections = [...html.matchAll(/<section data-family="([^"]+)"><h2>([^<]+)<\/h2>/g)].map((m) => [m[1], m[2]]);
    expect(sections).toEqual([['backlinks', 'Backlinks'], ['dataforseo_labs', 'DataForSEO Labs']]);
    const ids = page.charts.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['backlinks-backlinks-0', 'backlinks-referring-domains-0', 'dataforseo_labs-ranked-keywords-0', 'dataforseo_labs-etv-0', 'dataforseo_labs-competitors-0']));
    for (const c of page.charts) {
      expect(c.drawn, c.id).toBe(c.declared);
      expect(c.width, c.id).toBeGreaterThan(200);
    }
    // Two clients over three days; five competitors of the first client, each on the days it was among them.
    for (const id of ['backlinks-backlinks-0', 'backlinks-referring-domains-0', 'dataforseo_labs-ranked-keywords-0', 'dataforseo_labs-etv-0']) {
      expect(page.charts.find((c) => c.id === id)!.declared, id).toBe(CLIENTS.length * DAYS.length);
    }
    const competitors = page.charts.find((c) => c.id === 'dataforseo_labs-competitors-0')!;
    expect(competitors.declared).toBeGreaterThanOrEqual(5 * 2);
    expect(competitors.declared).toBeLessThanOrEqual(5 * DAYS.length);
  });

  test('the charts say what the history views say, and the sandbox\'s figures move slowly', async () => {
    const published = runs[2].publishedPath;
    const history = await queryFile(published, `SELECT CAST(snapshot_date AS VARCHAR) AS d, target, backlinks, referring_domains, backlinks_change FROM v_backlinks_summary_history ORDER BY target, d`);
    expect(history.map((r) => `${r.target} ${r.d}`)).toEqual(['peakgear.com', 'trailhub.com'].flatMap((t) => DAYS.map((d) => `${t} ${d}`)));
    for (const r of history) {
      // The figure is in the chart's SVG (the axis and the drawn points come from these numbers): the report holds them.
      expect(Number(r.referring_domains)).toBeLessThanOrEqual(Number(r.backlinks));
      if (r.backlinks_change !== null) expect(Math.abs(Number(r.backlinks_change)) / Number(r.backlinks)).toBeLessThanOrEqual(0.031);
    }
    const labs = await queryFile(published, `SELECT domain, count(*)::INT AS days, min(ranked_keywords) AS lo, max(ranked_keywords) AS hi FROM v_labs_ranked_keywords_history GROUP BY domain ORDER BY domain`);
    expect(labs.map((r) => [r.domain, r.days])).toEqual([['peakgear.com', 3], ['trailhub.com', 3]]);
    for (const r of labs) expect(Number(r.hi) / Number(r.lo)).toBeLessThan(1.07);
    const rivals = await queryFile(published, `SELECT DISTINCT domain, competitor FROM v_labs_competitors_history`);
    expect(rivals.length).toBeGreaterThanOrEqual(5);
    expect(rivals.every((r) => r.domain === CLIENTS[0] && r.competitor !== CLIENTS[0])).toBe(true);
  });
});
