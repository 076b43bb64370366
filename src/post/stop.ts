/**
 * Why posting stops, and for how much of the run. An answer about the account (credentials, payment, the daily cost
 * limit, the duplicate-task limits, an endpoint it may not use) stops all posting: the refused tasks go back to
 * `planned` with the answer, what was posted is still collected, and `resume` posts the rest once the account is
 * fixed (exit 5). An endpoint the service no longer has (HTTP 404) fails its step only: the rest of the run goes on
 * (exit 1) and `resume` does not ask for it again. The budget leaves what does not fit `planned` (exit 4).
 */
import { ApiError } from '../api/client.js';
import { accountAdvice } from '../api/status.js';
import { EXIT } from '../exit.js';

/** Envelope and HTTP statuses that refuse the account, not one task: posting stops for the whole run. */
const ACCOUNT_CODES: ReadonlySet<number> = new Set([401, 402, 403, 40100, 40200, 40201, 40203, 40204, 40205, 40206, 40207]);

export type RefusalKind = 'account' | 'retired' | 'request';

/** What a refusal means for posting. Pure. */
export function refusalKind(code: number, httpStatus: number | undefined): RefusalKind {
  if (ACCOUNT_CODES.has(code) || (httpStatus !== undefined && ACCOUNT_CODES.has(httpStatus))) return 'account';
  if (httpStatus === 404) return 'retired';
  return 'request';
}

export interface PostStop {
  code: number;
  httpStatus?: number;
  /** What happened and what to do, in one sentence. */
  message: string;
  step?: string;
  endpointId?: string;
  /** The run's exit code when this stops it (5 by default; 7 when the service could not be reached). */
  exitCode?: number;
}

/** Shared by the stages that post (posting, live calls) for one attempt of a run. */
export interface Stops {
  /** Set by the first account answer: nothing more is posted this attempt. */
  account?: PostStop;
  /** Steps whose endpoint the service answered HTTP 404: failed, the rest of the run goes on. (The budget's stops are its own: Budget.stoppedSteps.) */
  retired: Map<string, PostStop>;
}

export function newStops(): Stops {
  return { retired: new Map() };
}

/** The account's answer as a stop: the service's words and what to do about them. */
export function accountStop(code: number, httpStatus: number | undefined, serviceMessage: string, where: { step?: string; endpointId?: string } = {}): PostStop {
  const advice = accountAdvice(code) ?? (httpStatus !== undefined ? accountAdvice(httpStatus) : undefined);
  const message = advice && !serviceMessage.includes(advice) ? `${serviceMessage} (${advice})` : serviceMessage;
  return { code, ...(httpStatus !== undefined ? { httpStatus } : {}), message, ...where };
}

/** An error that is the account's answer, as a stop; undefined for anything else. */
export function accountStopOf(err: unknown): PostStop | undefined {
  if (!(err instanceof ApiError) || refusalKind(err.code, err.httpStatus) !== 'account') return undefined;
  return accountStop(err.code, err.httpStatus, err.message, { endpointId: err.endpointId });
}

/** A 404 as the step's failure: which endpoint, which step, and that resume will not ask again. */
export function retiredStop(err: ApiError, step: string): PostStop {
  return {
    code: err.code,
    httpStatus: err.httpStatus,
    endpointId: err.endpointId,
    step,
    message: `the service has no endpoint ${err.path} (HTTP 404: retired or not offered): step ${step} (${err.endpointId}) failed; the other steps ran`,
  };
}

/** Lines for the run's summary: what stopped posting and why. */
export function stopLines(stops: Stops): string[] {
  const lines: string[] = [];
  const a = stops.account;
  if (a) lines.push(`stopped posting: ${a.message}${a.step ? ` (step ${a.step})` : ''}${a.message.includes('resume') ? '' : "; nothing fetched is lost: run 'seo-etl resume' once the account is fixed"}`);
  for (const s of stops.retired.values()) lines.push(`endpoint gone: ${s.message}`);
  return lines;
}

/** The exit code the stops decide, before the budget's and the failed tasks': an account stop is 5 (or its own). */
export function stopExitCode(stops: Stops): number | undefined {
  return stops.account ? stops.account.exitCode ?? EXIT.refused : undefined;
}
