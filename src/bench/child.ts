/**
 * Runs a bench module in a child process, so that what it measures (peak RSS above all) is that work alone.
 *
 * From the compiled tree (`make bench`) the sibling `.js` runs under plain node; from the TypeScript sources
 * (vitest, tsx) the sibling `.ts` runs under `node --import tsx`. The child reads its JSON spec from argv[2]
 * and writes its JSON answer to the file named in the spec's `resultFile`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const fromSources = here.endsWith('.ts');

/**
 * The command that runs the sibling module `name` (without extension). From the sources, the compiled module is
 * preferred where the build has it (`make test` builds first): tsx transpiles the whole tree at every child's
 * start, a second or two of CPU for each of the quick bench's few dozen children.
 */
export function childCommand(name: string): { file: string; args: string[] } {
  if (fromSources) {
    const compiled = path.resolve(path.dirname(here), '..', '..', 'dist', 'bench', `${name}.js`);
    if (existsSync(compiled)) return { file: compiled, args: [compiled] };
  }
  const file = path.join(path.dirname(here), `${name}${fromSources ? '.ts' : '.js'}`);
  return { file, args: fromSources ? ['--import', 'tsx', file] : [file] };
}

export interface ChildOptions {
  env?: NodeJS.ProcessEnv;
  /** The child is killed after this long. Its stderr (its log) is kept, the last 64 KB, for the error message. */
  timeoutMs: number;
}

/** Runs sibling module `name` with `spec`; resolves with its answer, rejects with its exit and log tail. */
export async function runChild<T>(name: string, spec: Record<string, unknown> & { resultFile: string }, opts: ChildOptions): Promise<T> {
  const { args } = childCommand(name);
  rmSync(spec.resultFile, { force: true });
  // BENCH_CHILD_NODE_ARGS: node flags for the measured child alone (a CPU profile: `--cpu-prof --cpu-prof-dir=DIR`).
  const flags = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, ...args, JSON.stringify(spec)], { env: opts.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr!.on('data', (c: Buffer) => {
    tail = (tail + c.toString('utf8')).slice(-65_536);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  let answer: string | undefined;
  try {
    answer = readFileSync(spec.resultFile, 'utf8');
  } catch {
    answer = undefined;
  }
  if (code !== 0 || answer === undefined) {
    const why = code === null ? `killed after ${opts.timeoutMs} ms` : `exit ${code}`;
    throw new Error(`bench child ${name} failed (${why}); its log ends:\n${lastLines(tail, 15)}`);
  }
  return JSON.parse(answer) as T;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}
