/**
 * The sandbox's account: the funds it started with, the daily cost limit, the duplicate-task limits and the
 * endpoints it has no access to, as the live service answers them (docs/api-live.md, `## Limits and account`).
 * Set from the test controls; by default nothing limits (funds 1000 USD).
 */
import { DAY_MS } from './clock.js';
import type { Records } from './records.js';

export interface AccountSettings {
  /** USD deposited; the balance is this minus what was charged. */
  funds: number;
  /** USD the account may spend per UTC day (40203 past it); null: no limit. */
  dailyCostLimit: number | null;
  /** Equal tasks (same endpoint and parameters) allowed per hour (40205) and per day (40206); null: no limit. */
  duplicatesPerHour: number | null;
  duplicatesPerDay: number | null;
  /** Endpoint ids the account may not use (40204 Access denied). */
  deniedEndpoints: string[];
  /** Endpoint ids the service no longer has (HTTP 404, as the live service answers a retired endpoint). */
  retiredEndpoints?: string[];
}

export const DEFAULT_ACCOUNT: AccountSettings = { funds: 1000, dailyCostLimit: null, duplicatesPerHour: null, duplicatesPerDay: null, deniedEndpoints: [] };

const HOUR_MS = 3_600_000;

export class SandboxAccount {
  settings: AccountSettings = { ...DEFAULT_ACCOUNT, deniedEndpoints: [] };
  /** When each task seed was accepted, for the duplicate limits. */
  private seen = new Map<number, number[]>();

  constructor(private readonly records: Records) {}

  set(patch: Partial<AccountSettings>): AccountSettings {
    this.settings = { ...this.settings, ...patch, deniedEndpoints: [...(patch.deniedEndpoints ?? this.settings.deniedEndpoints)] };
    return this.settings;
  }

  balance(): number {
    return Math.round((this.settings.funds - this.records.billed()) * 1e6) / 1e6;
  }

  /** USD charged since the start of the UTC day of `now`. */
  spentToday(now: number): number {
    const from = Math.floor(now / DAY_MS) * DAY_MS;
    return Math.round(this.records.charges.filter((c) => c.at >= from).reduce((a, c) => a + c.cost, 0) * 1e6) / 1e6;
  }

  /** The refusal a paid call gets before anything is done, or null: 40200 (HTTP 402) or 40203. */
  refusePaid(now: number): { code: 40200 | 40203; httpStatus: number; detail: string } | null {
    if (this.balance() <= 0) return { code: 40200, httpStatus: 402, detail: `the balance is ${this.balance()} USD` };
    const limit = this.settings.dailyCostLimit;
    if (limit !== null && this.spentToday(now) >= limit) return { code: 40203, httpStatus: 200, detail: `the account's daily cost limit of ${limit} USD is reached` };
    return null;
  }

  retired(endpointId: string): boolean {
    return this.settings.retiredEndpoints?.includes(endpointId) ?? false;
  }

  denied(endpointId: string): boolean {
    return this.settings.deniedEndpoints.includes(endpointId);
  }

  /** Counts a task about to be accepted; 40205/40206 when it is a duplicate past the account's limit (not counted then). */
  duplicate(seed: number, now: number): { code: 40205 | 40206; detail: string } | null {
    const { duplicatesPerHour: hour, duplicatesPerDay: day } = this.settings;
    if (hour === null && day === null) return null;
    const times = (this.seen.get(seed) ?? []).filter((t) => now - t < DAY_MS);
    if (hour !== null && times.filter((t) => now - t < HOUR_MS).length >= hour) return { code: 40205, detail: `the same task was set ${hour} times in the last hour` };
    if (day !== null && times.length >= day) return { code: 40206, detail: `the same task was set ${day} times in the last day` };
    times.push(now);
    this.seen.set(seed, times);
    return null;
  }

  reset(): void {
    this.settings = { ...DEFAULT_ACCOUNT, deniedEndpoints: [] };
    this.seen.clear();
  }
}
