/**
 * Child process of the sandbox throughput figure: the keep-alive load generator (src/sandbox/loadtest.ts) in its
 * own process, so that client and sandbox do not share an event loop. Spec (argv[2], JSON):
 * { url, authorization, paths: { e5, taskGets }, connections, durationMs, resultFile }.
 */
import { writeFileSync } from 'node:fs';
import { measureThroughput, type LoadResult } from '../sandbox/loadtest.js';

export interface RpsChildSpec {
  url: string;
  authorization: string;
  e5Path: string;
  taskGetPaths: string[];
  connections: number;
  durationMs: number;
  resultFile: string;
}

export interface RpsChildResult {
  e5: LoadResult;
  taskGet: LoadResult;
}

async function main(): Promise<void> {
  const s = JSON.parse(process.argv[2] ?? '{}') as RpsChildSpec;
  const common = { url: s.url, authorization: s.authorization, connections: s.connections, durationMs: s.durationMs };
  const e5 = await measureThroughput({ ...common, path: s.e5Path });
  const taskGet = await measureThroughput({ ...common, path: s.taskGetPaths[0], paths: s.taskGetPaths });
  writeFileSync(s.resultFile, JSON.stringify({ e5, taskGet } satisfies RpsChildResult));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 1;
});
