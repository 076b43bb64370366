/**
 * The PostgreSQL publish's staging folders (CSV files for COPY) beside the working warehouse, and their clean-up
 * after a killed publish. Apart from the destination so a run clears them without loading `pg`.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/** The staging folders' names, beside the working warehouse: `postgres-stage-<pid>`. */
export const STAGE_PREFIX = 'postgres-stage-';

/** The staging folders among `names` whose process is gone (a publish killed in flight left them). Pure. */
export function staleStages(names: readonly string[], alive: (pid: number) => boolean): string[] {
  return names.filter((n) => {
    const pid = n.startsWith(STAGE_PREFIX) ? Number(n.slice(STAGE_PREFIX.length)) : NaN;
    return Number.isInteger(pid) && pid > 0 && !alive(pid);
  });
}

/** Removes the staging folders killed publishes left in `dir`; returns their names. */
export function removeStaleStages(dir: string, alive: (pid: number) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const stale = staleStages(names, alive);
  for (const n of stale) rmSync(path.join(dir, n), { recursive: true, force: true });
  return stale;
}
