/**
 * The seo-etl command line. Each command parses its flags and calls one entry point; no logic lives here.
 * Exit codes (documented in the README, and in `run --help` from src/exit.ts): 0 ok, 1 finished with failed tasks,
 * 2 bad input, 3 another run holds the warehouse, 4 stopped by budget, 5 the service refused the account, 6 and 8
 * a destination failed, 7 the service unreachable, 70 internal error.
 */
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { EXIT, EXIT_MEANINGS, exitCodeOf, describeError } from './exit.js';
import { readFileSync } from 'node:fs';
import { exitWhenDone } from './exit-when-done.js';
import { findProject } from './config/project.js';
import { configWarnings } from './config/index.js';
import { isSandboxAddress } from './config/service.js';
import { DEFAULT_WAIT_MS, parseWait } from './ledger/lock.js';
import { RUN_DATE_RULE, isCalendarDay } from './pipeline/key.js';

/** `--wait=<duration>`: 90s, 30m, 2h, 1d. */
const duration = (v: string) => {
  const ms = parseWait(v);
  if (ms === undefined) throw new InvalidArgumentError('must be a duration such as 90s, 30m, 2h or 1d');
  return ms;
};
const WAIT_HELP = 'when another run holds the warehouse, wait for it to finish (at most <duration>: 90s, 30m, 2h; default 12h) instead of exiting 3';

/** Set by the one command that serves until stopped (the sandbox); every other command ends its process. */
let serving = false;

/** The project a command works on (src/config/project.ts); `file` is the pipeline or input file it was given. */
const rootFor = (file?: string) => findProject({ root: program.opts().root, home: process.env.SEO_ETL_HOME, file, cwd: process.cwd() });
/** A file argument as the user meant it: relative to the working directory, not to the project. */
/** The sandbox needs only a configuration: outside any project it serves with the shipped defaults. */
const sandboxRoot = () => {
  try { return rootFor(); } catch { return path.resolve(import.meta.dirname, '..'); }
};
const abs = (file: string) => path.resolve(process.cwd(), file);

const int = (name: string, max = Number.MAX_SAFE_INTEGER) => (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > max) throw new InvalidArgumentError(`${name} must be a whole number from 0 to ${max}`);
  return n;
};

/** A real calendar day: `2026-13-45` is refused here rather than deep inside the run. */
const day = (v: string) => {
  if (!isCalendarDay(v)) throw new InvalidArgumentError(RUN_DATE_RULE);
  return v;
};

/** What `run` and `resume` show while they work and when they end. */
const outputOf = (opts: { progress?: boolean; quiet?: boolean; logFormat?: string; wait?: number | true }) => ({
  waitMs: opts.wait === true ? DEFAULT_WAIT_MS : opts.wait,
  progress: opts.progress, quiet: Boolean(opts.quiet), logFormat: opts.logFormat, sandbox: Boolean(program.opts().sandbox), takeOverDestinations: takeOver(),
});
/** --take-over-destinations (src/publish/holder.ts). */
const takeOver = () => Boolean(program.opts().takeOverDestinations);

const VERSION = (JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
const EXIT_HELP = `\nExit codes:\n${Object.entries(EXIT_MEANINGS).map(([code, what]) => `  ${code.padStart(3)}  ${what}`).join('\n')}\n`;

const program = new Command()
  .name('seo-etl')
  .description('ETL for DataForSEO API users: pulls DataForSEO v3 API data (SERPs, keyword data, DataForSEO Labs, Backlinks, merchant, on-page and every other family; seo-etl tables --available) into a typed DuckDB + Parquet warehouse, PostgreSQL and a lake.')
  .version(VERSION, '-V, --version', 'print the version of seo-etl')
  // run --help shows --sandbox and the other global options beside the command's own.
  .configureHelp({ showGlobalOptions: true })
  .option('-C, --root <dir>', 'project folder holding config/ and data/ (default: SEO_ETL_HOME, else the project holding the pipeline file, else the one at or above the working directory)')
  .option('--sandbox', 'use a sandbox and its own data folder (data/sandbox/) on purpose, whatever the configuration names: the one SEO_ETL_API_BASE_URL names (seo-etl sandbox), else the embedded one')
  .option('--take-over-destinations', 'publish to a destination (PostgreSQL schema) that holds another data folder\'s or the other service kind\'s data, replacing it on purpose')
  .showHelpAfterError('(seo-etl help <command> lists its arguments and options)')
  // Usage mistakes are bad input (exit 2), answered by commander's one-line message, not a stack or exit 1.
  .exitOverride()
  .hook('preAction', () => {
    for (const w of configWarnings(process.env)) process.stderr.write(`seo-etl: warning: ${w}\n`);
    // Every command reads the service from the environment: --sandbox keeps a sandbox it names (seo-etl sandbox's
    // address), and otherwise means the embedded one.
    if (program.opts().sandbox && !isSandboxAddress(process.env.SEO_ETL_API_BASE_URL)) process.env.SEO_ETL_API_BASE_URL = 'sandbox';
  });

program
  .command('sandbox')
  .description('start the embedded API sandbox on 127.0.0.1')
  .option('-p, --port <n>', 'port to listen on (0 picks a free one)', int('--port', 65535))
  .option('--host <addr>', 'address to listen on', '127.0.0.1')
  .action(async (opts) => {
    const { sandboxCommand } = await import('./sandbox/command.js');
    serving = true;
    try {
      await sandboxCommand({ root: sandboxRoot(), port: opts.port, host: opts.host });
    } finally {
      serving = false;
    }
  });

program
  .command('run')
  .description('run a pipeline: plan, post, collect, normalize, load and publish')
  .argument('<pipeline>', 'pipeline YAML file')
  .option('--run-date <yyyy-mm-dd>', 'the day this run is for, today or earlier in the account\'s time zone (a run of the same pipeline and day resumes)', day)
  .option('--allow-future-date', 'with --run-date, a day after today on purpose: sandboxes only (try several days ahead)')
  .option('--wait [duration]', WAIT_HELP, duration)
  .addHelpText('after', EXIT_HELP)
  .option('--no-progress', 'no progress bar, even on a terminal: log lines on stderr instead')
  .option('-q, --quiet', 'for cron: only warnings and errors on stderr, and the outcome on one line')
  .option('--log-format <format>', 'stderr log lines: human (default) or json (the log file is JSON either way)')
  .action(async (pipeline, opts) => {
    const { runCommand } = await import('./run/command.js');
    process.exitCode = await runCommand({ root: rootFor(pipeline), pipeline: abs(pipeline), runDate: opts.runDate, allowFutureDate: Boolean(opts.allowFutureDate), ...outputOf(opts) });
  });

program
  .command('resume')
  .description('resume the last unfinished run of a pipeline: collect what was posted, never post it again')
  .argument('[pipeline]', 'pipeline YAML file (default: the last unfinished run)')
  .option('--wait [duration]', WAIT_HELP, duration)
  .addHelpText('after', EXIT_HELP)
  .option('--no-progress', 'no progress bar, even on a terminal: log lines on stderr instead')
  .option('-q, --quiet', 'for cron: only warnings and errors on stderr, and the outcome on one line')
  .option('--log-format <format>', 'stderr log lines: human (default) or json (the log file is JSON either way)')
  .action(async (pipeline, opts) => {
    const { resumeCommand } = await import('./run/command.js');
    process.exitCode = await resumeCommand({ root: rootFor(pipeline), pipeline: pipeline && abs(pipeline), ...outputOf(opts) });
  });

program
  .command('plan')
  .description('dry run: tasks per step, API calls, estimated cost and shortest duration; spends nothing')
  .argument('<pipeline>', 'pipeline YAML file')
  .option('--json', 'print the plan as JSON')
  .option('--schedule <every>', 'price it per month and year at this schedule (hourly, daily, weekly, monthly); default: the pipeline\'s schedule:', (v: string) => {
    if (!['hourly', 'daily', 'weekly', 'monthly'].includes(v)) throw new InvalidArgumentError('must be hourly, daily, weekly or monthly');
    return v;
  })
  .action(async (pipeline, opts) => {
    const { planCommand } = await import('./run/command.js');
    process.exitCode = await planCommand({ root: rootFor(pipeline), pipeline: abs(pipeline), json: Boolean(opts.json), schedule: opts.schedule });
  });

program
  .command('check')
  .description('free account check: proves the credentials, shows the balance and limits, and with a pipeline whether the balance covers its plan')
  .argument('[pipeline]', 'pipeline YAML file whose plan cost to compare with the balance')
  .action(async (pipeline) => {
    const { checkCommand } = await import('./check/index.js');
    process.exitCode = await checkCommand({ root: rootFor(pipeline), pipeline: pipeline && abs(pipeline) });
  });

program
  .command('status')
  .description('tasks by state, cost and failures of the latest runs')
  .option('--json', 'print as JSON')
  .action(async (opts) => {
    const { statusCommand } = await import('./run/command.js');
    process.exitCode = await statusCommand({ root: rootFor(), json: Boolean(opts.json) });
  });

program
  .command('reprocess')
  .description('rebuild every table from the raw archive, without calling the API')
  .option('--allow-fewer', 'publish even when a table ends with fewer rows than it had (the archive is missing or cut)')
  .addHelpText('after', EXIT_HELP)
  .action(async (opts) => {
    const { reprocessCommand } = await import('./run/archive-command.js');
    process.exitCode = await reprocessCommand({ root: rootFor(), allowFewer: Boolean(opts.allowFewer), takeOver: takeOver() });
  });

program
  .command('ingest')
  .description('load response files saved elsewhere (JSON or gzip JSON; one envelope per file or NDJSON)')
  .argument('<files...>', 'response files')
  .addHelpText('after', EXIT_HELP)
  .action(async (files) => {
    const { ingestCommand } = await import('./run/archive-command.js');
    process.exitCode = await ingestCommand({ root: rootFor(), files: files.map(abs), takeOver: takeOver() });
  });

program
  .command('tables')
  .description('list the published tables with row counts')
  .option('--json', 'print as JSON')
  .option('--available', 'instead: every result kind the API families declare and the tables it lands in')
  .option('--ddl <engine>', 'instead: external-table DDL over the Parquet export for bigquery, athena, trino, spark, snowflake or clickhouse')
  .option('--location <uri>', 'with --ddl: the folder holding the Parquet tables (default: the lake\'s, lake.url, else the local data/parquet)')
  .option('--schema <name>', 'with --ddl: schema / dataset to create the tables in (default: seo)')
  .action(async (opts) => {
    const { tablesCommand } = await import('./publish/command.js');
    process.exitCode = await tablesCommand({ root: rootFor(), json: Boolean(opts.json), available: Boolean(opts.available), ddl: opts.ddl, location: opts.location, schema: opts.schema });
  });

program
  .command('report')
  .description('write the HTML report of a run (the latest by default) from the published warehouse: data/reports/<run_id>.html')
  .option('--run <id>', 'the run to report (seo-etl status lists them)')
  .option('--pipeline <file>', 'the pipeline: its latest run, its tracked domains (alerts.domains) and SERP keywords')
  .option('--days <n>', 'days of history the charts show (default 14)', int('--days', 366))
  .action(async (opts) => {
    const { reportCommand } = await import('./report/command.js');
    process.exitCode = await reportCommand({ root: rootFor(opts.pipeline), run: opts.run, pipeline: opts.pipeline && abs(opts.pipeline), days: opts.days });
  });

program
  .command('docs')
  .description('regenerate docs/tables.md (the data dictionary) from the table catalog')
  .action(async () => {
    const { docsCommand } = await import('./normalize/command.js');
    process.exitCode = await docsCommand({ root: rootFor() });
  });

program
  .command('bench')
  .description('measure every performance figure against the embedded sandbox (BENCH_QUICK=1 for a small run)')
  .action(async () => {
    const { benchCommand } = await import('./bench/command.js');
    process.exitCode = await benchCommand({ root: rootFor(), quick: process.env.BENCH_QUICK === '1' });
  });

for (const c of program.commands) c.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // commander has printed its message (or the help or version asked for) already.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
  } else {
    process.stderr.write(`seo-etl: ${describeError(err)}\n`);
    process.exitCode = exitCodeOf(err);
  }
}
if (!serving) exitWhenDone();
