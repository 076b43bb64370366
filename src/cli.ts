/**
 * The seo-etl command line. Each command parses its flags and calls one entry point; no logic lives here.
 * Exit codes (documented in the README): 0 ok, 1 finished with failed tasks, 2 bad input, 3 another run holds
 * the warehouse, 4 stopped by budget, 5 the service refused the account (auth, payment), 70 internal error.
 */
import { Command, InvalidArgumentError } from 'commander';
import { EXIT, exitCodeOf, describeError } from './exit.js';
import { exitWhenDone } from './exit-when-done.js';

/** Set by the one command that serves until stopped (the sandbox); every other command ends its process. */
let serving = false;

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};

const program = new Command()
  .name('seo-etl')
  .description('Pulls Search-Data and Site-Analysis Task API data into a typed DuckDB + Parquet warehouse.')
  .option('-C, --root <dir>', 'project folder holding config/ and data/', process.cwd())
  .showHelpAfterError();

program
  .command('sandbox')
  .description('start the embedded API sandbox on 127.0.0.1')
  .option('-p, --port <n>', 'port to listen on (0 picks a free one)', int('port'))
  .option('--host <addr>', 'address to listen on', '127.0.0.1')
  .action(async (opts) => {
    const { sandboxCommand } = await import('./sandbox/command.js');
    serving = true;
    await sandboxCommand({ root: program.opts().root, port: opts.port, host: opts.host });
  });

program
  .command('run')
  .description('run a pipeline: plan, post, collect, normalize, load and publish')
  .argument('<pipeline>', 'pipeline YAML file')
  .option('--run-date <yyyy-mm-dd>', 'the day this run is for (a run of the same pipeline and day resumes)')
  .option('--no-progress', 'no progress display, even on a terminal')
  .action(async (pipeline, opts) => {
    const { runCommand } = await import('./run/command.js');
    process.exitCode = await runCommand({ root: program.opts().root, pipeline, runDate: opts.runDate, progress: opts.progress });
  });

program
  .command('resume')
  .description('resume the last unfinished run of a pipeline: collect what was posted, never post it again')
  .argument('[pipeline]', 'pipeline YAML file (default: the last unfinished run)')
  .option('--no-progress', 'no progress display')
  .action(async (pipeline, opts) => {
    const { resumeCommand } = await import('./run/command.js');
    process.exitCode = await resumeCommand({ root: program.opts().root, pipeline, progress: opts.progress });
  });

program
  .command('plan')
  .description('dry run: tasks per step, API calls, estimated cost and shortest duration; spends nothing')
  .argument('<pipeline>', 'pipeline YAML file')
  .option('--json', 'print the plan as JSON')
  .action(async (pipeline, opts) => {
    const { planCommand } = await import('./run/command.js');
    process.exitCode = await planCommand({ root: program.opts().root, pipeline, json: Boolean(opts.json) });
  });

program
  .command('check')
  .description('free account check: proves the credentials, shows the balance and limits, and with a pipeline whether the balance covers its plan')
  .argument('[pipeline]', 'pipeline YAML file whose plan cost to compare with the balance')
  .action(async (pipeline) => {
    const { checkCommand } = await import('./check/index.js');
    process.exitCode = await checkCommand({ root: program.opts().root, pipeline });
  });

program
  .command('status')
  .description('tasks by state, cost and failures of the latest runs')
  .option('--json', 'print as JSON')
  .action(async (opts) => {
    const { statusCommand } = await import('./run/command.js');
    process.exitCode = await statusCommand({ root: program.opts().root, json: Boolean(opts.json) });
  });

program
  .command('reprocess')
  .description('rebuild every table from the raw archive, without calling the API')
  .action(async () => {
    const { reprocessCommand } = await import('./archive/command.js');
    process.exitCode = await reprocessCommand({ root: program.opts().root });
  });

program
  .command('ingest')
  .description('load response files saved elsewhere (JSON or gzip JSON; one envelope per file or NDJSON)')
  .argument('<files...>', 'response files')
  .action(async (files) => {
    const { ingestCommand } = await import('./archive/command.js');
    process.exitCode = await ingestCommand({ root: program.opts().root, files });
  });

program
  .command('tables')
  .description('list the published tables with row counts')
  .option('--json', 'print as JSON')
  .option('--ddl <engine>', 'instead: external-table DDL over the Parquet export for spark, trino or bigquery')
  .option('--location <uri>', 'with --ddl: the folder holding the Parquet tables (default: the local data/parquet)')
  .option('--schema <name>', 'with --ddl: schema / dataset to create the tables in (default: seo)')
  .action(async (opts) => {
    const { tablesCommand } = await import('./publish/command.js');
    process.exitCode = await tablesCommand({ root: program.opts().root, json: Boolean(opts.json), ddl: opts.ddl, location: opts.location, schema: opts.schema });
  });

program
  .command('docs')
  .description('regenerate docs/tables.md (the data dictionary) from the table catalog')
  .action(async () => {
    const { docsCommand } = await import('./normalize/command.js');
    process.exitCode = await docsCommand({ root: program.opts().root });
  });

program
  .command('bench')
  .description('measure every performance figure against the embedded sandbox (BENCH_QUICK=1 for a small run)')
  .action(async () => {
    const { benchCommand } = await import('./bench/command.js');
    process.exitCode = await benchCommand({ root: program.opts().root, quick: process.env.BENCH_QUICK === '1' });
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`seo-etl: ${describeError(err)}\n`);
  process.exitCode = exitCodeOf(err);
}
if (!serving) exitWhenDone();
void EXIT;
