/** The SEO_ETL_* variables: which ones mean something, and a warning with a hint for the ones that don't. */
import { suggest } from './suggest.js';

/** Variables outside the SEO_ETL_<SECTION>_<KEY> settings, each read at one place. */
export const OTHER_VARIABLES: Readonly<Record<string, string>> = {
  SEO_ETL_LOGIN: 'the live service login',
  SEO_ETL_PASSWORD: 'the live service password',
  SEO_ETL_HOME: 'the project folder (src/config/project.ts)',
  SEO_ETL_LOG_LEVEL: 'the log level',
  SEO_ETL_LOG_FORMAT: "stderr's log lines: human or json (src/log/log-output.ts)",
  SEO_ETL_TEST_PAUSE_AT: 'the crash tests\' pause points',
  SEO_ETL_TRACE: 'load timing traces',
  SEO_ETL_TEST_CLI: 'the CLI the tests run',
  SEO_ETL_CRASH_TRIALS: 'how many crash trials the crash tests run',
  SEO_ETL_CRASH_SEED: 'the crash tests\' seed',
};

/** SEO_ETL_<SECTION>_<KEY> for every setting of every section but the price table. */
export function settingVariables(sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] {
  return Object.entries(sections)
    .filter(([section]) => section !== 'prices')
    .flatMap(([section, keys]) => Object.keys(keys).map((key) => `SEO_ETL_${section}_${key}`.toUpperCase()));
}

/** One warning for each SEO_ETL_* variable that sets nothing: a misspelling would otherwise be silently ignored. */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv, settings: readonly string[]): string[] {
  const known = [...settings, ...Object.keys(OTHER_VARIABLES)];
  return Object.keys(env)
    .filter((name) => name.startsWith('SEO_ETL_') && !known.includes(name))
    .sort()
    .map((name) => `environment variable ${name} is not a seo-etl setting and is ignored${suggest(name, known)}`);
}
