/**
 * BENCH_QUICK=1 mode, so the benchmark code cannot rot: every figure of the issue comes out with a finite value,
 * a unit, a goal and how it was measured, in the printed table and in the results file. Goals are not asserted:
 * the benchmark reports, it does not judge (and quick sizes run all sections at once on a shared machine).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBench, type BenchResult } from '../../src/bench/command.js';
import { REQUIRED_FIGURES, figureProblems } from '../../src/bench/figures.js';
import { ROOT, collectStream } from '../helpers/project.js';

let dir: string;
let r: BenchResult;
let printed: ReturnType<typeof collectStream>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-bench-test-'));
  printed = collectStream();
  r = await runBench({ root: ROOT, quick: true, resultsFile: path.join(dir, 'results.json'), out: printed });
  // A guard against a hang, not a figure: the suite runs files side by side, and on 2 shared cores the sections
  // (a minute and a half alone, with the families' 12 whole runs) took more than 5 minutes at a load average of 20.
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('seo-etl bench, quick mode', () => {
  test('every section ran', () => {
    expect(r.errors).toEqual([]);
  });

  test.each(REQUIRED_FIGURES.map((n) => [n]))('%s has a finite value, a unit, a goal and how', (name) => {
    expect(figureProblems(name, r.figures[name])).toEqual([]);
  });

  test('every figure, the informational ones too, is well formed', () => {
    const problems = Object.entries(r.figures).flatMap(([n, f]) => figureProblems(n, f));
    expect(problems).toEqual([]);
    expect(Object.keys(r.figures).length).toBeGreaterThan(REQUIRED_FIGURES.length);
  });

  test('the results file holds the same figures, as { name: { value, unit, goal, how } }', () => {
    const file = JSON.parse(readFileSync(r.resultsFile, 'utf8'));
    expect(file).toEqual(r.figures);
    for (const f of Object.values(file) as Record<string, unknown>[]) expect(Object.keys(f).sort()).toEqual(['goal', 'how', 'unit', 'value']);
  });

  test('the printed table has a row per figure with its value and unit', () => {
    const lines = printed.text().split('\n');
    for (const [name, f] of Object.entries(r.figures)) {
      const row = lines.find((l) => l.startsWith(`${name} `));
      expect(row, name).toBeDefined();
      expect(row).toContain(f.unit);
    }
    expect(printed.text()).toContain(`machine: ${r.machine}`);
  });

  test('API calls are counted from the sandbox: the POSTs show in postback runs, a task_get per task in polling runs', () => {
    // Definitional bounds, not goals: a postback run still posts, and a polled task cannot be fetched in less than one call.
    expect(r.figures.calls_per_task_postback.value).toBeGreaterThan(0);
    expect(r.figures.calls_per_task_polling.value).toBeGreaterThanOrEqual(1);
  });

  test('the first family and the load say what a CPU profile measured as their limit, and the breakdown table is printed', () => {
    const limit = /^limit: while results were loaded \([\d.]+ s of the profiled [\d.]+ s\) main thread busy \d+% of [\d.]+ s: .*; the live rate would need [\d,]+ rows\/s, the job loaded [\d,]+ rows\/s/;
    expect(r.figures.headroom_keywords_legacy.how).toMatch(limit);
    expect(r.figures.load_vs_duckdb.how).toMatch(/^limit: while results were loaded .* main thread busy \d+%.*; the goal needs [\d,]+ rows\/s .*, ours loaded [\d,]+ rows\/s/);
    expect(printed.text()).toMatch(/\| keywords_legacy \(1 tasks\), while loading \| [\d.]+ \| \d+% \|/);
  });
});
