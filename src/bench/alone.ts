/**
 * A bench section run alone from its compiled module (`node dist/bench/<section>.js [--quick] ...`): a temporary
 * folder for its work, its figures printed as the bench prints them, the folder removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, type Figures } from './figures.js';

export interface AloneContext { quick: boolean; dir: string; root: string; log: (line: string) => void; args: string[] }

/** Runs `section` when `moduleUrl` is the module node was started with; does nothing when it is imported. */
export async function runAlone(moduleUrl: string, name: string, section: (ctx: AloneContext) => Promise<Figures>): Promise<void> {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  const args = process.argv.slice(2);
  const dir = mkdtempSync(path.join(os.tmpdir(), `seo-etl-bench-${name}-`));
  try {
    const figures = await section({ quick: args.includes('--quick'), dir, root: process.cwd(), log: (l) => console.log(l), args: args.filter((a) => !a.startsWith('--')) });
    console.log(formatTable(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
