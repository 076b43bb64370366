/**
 * Issue 32, point 6: `location_code: 99999999` passed `plan` and a run. Codes are checked against the service's
 * free location lists (cached in the data folder) before anything is posted: exit 2 naming file:line.
 */
import { afterAll, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile } from '../helpers/project.js';
import { locationListFor } from '../../src/check/locations.js';

const yaml = (code: string) => `name: places
budget_usd: 5
steps:
  - name: volume
    endpoint: keywords_data.google_ads.search_volume.task_post
    params: { language_code: en }
    for_each:
      keywords: [[camping tent]]
      location_code: [2840, ${code}]
    collect: tasks_ready
`;
const BAD = pipelineFile(yaml('99999999'));
const GOOD = pipelineFile(yaml('2826'));

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-places-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dir, SEO_ETL_POSTGRES_URL: '', SEO_ETL_LOG_LEVEL: 'warn',
  SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200' };

test('plan refuses an unknown location code, naming file:line and the list', async () => {
  const r = await runCli(['--sandbox', 'plan', BAD], { env, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/p\.yaml:9:29: location_code: 99999999 is not a location code the service lists for keywords_data\.google_ads\.search_volume\.task_post \(step volume; its free list keywords_data\.google_ads\.locations/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  // Cached for the next command.
  expect(JSON.parse(readFileSync(path.join(dir, 'cache', 'locations', 'keywords_data.google_ads.locations.json'), 'utf8')).codes).toContain(2840);
});

test('run refuses it before anything is posted; a known code runs', async () => {
  const r = await runCli(['--sandbox', 'run', BAD, '--run-date', '2026-11-20', '--no-progress'], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/location_code: 99999999 is not a location code/);
  const journal = path.join(dir, 'sandbox', 'tasks.ndjson');
  expect(existsSync(journal) ? readFileSync(journal, 'utf8').trim() : '').toBe('');
  const ok = await runCli(['--sandbox', 'run', GOOD, '--run-date', '2026-11-20', '--no-progress'], { env, timeoutMs: 60_000 });
  expect(ok.code, ok.stderr).toBe(0);
});

test('each endpoint finds the nearest list above it in the catalog', () => {
  expect(locationListFor('keywords_data.google_ads.search_volume.task_post')).toBe('keywords_data.google_ads.locations');
  expect(locationListFor('serp.events.task_post')).toBe('serp.events.locations');
  expect(locationListFor('content_generation.paraphrase.live')).toBeUndefined();
});
