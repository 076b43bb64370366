/**
 * One run at a time per warehouse: `<data dir>/run.lock`, created atomically (open with 'wx'), holding the pid,
 * host and start time of the run that owns it. A lock left by a process that is gone (same host, pid not alive)
 * is recovered; anything else refuses with LockedError (exit code 3).
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { EXIT } from '../exit.js';

export interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
  run_id?: string;
  pipeline?: string;
}

export class LockedError extends Error {
  readonly exitCode: number = EXIT.locked;
  constructor(
    readonly lockPath: string,
    readonly holder: LockInfo | undefined,
    detail?: string,
  ) {
    const who = holder
      ? `pid ${holder.pid} on ${holder.host}, started ${holder.started_at}${holder.run_id ? `, run ${holder.run_id}` : ''}`
      : detail ?? 'an unreadable lock';
    const remote = holder && holder.host !== hostname();
    super(
      `another seo-etl run holds this warehouse (${who}): ${lockPath}. ` +
        'Pass --wait (or --wait=2h) to wait for it to finish, or run again later; ' +
        (remote
          ? 'it ran on another host, so this one cannot tell whether it is still alive: if that process is gone, delete the lock file.'
          : 'a lock left by a process that is gone is recovered automatically, so this one is still running.'),
    );
    this.name = 'LockedError';
  }
}

export interface RunLock {
  path: string;
  info: LockInfo;
  /** The dead holder's lock this acquisition replaced, if any. */
  recovered?: LockInfo;
  /** Removes the lock if it is still ours. Synchronous, so it can run in an exit handler. */
  release(): void;
}

export interface AcquireOptions {
  runId?: string;
  pipeline?: string;
  now?: Date;
  /** Whether a pid is a live process on this host (tests pass their own). */
  isAlive?: (pid: number) => boolean;
  /** An unreadable lock younger than this is taken as being written right now. */
  unreadableGraceMs?: number;
}

export const LOCK_FILE = 'run.lock';

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.started_at === 'string') return v as LockInfo;
  } catch {
    /* unreadable */
  }
  return undefined;
}

export function readRunLock(dataDir: string): LockInfo | undefined {
  try {
    return parseLock(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

function tryCreate(lockPath: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${JSON.stringify(info)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Moves a stale lock aside and checks it is the one judged stale: between reading it and moving it another
 * process may have recovered it and written its own, which is then put back (link never overwrites).
 */
function removeStale(lockPath: string, staleText: string): boolean {
  const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== staleText) {
    try {
      linkSync(aside, lockPath);
    } catch {
      /* someone else holds it now; theirs stands */
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  return true;
}

export function acquireRunLock(dataDir: string, opts: AcquireOptions = {}): RunLock {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, LOCK_FILE);
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    started_at: (opts.now ?? new Date()).toISOString(),
    ...(opts.runId ? { run_id: opts.runId } : {}),
    ...(opts.pipeline ? { pipeline: opts.pipeline } : {}),
  };
  const isAlive = opts.isAlive ?? pidAlive;
  let recovered: LockInfo | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(lockPath, info)) {
      const mine = `${JSON.stringify(info)}\n`;
      return {
        path: lockPath,
        info,
        ...(recovered ? { recovered } : {}),
        release() {
          try {
            if (readFileSync(lockPath, 'utf8') === mine) unlinkSync(lockPath);
          } catch {
            /* already gone */
          }
        },
      };
    }
    let text: string;
    try {
      text = readFileSync(lockPath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw err;
    }
    const holder = parseLock(text);
    if (!holder) {
      // Created but not yet written, or garbage: only old garbage is taken as stale.
      let age = Infinity;
      try {
        age = fileSystemNow(path.dirname(lockPath)) - statSync(lockPath).mtimeMs;
      } catch {
        continue;
      }
      if (age < (opts.unreadableGraceMs ?? 10_000)) throw new LockedError(lockPath, undefined, 'a lock being written right now');
      removeStale(lockPath, text);
      continue;
    }
    const stale = holder.host === info.host && !isAlive(holder.pid);
    if (!stale) throw new LockedError(lockPath, holder);
    if (removeStale(lockPath, text)) recovered = holder;
  }
  throw new LockedError(lockPath, readRunLock(dataDir), 'a lock that keeps changing');
}

/** Parses `--wait`'s duration: `90s`, `30m`, `2h`, `1d` or a number of seconds. */
export function parseWait(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(m[1]) * unit);
}

/** `--wait` without a duration: long enough for any night's run. */
export const DEFAULT_WAIT_MS = 12 * 3_600_000;

export interface WaitOptions {
  /** How long to wait for a held lock at most. */
  waitMs: number;
  /** Called once when the wait starts, with the holder and when the wait ends. */
  onWait?: (err: LockedError, until: Date) => void;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  clock?: () => number;
}

/** acquireRunLock, waiting up to `waitMs` for a live holder to release the lock; then the same LockedError. */
export async function acquireRunLockWaiting(dataDir: string, opts: AcquireOptions, wait: WaitOptions): Promise<RunLock> {
  const clock = wait.clock ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = clock() + wait.waitMs;
  let told = false;
  for (;;) {
    try {
      return acquireRunLock(dataDir, opts);
    } catch (err) {
      if (!(err instanceof LockedError) || clock() >= deadline) throw err;
      if (!told) { told = true; wait.onWait?.(err, new Date(deadline)); }
      await sleep(Math.min(wait.pollMs ?? 2000, Math.max(0, deadline - clock())));
    }
  }
}

/**
 * "Now" as the file system that holds `dir` stamps it: the age of a file is measured on the clock that wrote its
 * mtime, not this process's, which can differ (a network share's server, a process under another clock).
 */
function fileSystemNow(dir: string): number {
  const probe = path.join(dir, `.clock-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    writeFileSync(probe, '');
    return statSync(probe).mtimeMs;
  } catch {
    return Date.now();
  } finally {
    rmSync(probe, { force: true });
  }
}
