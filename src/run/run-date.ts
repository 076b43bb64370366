/**
 * A run date after today is refused (exit 2) before anything is opened: such a run wrote its rows under that day,
 * and the real nightly of that day then found its run done ("completed (resumed)", no rows loaded). "Today" is the
 * account's: the service's `user_data` states its time zone. A sandbox may be run ahead on purpose
 * (`--allow-future-date`), to try several days.
 */
import { isTimeZoneName, type Config } from '../config/index.js';
import { accountClient, fetchAccount } from '../check/index.js';
import type { Service } from '../config/service.js';
import { UserError } from '../exit.js';

/** The calendar day of `now` in `timeZone`, yyyy-mm-dd. Pure. */
export function dayIn(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const part = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Today where it is earliest (UTC-12) and latest (UTC+14): a day between them is today somewhere. */
const EARLIEST = 'Etc/GMT+12';
const LATEST = 'Etc/GMT-14';

/** Why a run may not be for `runDate`, or undefined. `timeZone`: the account's (null: not known, UTC taken). Pure. */
export function futureRunDateRefusal(o: { runDate: string; now: Date; timeZone: string | null; sandbox: boolean; allowFuture: boolean }): string | undefined {
  const zone = o.timeZone !== null && isTimeZoneName(o.timeZone) ? o.timeZone : 'UTC';
  const today = dayIn(o.now, zone);
  if (o.allowFuture && !o.sandbox) {
    return `--allow-future-date is for a sandbox only: a run of the live service is for today (${today} in the account's time zone, ${zone}) or an earlier day`;
  }
  if (o.runDate <= today || o.allowFuture) return undefined;
  return `--run-date ${o.runDate} is after today (${today} in the account's time zone, ${zone}${o.timeZone === null ? ': the service did not state one' : ''}): ` +
    `its rows would be written under that day, and that day's own run would find the run done and load nothing. Give today or an earlier day` +
    (o.sandbox ? `, or --allow-future-date to run a sandbox ahead on purpose` : '');
}

/** Whether the account's time zone matters: the day is today somewhere on Earth but not everywhere. Pure. */
export function needsAccountZone(runDate: string, now: Date): boolean {
  return runDate > dayIn(now, EARLIEST) && runDate <= dayIn(now, LATEST);
}

/**
 * The account's time zone, as `user_data` states it: asked only when the day depends on it. The embedded sandbox's
 * account is on UTC; a service that cannot be asked is taken as UTC (the account check says why before posting).
 */
export async function accountTimeZone(config: Config, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (config.api.base_url === 'sandbox') return config.sandbox.account_timezone;
  try {
    const { client } = await accountClient(config, { env, retries: 0, timeoutMs: Math.min(config.api.timeout_ms, 10_000) });
    return (await fetchAccount(client)).timeZone;
  } catch {
    return null;
  }
}

/** Refuses (exit 2) a `--run-date` after the account's today, unless a sandbox is run ahead on purpose. */
export async function refuseFutureRunDate(o: { runDate: string; now: Date; config: Config; env: NodeJS.ProcessEnv; service: Service; allowFuture: boolean }): Promise<void> {
  const sandbox = o.service.kind === 'sandbox';
  const zone = o.allowFuture || needsAccountZone(o.runDate, o.now) ? await accountTimeZone(o.config, o.env) : 'UTC';
  const why = futureRunDateRefusal({ runDate: o.runDate, now: o.now, timeZone: zone, sandbox, allowFuture: o.allowFuture });
  if (why) throw new UserError(why);
}
