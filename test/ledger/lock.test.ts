import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { acquireRunLock, LockedError, readRunLock } from '../../src/ledger/index.js';
import { exitCodeOf } from '../../src/exit.js';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'seo-etl-lock-'));

/** A child process that stays alive until killed; resolves once it runs. */
function liveChild() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const up = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, up, exited };
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const writeLock = (dir: string, info: object) => writeFileSync(path.join(dir, 'run.lock'), JSON.stringify(info));

describe('run lock', () => {
  test('the lock file holds pid, host and start; a second acquirer is refused with exit code 3; release frees it', () => {
    const dir = dataDir();
    const lock = acquireRunLock(dir, { runId: 'nightly-2024-05-01', now: new Date('2024-05-01T02:00:00Z') });
    const onDisk = JSON.parse(readFileSync(path.join(dir, 'run.lock'), 'utf8'));
    expect(onDisk).toEqual({ pid: process.pid, host: hostname(), started_at: '2024-05-01T02:00:00.000Z', run_id: 'nightly-2024-05-01' });
    expect(readRunLock(dir)).toEqual(onDisk);
    let err: unknown;
    try {
      acquireRunLock(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LockedError);
    expect((err as LockedError).name).toBe('LockedError');
    expect((err as LockedError).exitCode).toBe(3);
    expect(exitCodeOf(err)).toBe(3);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain('started 2024-05-01T02:00:00.000Z');
    lock.release();
    expect(existsSync(path.join(dir, 'run.lock'))).toBe(false);
    acquireRunLock(dir).release();
  });

  test('a lock held by another live process is refused; once that process is gone it is recovered as stale', async () => {
    const dir = dataDir();
    const { child, up, exited } = liveChild();
    await up;
    writeLock(dir, { pid: child.pid, host: hostname(), started_at: '2024-05-01T01:00:00.000Z' });
    expect(() => acquireRunLock(dir)).toThrow(new RegExp(`pid ${child.pid} on ${hostname()}, started 2024-05-01T01:00:00.000Z`));
    child.kill('SIGKILL');
    await exited;
    const lock = acquireRunLock(dir);
    expect(lock.recovered).toEqual({ pid: child.pid, host: hostname(), started_at: '2024-05-01T01:00:00.000Z' });
    expect(readRunLock(dir)?.pid).toBe(process.pid);
    lock.release();
  });

  test('a stale lock of a dead pid is recovered at once', async () => {
    const dir = dataDir();
    const pid = await deadPid();
    writeLock(dir, { pid, host: hostname(), started_at: '2024-04-30T02:00:00.000Z', run_id: 'nightly-2024-04-30' });
    const lock = acquireRunLock(dir);
    expect(lock.recovered?.pid).toBe(pid);
    lock.release();
  });

  test('a lock from another host is never judged stale from here', async () => {
    const dir = dataDir();
    writeLock(dir, { pid: await deadPid(), host: 'some-other-host', started_at: '2024-05-01T01:00:00.000Z' });
    expect(() => acquireRunLock(dir)).toThrow(/on some-other-host.*another host/);
  });

  test('an unreadable lock: refused while fresh (being written), recovered when old', () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'run.lock'), '');
    expect(() => acquireRunLock(dir)).toThrow(LockedError);
    acquireRunLock(dir, { unreadableGraceMs: 0 }).release();
  });

  test('release does not remove a lock that is no longer ours', () => {
    const dir = dataDir();
    const lock = acquireRunLock(dir);
    writeLock(dir, { pid: process.pid, host: hostname(), started_at: 'someone else' });
    lock.release();
    expect(readRunLock(dir)?.started_at).toBe('someone else');
  });
});
