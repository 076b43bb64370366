/**
 * Which project a command works on: the folder holding `config/` and `data/`. Never the working directory by
 * accident: cron starts commands in $HOME, where a default of `.` silently built a second, empty warehouse.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../exit.js';

/** A folder is a project when it has a config/default.yaml or a config/local.yaml. */
export function isProject(dir: string): boolean {
  return existsSync(path.join(dir, 'config', 'default.yaml')) || existsSync(path.join(dir, 'config', 'local.yaml'));
}

/** The nearest project at or above `dir`, or undefined. */
export function projectAbove(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (isProject(d)) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

export interface FindProjectOptions {
  /** `--root`, taken as it is. */
  root?: string;
  /** SEO_ETL_HOME. */
  home?: string;
  /** A pipeline or input file the command was given: its project wins over the working directory's. */
  file?: string;
  cwd: string;
}

/** --root, then SEO_ETL_HOME, then the project above the file given, then the one above the working directory. */
export function findProject(o: FindProjectOptions): string {
  if (o.root) return path.resolve(o.cwd, o.root);
  if (o.home) {
    const home = path.resolve(o.cwd, o.home);
    if (!isProject(home)) throw new UserError(`SEO_ETL_HOME: ${home} is not a seo-etl project (it has no config/default.yaml or config/local.yaml)`);
    return home;
  }
  const fromFile = o.file ? projectAbove(path.dirname(path.resolve(o.cwd, o.file))) : undefined;
  const found = fromFile ?? projectAbove(o.cwd);
  if (!found) {
    throw new UserError(
      `no seo-etl project found at or above ${o.file ? path.dirname(path.resolve(o.cwd, o.file)) : o.cwd} ` +
        '(a folder with config/default.yaml); run from the project, pass --root <dir>, or set SEO_ETL_HOME',
    );
  }
  return found;
}
