/**
 * Without an account: a run against the embedded sandbox is killed mid-night and `seo-etl resume` finishes it. The
 * embedded sandbox keeps its tasks in the data folder, so the resumed run collects what the killed one posted
 * (it used to find none of them: 40401 for every task, and the run still counted their cost) and posts nothing twice.
 */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PAUSE_MARKER } from '../../src/run/test-pause.js';
import { CRASH_PIPELINE, RUN_DATE, runCli, withDb } from './helpers.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-embedded-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const env: NodeJS.ProcessEnv = {
  ...process.env,
  SEO_ETL_API_BASE_URL: 'sandbox',
  SEO_ETL_WAREHOUSE_DIR: dataDir,
  SEO_ETL_COLLECT_POLL_MIN_MS: '20',
  SEO_ETL_COLLECT_POLL_MAX_MS: '200',
  SEO_ETL_COLLECT_STRAGGLER_AFTER_MS: '500',
  SEO_ETL_COLLECT_AMBIGUOUS_GRACE_MS: '500',
  SEO_ETL_API_TASKS_PER_POST: '3',
  SEO_ETL_LOG_LEVEL: 'info',
};

test('kill during a load, then resume: every task collected, none posted twice', async () => {
  const killed = await runCli(['run', CRASH_PIPELINE, '--run-date', RUN_DATE, '--no-progress'], {
    env: { ...env, SEO_ETL_TEST_PAUSE_AT: 'load' }, killOnMarker: `${PAUSE_MARKER} load`, timeoutMs: 120_000,
  });
  expect(killed.killed, killed.stderr.slice(-3000)).toBe(true);

  const resumed = await runCli(['resume', '--no-progress'], { env, timeoutMs: 180_000 });
  expect(resumed.code, resumed.stderr.slice(-3000)).toBe(0);

  const journal = readFileSync(path.join(dataDir, 'sandbox', 'tasks.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const tags = journal.filter((e) => e.e === 'add').map((e) => e.task.tag as string);
  expect(tags.length).toBeGreaterThan(0);
  expect(new Set(tags).size, 'a task posted twice').toBe(tags.length);

  await withDb(path.join(dataDir, 'warehouse.duckdb'), async (query) => {
    const states = await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL ORDER BY state`);
    expect(states).toEqual([{ state: 'loaded', n: states[0].n }]);
    const posted = await query(`SELECT count(*)::INT AS n FROM _tasks WHERE service_id IS NOT NULL AND endpoint_id LIKE '%task_post'`);
    expect(posted[0].n).toBe(tags.length);
  });
}, 330_000);
