/**
 * A data folder this user cannot write (issue 47, point 3): `run`, `reprocess`, `ingest` and `report` say which
 * folder and what permission it needs, with exit 2, before the lock is taken or anything is posted; it was exit 70
 * and `EACCES ... run.lock` with a stack. The tests run as root, where permission bits do not bind: the CLI cases
 * put a file where a folder must be, and the in-process run is given a probe that refuses the data folder.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { UserError } from '../../src/exit.js';
import { fileSystemProbe, unwritableFolder, type FolderProbe } from '../../src/config/writable.js';
import { NIGHTLY, ROOT, startProject, type TestProject } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-readonly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The file system as it is, but this user may not write in `readOnly` (as a folder owned by another user). */
const refusing = (readOnly: string): FolderProbe => ({ ...fileSystemProbe, writable: (p) => path.resolve(p) !== path.resolve(readOnly) && fileSystemProbe.writable(p), describe: () => 'mode 755, owner uid 0' });

describe('the message', () => {
  test('names the folder, the user and the permission; a missing folder names the parent it would be made in', () => {
    const data = path.join(dir, 'unit');
    mkdirSync(data);
    expect(unwritableFolder(data, 'the data folder', refusing(data), 'user etl (uid 1000)')).toBe(
      `the data folder ${data} is not writable by user etl (uid 1000): seo-etl writes its lock (run.lock), the warehouse and the logs there; ` +
      `give user etl (uid 1000) write and search permission (w and x) on ${data} (mode 755, owner uid 0: chown or chmod u+wx), or point warehouse.dir (SEO_ETL_WAREHOUSE_DIR) at a folder it can write`);
    expect(unwritableFolder(path.join(data, 'sandbox', 'logs'), 'the log folder', refusing(data), 'user etl (uid 1000)')).toMatch(
      new RegExp(`^the log folder ${data}/sandbox/logs cannot be created by user etl \\(uid 1000\\): it needs write and search permission on ${data};`));
    expect(unwritableFolder(data, 'the data folder')).toBeUndefined();
  });
});

describe('a run refuses before the lock and before anything is posted', () => {
  let p: TestProject;
  beforeAll(async () => { p = await startProject(); });
  afterAll(() => p?.close());

  test('exit 2 (UserError) naming the data folder; no run.lock, no call to the service', async () => {
    const err = await runJob({ root: ROOT, pipelineFile: NIGHTLY, runDate: '2026-03-02', clock: () => new Date('2026-03-02T12:00:00Z'), env: p.env, configOverrides: p.overrides, progress: false, stderrLog: false, folderProbe: refusing(p.dataDir) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toContain(`the data folder ${p.dataDir} is not writable by `);
    expect((err as Error).message).toContain('write and search permission (w and x)');
    expect(existsSync(path.join(p.dataDir, 'run.lock'))).toBe(false);
    expect(p.sandbox.controls.calls()).toEqual([]);
  });
});

describe('the commands, as cron runs them', () => {
  const env = (dataDir: string) => ({ ...process.env, SEO_ETL_API_BASE_URL: 'sandbox', SEO_ETL_WAREHOUSE_DIR: dataDir });
  const expectRefusal = (r: { code: number | null; stderr: string }, says: RegExp) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(/\n\s+at |EACCES|ENOTDIR|EEXIST/);
  };

  test('run and reprocess: a file where the data folder must be', async () => {
    const blocked = path.join(dir, 'blocked');
    writeFileSync(blocked, 'not a folder');
    const run = await runCli(['run', NIGHTLY, '--no-progress'], { env: env(blocked), timeoutMs: 60_000 });
    expectRefusal(run, new RegExp(`the data folder ${blocked}\\S* cannot be (used|created): ${blocked} is a file, not a folder`));
    const reprocess = await runCli(['reprocess'], { env: env(blocked), timeoutMs: 60_000 });
    expectRefusal(reprocess, new RegExp(`the data folder ${blocked}\\S* cannot be (used|created): ${blocked} is a file, not a folder`));
  });

  test('report: a file where its reports folder must be', async () => {
    const data = path.join(dir, 'report-data');
    mkdirSync(data);
    writeFileSync(path.join(data, 'warehouse.duckdb'), ''); // published, as far as the command looks first
    writeFileSync(path.join(data, 'reports'), 'not a folder');
    const r = await runCli(['report'], { env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: data }, timeoutMs: 60_000 });
    expectRefusal(r, new RegExp(`the reports folder ${data}/reports cannot be used: ${data}/reports is a file, not a folder`));
  });
});
