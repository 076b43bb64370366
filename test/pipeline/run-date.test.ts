/**
 * One owner of the run date (issue 30): one rule for what a run date is, checked once where it enters a run, and
 * one place that reads a day back out of a run id.
 */
import { describe, expect, test } from 'vitest';
import { RUN_DATE_RULE, dayOfRunId, isCalendarDay, runIdFor } from '../../src/pipeline/index.js';
import { bindSql } from '../../src/pipeline/sources.js';
import { runJob } from '../../src/run/job.js';
import { UserError } from '../../src/exit.js';
import { commandStamp } from '../../src/run/archive-command.js';
import { ROOT } from '../helpers/project.js';

describe('the run date', () => {
  test('one rule: a real calendar day written yyyy-mm-dd', () => {
    expect(['2024-02-29', '2026-11-26'].map(isCalendarDay)).toEqual([true, true]);
    expect(['2026-13-45', '2026-02-30', '2025-02-29', '26-11-26', '2026-1-5', '2026-11-26T00:00:00Z', ''].map(isCalendarDay)).toEqual(Array(7).fill(false));
    expect(() => runIdFor('nightly', '2026-02-30')).toThrow(/calendar day/);
    expect(runIdFor('nightly', '2024-02-29')).toBe('nightly-2024-02-29');
  });

  test('read back out of a run id in one place: a pipeline day, a reprocess or ingest stamp, or nothing', () => {
    expect(dayOfRunId('nightly-2026-01-05')).toBe('2026-01-05');
    expect(dayOfRunId('ingest-20260107T101500-42')).toBe('2026-01-07');
    expect(dayOfRunId('reprocess-20240229T000000-7')).toBe('2024-02-29');
    expect(dayOfRunId('archive')).toBeUndefined();
    expect(dayOfRunId('nightly-2026-02-30')).toBeUndefined();
    expect(bindSql('SELECT {run_date}, {run_id}', { runId: 'nightly-2026-01-05' })).toBe("SELECT '2026-01-05', 'nightly-2026-01-05'");
    expect(bindSql('SELECT {run_date}', { runId: 'nightly-2026-01-05', runDate: '2026-01-04' })).toBe("SELECT '2026-01-04'");
  });

  test('two reprocess or ingest commands of one process in the same second get run ids of their own, each with its day', () => {
    const at = new Date('2026-01-07T10:15:00.100Z');
    const first = commandStamp(at, 42);
    const second = commandStamp(new Date('2026-01-07T10:15:00.900Z'), 42, first);
    const third = commandStamp(at, 42, second);
    const later = commandStamp(new Date('2026-01-07T10:15:01.000Z'), 42, third);
    expect([first, second, third, later].map((s) => s.stamp)).toEqual(['20260107T101500-42', '20260107T101500-42-2', '20260107T101500-42-3', '20260107T101501-42']);
    expect([second, third].map((s) => dayOfRunId(`ingest-${s.stamp}`))).toEqual(['2026-01-07', '2026-01-07']);
  });

  test('a bad --run-date is refused before anything is opened, naming the option and the rule', async () => {
    const err = await runJob({ root: ROOT, pipelineFile: 'pipelines/nightly.yaml', runDate: '2026-13-45', progress: false, stderrLog: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(`--run-date: ${RUN_DATE_RULE}, got '2026-13-45'`);
  });
});
