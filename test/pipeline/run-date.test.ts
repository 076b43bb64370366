/**
 * One owner of the run date (issue 30): one rule for what a run date is, checked once where it enters a run, and
 * one place that reads a day back out of a run id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RUN_DATE_RULE, dayOfRunId, isCalendarDay, runIdFor } from '../../src/pipeline/index.js';
import { bindSql } from '../../src/pipeline/sources.js';
import { runJob } from '../../src/run/job.js';
import { UserError } from '../../src/exit.js';
import { commandStamp } from '../../src/run/archive-command.js';
import { NIGHTLY, ROOT, startProject, type TestProject } from '../helpers/project.js';
import { dayIn, futureRunDateRefusal } from '../../src/run/run-date.js';
import { fileSystemProbe, type FolderProbe } from '../../src/config/writable.js';

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

/** 23:30 UTC on 10 March 2026: already the 11th in Auckland (UTC+13), still the 10th in New York (UTC-4). */
const LATE = new Date('2026-03-10T23:30:00Z');

describe('a run date after today (issue 47, point 4)', () => {
  test('today is the account\'s: the day in its time zone decides, a sandbox may be run ahead on purpose, the live service never', () => {
    expect([dayIn(LATE, 'UTC'), dayIn(LATE, 'Pacific/Auckland'), dayIn(LATE, 'America/New_York')]).toEqual(['2026-03-10', '2026-03-11', '2026-03-10']);
    const at = (runDate: string, timeZone: string | null, o: { sandbox?: boolean; allowFuture?: boolean } = {}) =>
      futureRunDateRefusal({ runDate, now: LATE, timeZone, sandbox: o.sandbox ?? false, allowFuture: o.allowFuture ?? false });
    expect(at('2026-03-10', 'UTC')).toBeUndefined();
    expect(at('2026-03-01', 'UTC')).toBeUndefined();
    expect(at('2026-03-11', 'Pacific/Auckland')).toBeUndefined();
    expect(at('2026-03-11', 'America/New_York')).toMatch(/^--run-date 2026-03-11 is after today \(2026-03-10 in the account's time zone, America\/New_York\): .*that day's own run would find the run done/);
    expect(at('2026-03-11', null)).toMatch(/2026-03-10 in the account's time zone, UTC: the service did not state one/);
    expect(at('2026-03-12', 'UTC', { sandbox: true })).toMatch(/or --allow-future-date to run a sandbox ahead on purpose$/);
    expect(at('2026-03-12', 'UTC', { sandbox: true, allowFuture: true })).toBeUndefined();
    expect(at('2026-03-12', 'UTC', { allowFuture: true })).toMatch(/^--allow-future-date is for a sandbox only/);
  });

  describe('a run, against a sandbox whose account is on New York time', () => {
    let p: TestProject;
    beforeAll(async () => { p = await startProject({ sandbox: { account_timezone: 'America/New_York' } }); });
    afterAll(() => p?.close());
    const run = (runDate: string, o: { allowFutureDate?: boolean; folderProbe?: FolderProbe } = {}) => runJob({
      root: ROOT, pipelineFile: NIGHTLY, runDate, env: p.env, configOverrides: p.overrides, progress: false, stderrLog: false, clock: () => LATE, allowFutureDate: o.allowFutureDate, folderProbe: o.folderProbe,
    }).catch((e: unknown) => e);
    /** Stops a run that passed the date check at the next one, before the lock: which check stopped it says which passed. */
    const stopAtFolder: FolderProbe = { ...fileSystemProbe, writable: () => false };

    test('the day after the account\'s today is refused with exit 2 before the lock or any task', async () => {
      const err = await run('2026-03-11');
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toMatch(/^--run-date 2026-03-11 is after today \(2026-03-10 in the account's time zone, America\/New_York\)/);
      expect(existsSync(path.join(p.dataDir, 'run.lock'))).toBe(false);
      expect(p.sandbox.controls.postings()).toEqual([]);
    });

    test('--allow-future-date runs a sandbox ahead; today in the account\'s zone is not the future', async () => {
      const ahead = await run('2026-03-20', { allowFutureDate: true, folderProbe: stopAtFolder });
      expect((ahead as Error).message).toMatch(/^the data folder .* is not writable/);
      const sameDay = await run('2026-03-10', { folderProbe: stopAtFolder });
      expect((sameDay as Error).message).toMatch(/^the data folder .* is not writable/);
    });
  });
});
