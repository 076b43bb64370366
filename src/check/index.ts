/**
 * `seo-etl check`: the free `appendix/user_data` call proves the credentials and shows the balance and the account's
 * limits; with a pipeline it compares the balance with what the pipeline's plan would cost. `plan` shows the same
 * account lines when it can reach the service (accountLines), and nothing fails when it cannot.
 */
import path from 'node:path';
import { loadConfig, credentialsFor, type Config } from '../config/index.js';
import { ApiClient, ApiError } from '../api/client.js';
import { RateLimiter } from '../queue/index.js';
import type { Logger } from '../log/logger.js';
import { loadPipeline, pipelineWarnings } from '../pipeline/index.js';
import { estimatePlan, planPipeline } from '../pipeline/plan.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { EXIT, UnreachableError } from '../exit.js';

export interface AccountSummary {
  login: string | null;
  /** USD left. */
  balance: number | null;
  /** USD the account may spend per day, null when it has no such limit. */
  dailyCostLimit: number | null;
  spentToday: number | null;
  /** Calls a minute the account may make. */
  callsPerMinute: number | null;
  /** The account's time zone (an IANA name), whose day a run date is checked against (src/run/run-date.ts). */
  timeZone: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const at = (o: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);

/** The parts of a user_data result `check` reports (the live shape: login, money, rates). Pure. */
export function summarizeUserData(result: unknown): AccountSummary {
  return {
    login: typeof at(result, 'login') === 'string' ? (at(result, 'login') as string) : null,
    balance: num(at(result, 'money', 'balance')),
    dailyCostLimit: num(at(result, 'money', 'limits', 'day', 'total')),
    spentToday: num(at(result, 'money', 'statistics', 'day', 'total')),
    callsPerMinute: num(at(result, 'rates', 'limits', 'minute', 'total')),
    timeZone: typeof at(result, 'timezone') === 'string' && at(result, 'timezone') !== '' ? (at(result, 'timezone') as string) : null,
  };
}

export type BalanceVerdict = { enough: boolean; message: string };

/** Whether the balance (and what is left of today's cost limit) covers an estimated cost. Pure. */
export function compareBalance(a: AccountSummary, costUsd: number): BalanceVerdict {
  const usd = (x: number) => `$${x.toFixed(4)}`;
  if (a.balance === null) return { enough: false, message: `the service did not report a balance; the plan costs ${usd(costUsd)}` };
  if (a.balance < costUsd) return { enough: false, message: `the balance ${usd(a.balance)} does not cover the plan's ${usd(costUsd)}` };
  if (a.dailyCostLimit !== null) {
    const left = Math.max(0, a.dailyCostLimit - (a.spentToday ?? 0));
    if (left < costUsd) return { enough: false, message: `the daily cost limit leaves ${usd(left)} today, less than the plan's ${usd(costUsd)}` };
  }
  return { enough: true, message: `the balance ${usd(a.balance)} covers the plan's ${usd(costUsd)}` };
}

export function formatAccount(a: AccountSummary): string[] {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(4)}`);
  return [
    `account: ${a.login ?? 'unknown'}`,
    `balance: ${usd(a.balance)}`,
    `daily cost limit: ${a.dailyCostLimit === null ? 'none' : `${usd(a.dailyCostLimit)} (spent today ${usd(a.spentToday)})`}`,
    `rate limit: ${a.callsPerMinute === null ? 'unknown' : `${a.callsPerMinute} calls a minute`}`,
  ];
}

/** Calls user_data once (free). Throws ApiError for an account answer (401, 402, ...). */
export async function fetchAccount(client: ApiClient): Promise<AccountSummary> {
  const outcome = await client.list('appendix.user_data');
  if (!outcome.ok && (outcome.error.transport === 'network' || outcome.error.transport === 'timeout')) throw new UnreachableError(`appendix.user_data: the service could not be reached: ${outcome.error.message}`);
  if (!outcome.ok) throw new ApiError(`appendix.user_data: ${outcome.error.transport ? 'the service could not be reached' : `status ${outcome.error.code}`}: ${outcome.error.message}`, outcome.error.code, 200, 'appendix.user_data', outcome.error.path.join('/'));
  return summarizeUserData(outcome.task.result?.[0]);
}

/** A client for one quick account call: the configured service, or the embedded sandbox when base_url is "sandbox". */
export async function accountClient(config: Config, opts: { retries?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv; logger?: Logger } = {}): Promise<{ client: ApiClient; sandbox?: Sandbox }> {
  const credentials = credentialsFor(config, opts.env);
  const sandbox = config.api.base_url === 'sandbox' ? await startSandbox({ config, port: 0, credentials }) : undefined;
  const client = new ApiClient({
    baseUrl: sandbox?.url ?? config.api.base_url, credentials, engines: config.paths, limiter: RateLimiter.fromConfig(config),
    timeoutMs: opts.timeoutMs ?? config.api.timeout_ms, retries: opts.retries ?? config.api.retries, retryBaseMs: config.api.retry_base_ms, tasksPerPost: config.api.tasks_per_post, logger: opts.logger,
  });
  return { client, sandbox };
}

/** The estimated cost of a pipeline's plan, USD (what `plan` prints as the total). */
async function planCost(root: string, pipelineFile: string, config: Config, warn: (line: string) => void): Promise<number> {
  const pipeline = loadPipeline(path.resolve(root, pipelineFile), config);
  for (const w of pipelineWarnings(pipeline)) warn(w); // an endpoint named by its old id, as plan and run say it
  const plan = await planPipeline(pipeline, { runId: `check-${pipeline.name}` });
  return estimatePlan(plan, config).totals.costUsd;
}

export async function checkCommand(o: { root: string; pipeline?: string; env?: NodeJS.ProcessEnv; out?: (line: string) => void }): Promise<number> {
  const out = o.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const config = loadConfig({ root: o.root, ...(o.env ? { env: o.env } : {}) });
  const cost = o.pipeline ? await planCost(o.root, o.pipeline, config, (w) => process.stderr.write(`seo-etl: warning: ${w}\n`)) : undefined;
  const { client, sandbox } = await accountClient(config, { env: o.env });
  try {
    const account = await fetchAccount(client);
    out(`credentials: accepted by ${sandbox ? 'the embedded sandbox' : config.api.base_url}`);
    for (const line of formatAccount(account)) out(line);
    if (cost === undefined) return EXIT.ok;
    const verdict = compareBalance(account, cost);
    out(`${o.pipeline}: ${verdict.message}`);
    return verdict.enough ? EXIT.ok : EXIT.budget;
  } finally {
    await sandbox?.close();
  }
}

/**
 * The account lines `plan` adds for a real service: a quick user_data call (one attempt, 10 s at most). Never
 * throws: when the service cannot be reached or refuses, one line says so and the plan stands.
 */
export async function accountLines(config: Config, costUsd: number): Promise<string[]> {
  if (config.api.base_url === 'sandbox') return [];
  try {
    const { client } = await accountClient(config, { retries: 0, timeoutMs: Math.min(config.api.timeout_ms, 10_000) });
    const account = await fetchAccount(client);
    return [...formatAccount(account), `plan: ${compareBalance(account, costUsd).message}`];
  } catch (err) {
    return [`account: not checked (${err instanceof Error ? err.message : String(err)})`];
  }
}
