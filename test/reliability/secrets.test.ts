/**
 * Callback secrets stay out of every table (issue 22, point 4). The receiver's addresses carry the run's secret;
 * the service echoes them in each task's `data` and keeps them in its log of failed deliveries, which
 * `domain_analytics.errors` loads into `domain_errors` (after a crash, the killed attempt's failed callbacks are
 * there too). Every text column of the warehouse, the ledger included, is searched for a secret.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import path from 'node:path';
import { startProject, type TestProject } from '../helpers/project.js';
import { ROOT } from '../helpers/project.js';
import { SANDBOX_EXTRA, closeProject, runInProcess, withDb } from './helpers.js';

const PIPELINES = path.join(ROOT, 'test', 'reliability', 'pipelines');
/** A receiver address with something other than the redaction mark where the secret goes. */
const SECRET = String.raw`/cb/[^/<][^/]*/(pingback|postback)`;

let p: TestProject;
beforeAll(async () => {
  p = await startProject(SANDBOX_EXTRA);
});
afterAll(() => closeProject(p));

test('domain_errors, tasks and the ledger hold no callback secret; the delivery log keeps the address, redacted', async () => {
  // Every postback fails (the public address refuses connections), so the service logs each with its address;
  // the run collects the tasks by id.
  const first = await runInProcess(p, { webhook: { public_url: 'http://127.0.0.1:9' } }, path.join(PIPELINES, 'postback.yaml'));
  expect(first.exitCode, first.log.slice(-2000)).toBe(0);
  await p.sandbox.controls.settle();
  const second = await runInProcess(p, {}, path.join(PIPELINES, 'errors.yaml'));
  expect(second.exitCode, second.log.slice(-2000)).toBe(0);

  await withDb(path.join(p.dataDir, 'warehouse.duckdb'), async (query) => {
    const logged = await query(`SELECT http_url, error_message FROM domain_errors WHERE "function" = 'postback_url'`);
    expect(logged.length, 'the failed deliveries are in the service log').toBeGreaterThanOrEqual(4);
    for (const r of logged) expect(String(r.http_url)).toMatch(/\/cb\/<secret>\/postback\?id=/);
    const cols = await query(`SELECT table_name AS t, column_name AS c FROM information_schema.columns
      WHERE table_schema = 'main' AND (data_type = 'VARCHAR' OR data_type = 'JSON')
        AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')`);
    expect(cols.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const { t, c } of cols) {
      const [{ n }] = await query(`SELECT count(*)::INT AS n FROM "${t}" WHERE regexp_matches(CAST("${c}" AS VARCHAR), '${SECRET}')`);
      if (Number(n) > 0) found.push(`${t}.${c}: ${n} rows`);
    }
    expect(found, 'columns holding a callback secret').toEqual([]);
    // The echoed addresses are still there, redacted (the ledger's planned params and the tasks' data).
    const [{ n }] = await query(`SELECT count(*)::INT AS n FROM tasks WHERE postback_url LIKE '%/cb/<secret>/postback%'`);
    expect(n).toBe(4);
  });
});
