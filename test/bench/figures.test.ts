import { describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { figureProblems, formatTable, meetsGoal } from '../../src/bench/figures.js';
import { pollingFloor, writePipeline } from '../../src/bench/jobs.js';
import { loadConfig } from '../../src/config/index.js';
import { loadPipeline, planPipeline } from '../../src/pipeline/index.js';
import { ROOT } from '../helpers/project.js';

describe('goals', () => {
  test.each([
    [1.3, '<= 1.25', false],
    [1.25, '<= 1.25', true],
    [999, '>= 1,000', false],
    [1000, '>= 1,000', true],
    [0.98, '>= 0.98', true],
    [511.9, '< 512', true],
    [512, '< 512', false],
    [0, '= 0', true],
    [2, '= 0', false],
    [40, '>= 33 (the live limit, 2000/min)', true],
  ])('%s against "%s" is %s', (value, goal, met) => {
    expect(meetsGoal(value, goal)).toBe(met);
  });

  test('goals in words are neither met nor missed', () => {
    expect(meetsGoal(9.7, 'close to 10 (linear)')).toBeUndefined();
    expect(meetsGoal(5, 'informational')).toBeUndefined();
  });
});

describe('figures', () => {
  test('a figure needs a finite value and non-empty unit, goal and how', () => {
    expect(figureProblems('x', { value: 1, unit: 'ms', goal: '< 2', how: 'timed' })).toEqual([]);
    expect(figureProblems('x', undefined)).toEqual(['x: missing']);
    expect(figureProblems('x', { value: Number.NaN, unit: 'ms', goal: '< 2', how: 'timed' })).toEqual(['x.value: must be a finite number (got NaN)']);
    expect(figureProblems('x', { value: 1, unit: ' ', goal: '< 2' })).toEqual(['x.unit: must be non-empty text', 'x.how: must be non-empty text']);
  });

  test('the table lines up its columns and marks each goal met or not', () => {
    const t = formatTable({
      limiter_utilization: { value: 0.97, unit: 'ratio', goal: '>= 0.98', how: 'h' },
      rows_per_s: { value: 123456, unit: 'rows/s', goal: 'informational', how: 'h' },
    }).split('\n');
    expect(t[0]).toMatch(/^figure\s+value\s+unit\s+goal\s+met$/);
    expect(t[2]).toMatch(/^limiter_utilization\s+0\.97\s+ratio\s+>= 0\.98\s+NO$/);
    expect(t[3]).toMatch(/^rows_per_s\s+123,456\s+rows\/s\s+informational$/);
    // Values are right-aligned: both end in the same column.
    expect(t[2].indexOf('0.97') + 4).toBe(t[3].indexOf('123,456') + 7);
  });
});

describe('the committed results', () => {
  // Issue 30: each figure that misses its goal names what limits it, in bench/results.json as `make bench` wrote it.
  test('every figure of bench/results.json that misses its goal starts its how with its limit', () => {
    const results = JSON.parse(readFileSync(path.join(ROOT, 'bench', 'results.json'), 'utf8')) as Record<string, { value: number; goal: string; how: string }>;
    const missed = Object.entries(results).filter(([, f]) => meetsGoal(f.value, f.goal) === false);
    expect(missed.length).toBeGreaterThan(0);
    expect(missed.filter(([, f]) => !f.how.startsWith('limit: ')).map(([n]) => n)).toEqual([]);
  });

  test('a polled run cannot make fewer calls a task than a POST per 100, a ready list per 1,000 and the account check', () => {
    expect(pollingFloor(2000)).toBeCloseTo(1.0115, 10);
    expect(pollingFloor(100)).toBeCloseTo(1.03, 10);
    expect(pollingFloor(1001)).toBeCloseTo((1001 + 11 + 2 + 1) / 1001, 10);
  });
});

describe('generated pipelines', () => {
  test('a generated pipeline plans exactly n keywords_for_site tasks with the requested collection', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-bench-pipe-'));
    try {
      const file = writePipeline(dir, 'bench-gen', 250, 'postback');
      const config = loadConfig({ root: ROOT, env: {} });
      const pipeline = loadPipeline(file, config);
      expect(pipeline.steps).toHaveLength(1);
      expect(pipeline.steps[0].endpointId).toBe('keywords_for_site.task_post');
      expect(pipeline.steps[0].collect).toBe('postback');
      const plan = await planPipeline(pipeline, { runId: 'bench-gen-2026-01-15' });
      const tasks = plan.steps.reduce((n, s) => n + s.tasks.length, 0);
      expect(tasks).toBe(250);
      expect(readFileSync(path.join(dir, 'bench-gen-targets.txt'), 'utf8').trim().split('\n')).toHaveLength(250);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
