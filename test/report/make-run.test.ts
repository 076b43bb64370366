/**
 * Acceptance: a `make run`-style run (the CLI, the nightly pipeline, the embedded sandbox by --sandbox) in a fresh
 * copy of the project leaves data/sandbox/reports/latest.html, which opens offline in headless Chromium with no
 * error and every chart drawn; `seo-etl report` writes it again on demand. The run date is fixed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/project.js';
import { CLI } from '../reliability/helpers.js';
import { openReport, SCREENSHOTS, type Rendered } from './browser.js';

const RUN_DATE = '2026-11-20';
let project: string;
let reports: string;
let run: { code: number; stdout: string; stderr: string };
let page: Rendered;

/** The environment without any SEO_ETL_* setting: the project's own configuration decides, as on a fresh clone. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SEO_ETL_')));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, '-C', project, ...args], { cwd: project, env: cleanEnv(), timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'seo-etl-make-run-'));
  for (const dir of ['config', 'pipelines', path.join('data', 'inputs')]) cpSync(path.join(ROOT, dir), path.join(project, dir), { recursive: true });
  rmSync(path.join(project, 'config', 'local.yaml'), { force: true });
  run = await cli(['run', 'pipelines/nightly.yaml', '--sandbox', '--no-progress', '--run-date', RUN_DATE]);
  reports = path.join(project, 'data', 'sandbox', 'reports');
  mkdirSync(SCREENSHOTS, { recursive: true });
  if (existsSync(path.join(reports, 'latest.html'))) page = await openReport(path.join(reports, 'latest.html'), { screenshot: path.join(SCREENSHOTS, 'nightly.png') });
});
afterAll(() => { if (project) rmSync(project, { recursive: true, force: true }); });

describe('make run, then the report', () => {
  test('the run completes and its summary ends with the report under data/sandbox/reports', () => {
    expect(run.code, run.stderr).toBe(0);
    const file = path.join(reports, `nightly-${RUN_DATE}.html`);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`report: ${file}`);
    expect(readFileSync(path.join(reports, 'latest.html'), 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  test('latest.html renders offline in headless Chromium: no error, every chart with its data points', () => {
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    const ids = page.charts.map((c) => c.id);
    // The nightly has every family: the night's charts, its SERP step's ranks and features, keyword volumes, and the
    // sections of the families that declare one (Labs: ranked keywords, traffic, competitors; Backlinks: the summary).
    expect(ids).toEqual(expect.arrayContaining(['cost-per-step', 'tasks-by-state', 'calls-per-minute', 'rows-per-table', 'rank-0', 'rank-1', 'features-0', 'keyword-trends',
      'dataforseo_labs-ranked-keywords-0', 'dataforseo_labs-etv-0', 'dataforseo_labs-competitors-0', 'backlinks-backlinks-0', 'backlinks-referring-domains-0']));
    for (const table of ['labs_ranked_keywords', 'labs_competitors_domain', 'backlinks_summary', 'backlinks_referring_domains']) expect(page.text).toContain(table);
    for (const c of page.charts) {
      expect(c.declared, c.id).toBeGreaterThan(0);
      expect(c.drawn, c.id).toBe(c.declared);
      expect(c.width, c.id).toBeGreaterThan(200);
    }
    expect(page.text).toContain(`nightly ${RUN_DATE}`);
    expect(page.text).toContain('the embedded sandbox');
  });

  test('seo-etl report writes the latest run\'s report again; an unknown run is bad input', async () => {
    const again = await cli(['report', '--days', '7']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`report: ${path.join(reports, `nightly-${RUN_DATE}.html`)}\nlatest: ${path.join(reports, 'latest.html')}\n`);
    expect(readFileSync(path.join(reports, 'latest.html'), 'utf8')).toContain('last 7 days');
    const unknown = await cli(['report', '--run', 'nightly-1999-01-01']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^seo-etl: no run nightly-1999-01-01 in the warehouse .*seo-etl status lists the runs\n$/);
  });
});
