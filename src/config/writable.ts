/**
 * Whether this user can write where a command writes (the data folder and the folders in it), checked before the
 * lock is taken or anything is posted: a read-only data folder ended `run`, `reprocess` and `report` with exit 70
 * and `EACCES ... run.lock`. The answer names the folder and the permission it needs (exit 2).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { UserError } from '../exit.js';

/** What the check reads of the file system (tests, which run as root, inject one that refuses). */
export interface FolderProbe {
  /** A folder, a file (anything that is not a folder), or nothing there. */
  kind(p: string): 'folder' | 'file' | 'missing';
  /** Whether this process may create files in the folder (write and search permission). */
  writable(p: string): boolean;
  /** `drwxr-xr-x, owner uid 0`, for the message. */
  describe(p: string): string;
}

export const fileSystemProbe: FolderProbe = {
  kind(p) {
    try {
      return statSync(p).isDirectory() ? 'folder' : 'file';
    } catch {
      return 'missing';
    }
  },
  writable(p) {
    try {
      accessSync(p, constants.W_OK | constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  describe(p) {
    try {
      const s = statSync(p);
      return `mode ${(s.mode & 0o777).toString(8).padStart(3, '0')}, owner uid ${s.uid}`;
    } catch {
      return 'unreadable';
    }
  },
};

/** This process's user, as the message names it. */
const who = () => {
  try {
    const u = userInfo();
    return `user ${u.username} (uid ${u.uid})`;
  } catch {
    return 'this user';
  }
};

/**
 * Why this user cannot write in `dir` (creating it, and the folders above it, when missing), or undefined. `what`
 * names the folder for people ("the data folder"). Pure over `probe`.
 */
export function unwritableFolder(dir: string, what: string, probe: FolderProbe = fileSystemProbe, user: string = who()): string | undefined {
  const target = path.resolve(dir);
  let at = target;
  while (probe.kind(at) === 'missing') {
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (probe.kind(at) === 'file') {
    return `${what} ${target} cannot be ${at === target ? 'used' : 'created'}: ${at} is a file, not a folder. Move it, or point warehouse.dir (SEO_ETL_WAREHOUSE_DIR) at a folder`;
  }
  if (probe.writable(at)) return undefined;
  const fix = `give ${user} write and search permission (w and x) on ${at} (${probe.describe(at)}: chown or chmod u+wx), or point warehouse.dir (SEO_ETL_WAREHOUSE_DIR) at a folder it can write`;
  return at === target
    ? `${what} ${target} is not writable by ${user}: seo-etl writes its lock (run.lock), the warehouse and the logs there; ${fix}`
    : `${what} ${target} cannot be created by ${user}: it needs write and search permission on ${at}; ${fix}`;
}

/** Refuses (exit 2) when this user cannot write in one of the folders a command writes in, naming the first. */
export function requireWritableFolders(folders: readonly { dir: string; what: string }[], probe: FolderProbe = fileSystemProbe): void {
  for (const f of folders) {
    const problem = unwritableFolder(f.dir, f.what, probe);
    if (problem) throw new UserError(problem);
  }
}

/** The folders a run, `reprocess` or `ingest` writes in under the data folder `dir`. */
export const dataFolders = (paths: { dir: string; work: string; raw: string; parquet: string }): { dir: string; what: string }[] => [
  { dir: paths.dir, what: 'the data folder' },
  { dir: path.dirname(paths.work), what: 'the working warehouse\'s folder' },
  { dir: paths.raw, what: 'the raw archive folder' },
  { dir: paths.parquet, what: 'the Parquet folder' },
  { dir: path.join(paths.dir, 'logs'), what: 'the log folder' },
];
