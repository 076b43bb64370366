/** The live service's public status codes and messages (the API reference's partial list: the service's own is longer), and how a client treats each. */
export const STATUS = {
  20000: 'Ok.',
  20100: 'Task Created.',
  40000: 'You can set only one task at a time.',
  40001: 'This id is used by another client, check the id.',
  40002: 'This id is used by another search engine, check the Path.',
  40003: 'This id is used by another search type, check the Path.',
  40004: 'This id is used by another function, check the id.',
  40006: 'You can set no more than 100 tasks at a time.',
  40100: 'You are not authorized to access this resource.',
  40101: 'Internal SE Server Error.',
  40102: 'No Search Results.',
  40103: 'Task execution failed, please try to resubmit the task.',
  40200: 'Payment Required.',
  40201: 'Our algorithms found suspicious activity in your account. It has been temporarily blocked. For further details please contact our support team.',
  40202: 'The rate-limit per minute has been exceeded.',
  40203: 'The cost limit has been exceeded.',
  40204: 'Access denied.',
  40205: 'The duplicate task limit per hour has been exceeded.',
  40206: 'The duplicate task limit per day has been exceeded.',
  40207: 'Access denied. Your IP is not whitelisted. You can modify your IP whitelist in the user panel.',
  40400: 'Not Found.',
  40401: 'Task Not Found.',
  40402: 'Invalid Path.',
  40403: 'Results Expired.',
  40404: 'No Prepared Data Found. Please Contact Our Support Team.',
  40501: 'Invalid Field.',
  40502: 'POST Data Is Empty.',
  40503: 'POST Data Is Invalid.',
  40504: 'The number of intersecting keywords for the specified domains exceeds 10 million. Try specifying different domains.',
  40505: 'You are using old data.',
  40506: 'Unknown Fields in POST Data.',
  40601: 'Task Handed.',
  40602: 'Task In Queue.',
  50000: 'Internal Error.',
  50001: 'Error While Checking the Balance.',
  50100: 'Not Implemented.',
  50301: '3rd Party API Service Unavailable.',
  50303: 'Update in progress. Please try after a few minutes.',
  50304: 'This function temporarily unavailable. Please contact support for more information.',
  50401: 'Internal Error - Timeout.',
} as const satisfies Record<number, string>;

export type StatusCode = keyof typeof STATUS;

export const RATE_LIMIT_CODE = 40202;
export const NOT_READY_CODES: ReadonlySet<number> = new Set([40601, 40602]);

export function statusMessage(code: number): string {
  return (STATUS as Record<number, string>)[code] ?? 'Unknown status.';
}

/** A task is in error when its status is 40000 or more, or it has no result (task posts excepted: 20100 carries null). */
export function isTaskError(statusCode: number): boolean {
  return statusCode >= 40000;
}

export type Disposition = 'ok' | 'retry' | 'slow_down' | 'not_ready' | 'fatal';

/**
 * What a client does with a status: retry 50000-range and rate-limit answers (the latter after slowing down),
 * wait on 40601/40602, and never retry authorization, payment or validation errors.
 */
export function dispositionOf(code: number): Disposition {
  if (code < 40000) return 'ok';
  if (code === RATE_LIMIT_CODE) return 'slow_down';
  if (NOT_READY_CODES.has(code)) return 'not_ready';
  if (code >= 50000) return 'retry';
  return 'fatal';
}

/** HTTP statuses worth another try: 5xx, 408 and 429. 401/402/404 are final. */
export function isRetryableHttp(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * What the user can do about an answer that refuses the account or one of its tasks; each is final for the run
 * (the client never retries them) and `seo-etl resume` picks up what was not done once it is fixed.
 */
export const ACCOUNT_ADVICE: Readonly<Record<number, string>> = {
  401: 'the service refused the credentials: check SEO_ETL_LOGIN and SEO_ETL_PASSWORD (`seo-etl check` tries them for free)',
  40100: 'the service refused the credentials: check SEO_ETL_LOGIN and SEO_ETL_PASSWORD (`seo-etl check` tries them for free)',
  402: 'the account has no money left: top up the balance, then `seo-etl resume`',
  40200: 'the account has no money left: top up the balance, then `seo-etl resume`',
  40203: "the account's daily cost limit is reached: raise it in the dashboard or `seo-etl resume` tomorrow",
  40204: 'the account has no access to this endpoint: enable the API in the dashboard or drop the step',
  40205: "the account's duplicate-task limit per hour is reached: these tasks repeat ones set in the last hour; resume later or raise the limit",
  40206: "the account's duplicate-task limit per day is reached: these tasks repeat ones set today; resume tomorrow or raise the limit",
  40207: "this machine's IP address is not in the account's whitelist",
};

export function accountAdvice(code: number): string | undefined {
  return ACCOUNT_ADVICE[code];
}
