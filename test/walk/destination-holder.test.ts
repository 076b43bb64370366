/**
 * Issue 32, point 1: a destination records which data folder and which kind of service it holds, and refuses
 * another (exit 2, before anything is posted or sent) unless --take-over-destinations says so. Each run is the
 * built CLI against the embedded sandbox, as `make run` is, with SEO_ETL_POSTGRES_URL exported.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { pipelineFile } from '../helpers/project.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { holderOf, holderRefusal } from '../../src/publish/holder.js';

const PIPELINE = pipelineFile(`name: holder
budget_usd: 1
steps:
  - name: ideas
    endpoint: keywords_for_keywords.task_post
    params: { location_code: 2840, language_code: en }
    for_each:
      keywords: [[camping tent], [sleeping bag]]
    collect: tasks_ready
`);

let pgs: TestPostgres;
const dirs: string[] = [];
const folder = () => { const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-holder-')); dirs.push(d); return d; };
const run = (dataDir: string, ...extra: string[]) => runCli([...extra, 'run', PIPELINE, '--run-date', '2026-11-20', '--no-progress', '--sandbox'], {
  timeoutMs: 90_000,
  env: {
    ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dataDir, SEO_ETL_POSTGRES_URL: pgs.url,
    SEO_ETL_SANDBOX_COMPLETION_DELAY_MS: '30', SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200', SEO_ETL_LOG_LEVEL: 'warn',
  },
});
const runsInPostgres = async () => (await pgs.query<{ run_id: string }>('SELECT run_id FROM seo_etl._runs ORDER BY run_id')).map((r) => r.run_id);
const heldBy = async () => JSON.parse((await pgs.query<{ fingerprint: string }>(`SELECT fingerprint FROM seo_etl._publish_state WHERE object = '(holder)'`))[0].fingerprint);

beforeAll(async () => { pgs = await startPostgres(); });
afterAll(() => { pgs?.close(); for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

test('a second data folder is refused before anything is posted, and takes over only on purpose', async () => {
  const a = folder();
  const first = await run(a);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toMatch(/PostgreSQL: published to/);
  expect(await heldBy()).toMatchObject({ dataDir: realpathSync(a), service: 'sandbox' });
  const before = await runsInPostgres();
  expect(before.length).toBe(1);

  const b = folder();
  const second = await run(b);
  expect(second.code, second.stderr).toBe(2);
  expect(second.stderr).toContain(`holds sandbox data from ${realpathSync(a)}`);
  expect(second.stderr).toContain('--take-over-destinations');
  expect(second.stderr).not.toMatch(/\n\s+at /);
  // Nothing posted (the embedded sandbox journals every task it is given) and nothing sent.
  const journal = path.join(b, 'sandbox', 'tasks.ndjson');
  expect(existsSync(journal) ? readFileSync(journal, 'utf8').trim() : '').toBe('');
  expect(await runsInPostgres()).toEqual(before);
  expect(await heldBy()).toMatchObject({ dataDir: realpathSync(a) });

  const third = await run(b, '--take-over-destinations');
  expect(third.code, third.stderr).toBe(0);
  expect(await heldBy()).toMatchObject({ dataDir: realpathSync(b), service: 'sandbox' });

  // The first folder is now the other one: refused in its turn.
  const again = await run(a);
  expect(again.code, again.stderr).toBe(2);
  expect(again.stderr).toContain(`holds sandbox data from ${realpathSync(b)}`);
});

test('the same folder with the other kind of service is refused too', () => {
  const live = holderOf('/srv/seo/data', 'live', 'box');
  expect(holderRefusal(live, live, 'schema s')).toBeUndefined();
  expect(holderRefusal(undefined, live, 'schema s')).toBeUndefined();
  expect(holderRefusal(live, { ...live, service: 'sandbox' }, 'schema s')).toMatch(/schema s holds the live service's data from \/srv\/seo\/data on box; this run would publish sandbox data/);
  expect(holderRefusal(live, { ...live, host: 'other' }, 'schema s')).toMatch(/--take-over-destinations/);
});
