/**
 * What a run shows (issue 19, point 11): on a terminal a progress bar whose last frame shows the summary's numbers;
 * off a terminal (cron mail, tee) or with --no-progress, human log lines on stderr and no JSON among them (JSON in
 * the log file, or on stderr when asked for); a short summary whose rows are one aligned table sorted by table.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { outcomeLine, rowsTable } from '../../src/run/summary.js';
import { serviceOf } from '../../src/config/service.js';
import { TASK_STATES } from '../../src/ledger/schema.js';
import type { Pipeline } from '../../src/pipeline/index.js';
import { humanMessage } from '../../src/log/log-output.js';
import { NIGHTLY, ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

/** The frames drawn on a fake terminal, without its control sequences. */
const frames = (text: string) => text.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '\n').split('\n').map((l) => l.trim()).filter(Boolean);

test('rows loaded are one aligned table sorted by table, nested tables counted under their parent', () => {
  const lines = rowsTable({ tasks__keywords: 18, serp_results: 2, keyword_data: 64, keyword_data__monthly_searches: 672, tasks: 28, serp_results__items: 60, serp_results__items__links: 32, empty: 0 });
  expect(lines).toEqual([
    'table         rows  rows in its nested tables',
    'keyword_data    64  672 in keyword_data__monthly_searches',
    'serp_results     2   92 in 2 tables',
    'tasks           28   18 in tasks__keywords, one row per answer (per page of a paged task)',
    'total          876  in 7 tables (seo-etl tables lists each)',
  ]);
  expect(rowsTable({})).toEqual(['rows loaded this run: none']);
});

test('--quiet\'s one line: outcome, service, tasks, cost (sandbox money labelled), exit code, and what to do when not 0', () => {
  const byState = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<(typeof TASK_STATES)[number], number>;
  Object.assign(byState, { loaded: 38, failed: 2 });
  const summary = { run: {} as never, tasks: 40, byState, costUsd: 2.27, steps: [], failures: [] };
  const r = { runId: 'nightly-2026-11-24', status: 'completed', resumed: false, exitCode: 1, durationMs: 61_000, summary, notCollected: 0, notPosted: 0 } as unknown as RunJobResult;
  const pipeline = { budgetUsd: 5 } as Pipeline;
  expect(outcomeLine(r, pipeline, serviceOf('https://api.dataforseo.com')))
    .toBe('run nightly-2026-11-24 completed via api.dataforseo.com, tasks 40 (loaded 38, failed 2), $2.2700 of $5, exit 1, 61.0 s: seo-etl status lists what failed');
  expect(outcomeLine({ ...r, exitCode: 0 } as RunJobResult, pipeline, serviceOf('sandbox')))
    .toBe('run nightly-2026-11-24 completed via the embedded sandbox, tasks 40 (loaded 38, failed 2), $2.2700 of $5 (sandbox money: nothing was charged), exit 0, 61.0 s');
});

test('a log record on a human line: the message, then its fields; big objects by their size', () => {
  expect(humanMessage({ level: 40, time: 1, pid: 1, hostname: 'h', name: 'seo-etl', run_id: 'r', msg: 'POST without a clear answer', step: 'products', tasks: 30 }))
    .toBe('POST without a clear answer  step=products  tasks=30');
  expect(humanMessage({ msg: 'run finished', by_state: { loaded: 25, failed: 0 }, rows: Object.fromEntries(Array.from({ length: 46 }, (_, i) => [`t${i}`, i + 1])) }))
    .toBe('run finished  by_state=loaded:25  rows=(46 entries)');
});

describe('a run on a terminal', () => {
  let p: TestProject;
  let r: RunJobResult;
  const out = collectStream();
  const chunks: string[] = [];
  beforeAll(async () => {
    p = await startProject();
    const terminal = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { isTTY: boolean; columns: number };
    terminal.isTTY = true;
    terminal.columns = 200;
    r = await runJob({ root: ROOT, pipelineFile: NIGHTLY, env: p.env, configOverrides: p.overrides, out, terminal: terminal as unknown as NodeJS.WriteStream, stderrLog: false });
  });
  afterAll(async () => p?.close());

  test('the last frame and the summary give the same tasks, states and cost', () => {
    const s = r.summary!;
    const last = frames(chunks.join('')).at(-1)!;
    expect(last).toMatch(new RegExp(`^\\S+ ${s.tasks}/${s.tasks} done, ${s.byState.failed} failed \\| posted ${s.tasks} \\| \\$${s.costUsd.toFixed(4)} sandbox \\| .*, ETA `));
    const text = out.text();
    expect(text).toContain(`tasks: ${s.tasks} (loaded ${s.byState.loaded})`);
    expect(text).toContain(`cost: $${s.costUsd.toFixed(4)}`);
    // No other count of tasks anywhere in the summary ("tasks: 21" beside "tasks 24", the table named tasks, was one).
    expect([...text.matchAll(/tasks:? (\d+)/g)].map((m) => Number(m[1]))).toEqual([s.tasks]);
    expect(text).toMatch(/^tasks +\d+ .*one row per answer \(per page of a paged task\)$/m);
  });

  test('the summary is short: no line over 100 characters, rows sorted by table', () => {
    const lines = out.text().trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    const table = lines.slice(lines.findIndex((l) => l.startsWith('table ')) + 1, lines.findIndex((l) => l.startsWith('total ')));
    const names = table.map((l) => l.split(/\s+/)[0]);
    expect(names.length).toBeGreaterThan(5);
    expect(names).toEqual([...names].sort());
  });
});

describe('off a terminal', () => {
  let p: TestProject;
  const dataDirs: string[] = [];
  beforeAll(async () => { p = await startProject(); });
  afterAll(async () => { await p?.close(); for (const d of dataDirs) rmSync(d, { recursive: true, force: true }); });
  const fresh = () => { const d = mkdtempSync(path.join(tmpdir(), 'seo-etl-term-')); dataDirs.push(d); return d; };
  /** A list call and one posted task: enough to see where a run's log lines go, in seconds. */
  const tiny = () => {
    const file = path.join(fresh(), 'tiny.yaml');
    writeFileSync(file, [
      'name: tiny', 'budget_usd: 1', 'steps:', '  - name: serp_endpoints', '    endpoint: serp.endpoints', '  - name: volumes',
      '    endpoint: keywords_data.google_ads.search_volume.task_post', '    params: { location_code: 2840, language_code: en, keywords: [shoes, boots] }', '    collect: tasks_ready', '',
    ].join('\n'));
    return file;
  };

  test('--no-progress (or a pipe): human lines on stderr, the summary alone on stdout, JSON in the log file', async () => {
    const dataDir = fresh();
    const c = await runCli(['run', tiny(), '--no-progress'], { env: { ...p.env, SEO_ETL_WAREHOUSE_DIR: dataDir }, timeoutMs: 60_000 });
    expect(c.code, c.stderr.slice(-2000)).toBe(0);
    const err = c.stderr.trim().split('\n');
    expect(err.length).toBeGreaterThan(1);
    for (const l of err) expect(l).toMatch(/^\[\d\d:\d\d:\d\d\] (INFO|WARN|ERROR): /);
    expect(c.stderr).toMatch(/INFO: starting run {2}pipeline=tiny/);
    expect(c.stdout).not.toMatch(/^\{/m);
    expect(c.stdout).toMatch(/^run tiny-\d{4}-\d{2}-\d{2} completed in [\d.]+ s$/m);
    const log = readFileSync(path.join(dataDir, 'logs', readdirSync(path.join(dataDir, 'logs'))[0]), 'utf8').trim().split('\n');
    expect(JSON.parse(log[0])).toMatchObject({ msg: 'starting run', pipeline: 'tiny' });
  });

  test('--log-format json puts the JSON lines on stderr; --quiet leaves warnings only and one outcome line', async () => {
    const json = await runCli(['run', tiny(), '--log-format', 'json'], { env: { ...p.env, SEO_ETL_WAREHOUSE_DIR: fresh() }, timeoutMs: 60_000 });
    expect(json.code, json.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(json.stderr.trim().split('\n')[0])).toMatchObject({ msg: 'starting run' });
    const quiet = await runCli(['run', tiny(), '--quiet', '--run-date', '2026-01-03'], { env: { ...p.env, SEO_ETL_WAREHOUSE_DIR: fresh() }, timeoutMs: 60_000 });
    expect(quiet.code, quiet.stderr.slice(-2000)).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^run tiny-2026-01-03 completed via the sandbox at http:\/\/127\.0\.0\.1:\d+, tasks 2 \(loaded 2\), \$[\d.]+ of \$1 \(sandbox money: nothing was charged\), exit 0, [\d.]+ s$/)]);
    const bad = await runCli(['run', tiny(), '--log-format', 'xml'], { env: { ...p.env, SEO_ETL_WAREHOUSE_DIR: fresh() }, timeoutMs: 60_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--log-format: must be human or json, got 'xml'");
  });
});
