/**
 * Every request rule of the ads-based keyword API is enforced before anything is spent: `seo-etl plan` of a
 * pipeline breaking them exits 2 naming file:line:column, the field and the rule, and `seo-etl run` of it
 * posts nothing to the service.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, childEnv, closeProject, runCli, type ChildResult } from '../reliability/helpers.js';

const seeds = (n: number) => `[${Array.from({ length: n }, (_, i) => `seed ${i}`).join(', ')}]`;
const long = 'x'.repeat(81);
const eleven = 'one two three four five six seven eight nine ten eleven';
const inTwoYears = `${new Date().getUTCFullYear() + 2}-01-15`;

/** Steps, each breaking rules; `expect` are [line, field, rule] the plan must report (lines of the file). */
const STEPS: { yaml: string; expect: [number, string, string][] }[] = [];
const HEAD = 'name: kwrules\nbudget_usd: 5\nsteps:\n';
let text = HEAD;
/** A step; a list under for_each is cut into tasks the size the endpoint takes, one under params must fit. */
function step(endpoint: string, params: string, forEach: string, expect: (line: number) => [number, string, string][]): void {
  const first = text.split('\n').length; // line of `- name:`
  const yaml = `  - name: s${STEPS.length}\n    endpoint: ${endpoint}\n    params: ${params}\n    for_each:\n      ${forEach}\n`;
  STEPS.push({ yaml, expect: expect(first) });
  text += yaml;
}
// search_volume: 1000 keywords at most, 80 characters and 10 words each; a past window of 4 years; its sort orders.
step('keywords_data.google_ads.search_volume.task_post', `{ date_from: "2019-01-01", date_to: "2099-01-01", sort_by: cpc, keywords: ${seeds(1001)} }`, 'location_code: [2840]', (l) => [
  [l + 2, 'date_from', 'must be at most 4 years ago'], [l + 2, 'date_to', 'must be yesterday or earlier'],
  [l + 2, 'sort_by', 'must be one of relevance, search_volume, competition_index, low_top_of_page_bid, high_top_of_page_bid'],
  [l + 2, 'keywords', 'must hold at most 1000 items'],
]);
step('keywords_data.google_ads.search_volume.task_post', '{ location_coordinate: "40.71,-74.0,200", postback_data: advanced, postback_url: "http://x.example/p" }', `keywords: [ok, ${long}, ${eleven}]`, (l) => [
  [l + 2, 'location_coordinate', 'must be "latitude,longitude"'], [l + 2, 'postback_data', 'is not a parameter of keywords_data.google_ads.search_volume.task_post'],
  [l + 4, 'keywords', 'item must be at most 80 characters'], [l + 4, 'keywords', 'item must be at most 10 words'],
]);
// keywords_for_keywords: 20 seeds at most.
step('keywords_data.google_ads.keywords_for_keywords.task_post', `{ keywords: ${seeds(21)} }`, 'language_code: [en]', (l) => [[l + 2, 'keywords', 'must hold at most 20 items']]);
// keywords_for_site: target required, target_type site or page.
step('keywords_data.google_ads.keywords_for_site.task_post', '{ target_type: domain, location_code: 2840 }', 'language_code: [en]', (l) => [
  [l + 2, 'target', 'is required'], [l + 2, 'target_type', 'must be one of site, page'],
]);
// ad_traffic_by_keywords: bid and match required, match exact|broad|phrase, a future window or date_interval, its sort orders.
step('keywords_data.google_ads.ad_traffic_by_keywords.task_post', '{ date_to: "2020-01-01", sort_by: search_volume, date_interval: next_year }', 'keywords: [shoes]', (l) => [
  [l + 2, 'bid', 'is required'], [l + 2, 'match', 'is required'], [l + 2, 'date_from', 'is required with date_to'],
  [l + 2, 'date_interval', 'must be one of next_week, next_month, next_quarter'],
  [l + 2, 'sort_by', 'must be one of relevance, impressions, ctr, average_cpc, cost, clicks'],
]);
step('keywords_data.google_ads.ad_traffic_by_keywords.live', `{ bid: 2, match: fuzzy, date_from: "2020-01-01", date_to: "${inTwoYears}" }`, 'keywords: [shoes]', (l) => [
  [l + 2, 'match', 'must be one of exact, broad, phrase'], [l + 2, 'date_from', 'must be tomorrow or later'], [l + 2, 'date_to', 'must be at most a year from today'],
]);

let p: TestProject;
let dir: string;
let file: string;
let plan: ChildResult;
let run: ChildResult;
beforeAll(async () => {
  p = await startProject(SANDBOX_EXTRA);
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-kwrules-'));
  file = path.join(dir, 'kwrules.yaml');
  writeFileSync(file, text);
  [plan, run] = await Promise.all([runCli(['plan', file], { env: childEnv(p) }), runCli(['run', file, '--no-progress'], { env: childEnv(p) })]);
});
afterAll(async () => {
  await closeProject(p);
  rmSync(dir, { recursive: true, force: true });
});

describe('ads keyword API rules in a pipeline', () => {
  test('plan exits 2 and names file:line:column, the field and the rule of each', () => {
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).not.toMatch(/\n\s+at /);
    const lines = plan.stderr.split('\n');
    STEPS.forEach((s, i) => {
      for (const [line, field, rule] of s.expect) {
        const hit = lines.find((l) => l.startsWith(`${file}:${line}:`) && l.includes(`steps[${i}].`) && l.includes(`.${field}: `) && l.includes(rule));
        expect(hit, `step ${i}: ${field} ${rule} at line ${line}\n${plan.stderr}`).toBeTruthy();
      }
    });
  });

  test('run refuses the same file before any call: nothing posted, nothing billed', () => {
    expect(run.code, run.stderr).toBe(2);
    expect(p.sandbox.controls.calls()).toEqual([]);
    expect(p.sandbox.controls.postings()).toEqual([]);
    expect(p.sandbox.controls.billed()).toBe(0);
  });
});
