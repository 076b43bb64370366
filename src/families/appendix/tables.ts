/** The account (appendix/user_data, live service): what `seo-etl check` reads, when a user_data answer is loaded. */
import type { TableDef } from '../../normalize/catalog.js';
import { c } from '../../normalize/declare.js';

export const APPENDIX_TABLES: readonly TableDef[] = [
  {
    name: 'account_user_data', parent: null, resultKind: 'user_data', extra: true,
    description: 'Account snapshots (appendix/user_data): balance, spending limit and rate limit; usage statistics and prices stay in `extra`.',
    columns: [
      c('login', 'VARCHAR', 'Account login.'),
      c('timezone', 'VARCHAR', 'Account time zone.'),
      c('money_total', 'DOUBLE', 'USD deposited in total.', 'money.total'),
      c('money_balance', 'DOUBLE', 'USD left.', 'money.balance'),
      c('money_day_limit', 'DOUBLE', 'USD the account may spend per day; null without a limit.', 'money.limits.day.total'),
      c('money_spent_today', 'DOUBLE', 'USD spent today.', 'money.statistics.day.total'),
      c('calls_per_minute_limit', 'BIGINT', 'API calls allowed per minute.', 'rates.limits.minute.total'),
    ],
  },

];
