// Tests that spawn the CLI run the compiled build; compile once before any test file starts, unless the build is
// already current (`make test` has just built it: a second compile only costs time).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Every src/**.ts has its dist/**.js (and every src/**.json its copy: the generated declarations), written after the
 * source and after tsconfig.json was last changed.
 */
function buildIsCurrent(): boolean {
  const src = path.join(ROOT, 'src');
  const config = statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs;
  const walk = (dir: string): boolean => readdirSync(dir, { withFileTypes: true }).every((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return walk(full);
    if (!(e.name.endsWith('.ts') || e.name.endsWith('.json')) || e.name.endsWith('.d.ts')) return true;
    const out = path.join(ROOT, 'dist', path.relative(src, full)).replace(/\.ts$/, '.js');
    if (!existsSync(out)) return false;
    const built = statSync(out).mtimeMs;
    return built >= statSync(full).mtimeMs && built >= config;
  });
  return walk(src);
}

export default function setup(): void {
  if (buildIsCurrent()) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.json')], { stdio: 'inherit', cwd: ROOT });
}
