/**
 * Issue 27: the embedded sandbox follows the run date. Three runs on three run dates (as `make run --run-date ...`
 * would make them) show movement in the rank views and three more months in the keyword trend view, and the rank
 * history's day and the run's snapshot day agree. Nothing here reads the real date.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { FAST, ROOT, collectStream, isoDay, pipelineFile, queryFile } from '../helpers/project.js';

const DATES = ['2026-09-15', '2026-10-15', '2026-11-15'];
const KEYWORDS = ['running shoes', 'trail running shoes', 'hiking boots', 'rain jacket', 'camping tent'];

const PIPELINE = `
name: days
budget_usd: 1.00
steps:
  - name: ranks
    endpoint: serp.google.organic.task_post
    params: { location_code: 2840, language_code: en, depth: 10 }
    for_each:
      keyword: [${KEYWORDS.map((k) => JSON.stringify(k)).join(', ')}]
    collect: tasks_ready
  - name: volumes
    endpoint: keywords_data.google_ads.search_volume.task_post
    params: { location_code: 2840, language_code: en, keywords: ["running shoes", "hiking boots"] }
    collect: tasks_ready
`;

const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-days-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the embedded sandbox on three run dates', () => {
  test('the rank views move day to day and the keyword trend gains a month a run', async () => {
    const file = pipelineFile(PIPELINE);
    const env: NodeJS.ProcessEnv = { ...process.env, SEO_ETL_WAREHOUSE_DIR: dataDir };
    delete env.SEO_ETL_API_BASE_URL;
    const overrides = { ...FAST, api: { ...FAST.api, base_url: 'sandbox' }, warehouse: { dir: dataDir } };
    let published = '';
    for (const runDate of DATES) {
      const r = await runJob({ root: ROOT, pipelineFile: file, runDate, env, configOverrides: overrides, progress: false, out: collectStream(), logDestination: collectStream() });
      expect(r.exitCode).toBe(0);
      published = r.publishedPath;
    }

    // The day the service took each page is the run's date, and the view says both.
    const days = await queryFile(published, `SELECT DISTINCT date, snapshot_date FROM v_serp_rank_history ORDER BY date`);
    expect(days.map((d) => [isoDay(d.date), isoDay(d.snapshot_date)])).toEqual(DATES.map((d) => [d, d]));

    const moves = await queryFile(published, `SELECT movement, count(*)::INT AS n FROM v_serp_domain_movement WHERE date > DATE '${DATES[0]}' GROUP BY movement`);
    const counts = Object.fromEntries(moves.map((m) => [m.movement, m.n]));
    for (const m of ['up', 'down', 'new', 'lost']) expect(counts[m], `movement ${m}`).toBeGreaterThan(0);
    const firsts = await queryFile(published, `SELECT DISTINCT date FROM v_serp_domain_movement WHERE movement = 'first'`);
    expect(firsts.map((d) => isoDay(d.date))).toEqual([DATES[0]]);

    // Each collection reports the twelve months before its run date: three runs a month apart cover 14 months,
    // newest August, September and October 2026 in turn, each collected by its own run.
    const trend = await queryFile(published, `SELECT month, count(*)::INT AS n FROM v_keyword_trends WHERE keyword = 'running shoes' GROUP BY month ORDER BY month`);
    const months = trend.map((t) => isoDay(t.month));
    expect(months).toHaveLength(14);
    expect(months[0]).toBe('2025-09-01');
    expect(months.slice(-3)).toEqual(['2026-08-01', '2026-09-01', '2026-10-01']);
    const latest = await queryFile(published, `
      SELECT r.run_date, max(make_date(m.year, m.month, 1)) AS newest
      FROM keyword_data__monthly_searches m JOIN keyword_data k ON k._id = m._parent_id JOIN _runs r ON r.run_id = k._run_id
      GROUP BY r.run_date ORDER BY r.run_date`);
    expect(latest.map((l) => [String(l.run_date), isoDay(l.newest)])).toEqual([
      ['2026-09-15', '2026-08-01'], ['2026-10-15', '2026-09-01'], ['2026-11-15', '2026-10-01'],
    ]);
  });
});
