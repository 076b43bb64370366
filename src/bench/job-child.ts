/**
 * Child process of the job benchmarks: runs ONE whole nightly job (runJob, in-process) and nothing else, then
 * reports its duration and the process's own peak resident memory (getrusage maxRSS), so the memory figure is
 * that run's alone. Spec (argv[2], JSON): { root, pipelineFile, runDate, configOverrides, resultFile }.
 */
import { writeFileSync } from 'node:fs';
import { tuneHeapForJob } from '../run/heap.js';
import { measureJob, type JobChildSpec } from './job-measure.js';

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as JobChildSpec;
  tuneHeapForJob(); // as the CLI's run command does
  writeFileSync(spec.resultFile, JSON.stringify(await measureJob(spec, { alone: true })));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 1;
});
