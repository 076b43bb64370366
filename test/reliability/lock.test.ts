/**
 * One run at a time per warehouse: while a run holds the data folder (paused inside a load), a second `run` is
 * refused with exit code 3 and a message naming the holder, before it opens anything; once the first is SIGKILLed, its
 * stale lock is recovered by the next run, which resumes and finishes the work exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startProject, type TestProject } from '../helpers/project.js';
import { PAUSE_MARKER } from '../../src/run/test-pause.js';
import { SANDBOX_EXTRA, childEnv, logLines, runCrashPipeline, tagsPostedTwice, type ChildResult, closeProject } from './helpers.js';

let p: TestProject;
beforeAll(async () => {
  p = await startProject(SANDBOX_EXTRA);
});
afterAll(async () => closeProject(p));

describe('the run lock', () => {
  test('a second run is refused while one runs; a killed run\'s lock is recovered', async () => {
    let second: ChildResult | undefined;
    let holder: { pid: number } | undefined;
    const first = await runCrashPipeline({
      env: childEnv(p, { SEO_ETL_TEST_PAUSE_AT: 'load' }),
      killOnMarker: `${PAUSE_MARKER} load`,
      beforeKill: async () => {
        holder = JSON.parse(readFileSync(path.join(p.dataDir, 'run.lock'), 'utf8'));
        second = await runCrashPipeline({ env: childEnv(p) });
      },
    });
    expect(first.killed, first.stderr.slice(-2000)).toBe(true);
    expect(second!.code, second!.stderr).toBe(3);
    expect(second!.stderr).toMatch(new RegExp(`another seo-etl run holds this warehouse \\(pid ${holder!.pid} on \\S+, started [^)]+\\): ${p.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/run\\.lock`));
    expect(second!.stderr).not.toMatch(/\n\s+at /);
    // It was refused before it opened anything or started its API client.
    expect(logLines(second!.stderr).map((l) => l.msg)).not.toContain('starting run');

    // The killed run left its lock behind; the next run finds its holder dead and takes it over.
    expect(existsSync(path.join(p.dataDir, 'run.lock'))).toBe(true);
    const third = await runCrashPipeline({ env: childEnv(p) });
    expect(third.code, third.stderr.slice(-3000)).toBe(0);
    const recovered = logLines(third.stderr).find((l) => l.msg === 'recovered the lock of a run that is no longer alive');
    expect(recovered?.stale_lock).toMatchObject({ pid: holder!.pid });
    expect(third.stdout).toMatch(/completed \(resumed\)/);
    expect(existsSync(path.join(p.dataDir, 'run.lock')), 'released at the end').toBe(false);
    expect(tagsPostedTwice(p)).toEqual([]);
  });
});
