/**
 * The account check before anything is posted: the free `appendix/user_data` call (src/check) proves that the
 * service answers and takes the credentials, and that the account has money. A refused connection or refused
 * credentials stop the run here, with one clear line, instead of posting into them. The embedded sandbox is not
 * asked: it is started with the credentials it checks and the funds it has.
 */
import { ApiError } from '../api/client.js';
import type { Logger } from '../log/logger.js';
import type { Config } from '../config/index.js';
import { accountClient, summarizeUserData, type AccountSummary } from '../check/index.js';
import { EXIT } from '../exit.js';
import { accountStop, refusalKind, type PostStop } from '../post/stop.js';

export type PreflightResult =
  | { ok: true; account?: AccountSummary }
  /** `collects`: what an earlier attempt posted can still be collected (the service answers, only posting is refused). */
  | { ok: false; stop: PostStop; exitCode: number; collects: boolean };

/** Codes after which no call of the account can succeed: nothing is collected either. */
const NOTHING_ANSWERS: ReadonlySet<number> = new Set([401, 40100, 40201, 40207]);

/** How long the account check waits for each answer. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

export async function preflight(config: Config, env: NodeJS.ProcessEnv | undefined, logger: Logger): Promise<PreflightResult> {
  if (config.api.base_url === 'sandbox') return { ok: true };
  // One retry, each attempt at most 10 s: a refused connection fails in milliseconds, a service that accepts
  // connections and never answers in 20 s (the configured retries made it 70 s before anything was said).
  const { client } = await accountClient(config, { env, logger, retries: Math.min(config.api.retries, 1), timeoutMs: Math.min(config.api.timeout_ms, PREFLIGHT_TIMEOUT_MS) });
  let outcome;
  try {
    outcome = await client.list('appendix.user_data');
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (refusalKind(err.code, err.httpStatus) === 'account') {
      return { ok: false, stop: accountStop(err.code, err.httpStatus, err.message), exitCode: EXIT.refused, collects: !NOTHING_ANSWERS.has(err.code) && !NOTHING_ANSWERS.has(err.httpStatus) };
    }
    logger.warn({ code: err.code, http_status: err.httpStatus }, `the account could not be checked (${err.message}); posting anyway`);
    return { ok: true };
  }
  if (!outcome.ok) {
    const e = outcome.error;
    if (e.transport === 'network' || e.transport === 'timeout') {
      const message = `the service at ${config.api.base_url} could not be reached (${e.message}); nothing was posted: check SEO_ETL_API_BASE_URL and the network, then 'seo-etl resume'`;
      return { ok: false, stop: { code: e.code, message }, exitCode: EXIT.unreachable, collects: false };
    }
    logger.warn({ code: e.code }, `the account could not be checked (${e.message}); posting anyway`);
    return { ok: true };
  }
  const account = summarizeUserData(outcome.task.result?.[0]);
  if (account.balance !== null && account.balance <= 0) {
    return { ok: false, stop: accountStop(40200, 402, `the account's balance is $${account.balance.toFixed(4)}`), exitCode: EXIT.refused, collects: true };
  }
  logger.info({ login: account.login, balance_usd: account.balance, daily_cost_limit_usd: account.dailyCostLimit, spent_today_usd: account.spentToday }, 'account checked');
  return { ok: true, account };
}
