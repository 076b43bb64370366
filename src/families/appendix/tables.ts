/** The account (appendix/user_data, live service): what `seo-etl check` reads, when a user_data answer is loaded. */
import type { TableDef } from '../../catalog/table.js';
import { c, ts } from '../../catalog/declare.js';

export const APPENDIX_TABLES: readonly TableDef[] = [
  {
    name: 'account_user_data', parent: null, resultKind: 'user_data', extra: true,
    description: 'Account snapshots (appendix/user_data): balance, spending limit and rate limit; the limits, usage statistics and prices per API as JSON.',
    columns: [
      c('login', 'VARCHAR', 'Account login.'),
      c('timezone', 'VARCHAR', 'Account time zone.'),
      c('money_total', 'DOUBLE', 'USD deposited in total.', 'money.total'),
      c('money_balance', 'DOUBLE', 'USD left.', 'money.balance'),
      c('money_day_limit', 'DOUBLE', 'USD the account may spend per day; null without a limit.', 'money.limits.day.total'),
      c('money_spent_today', 'DOUBLE', 'USD spent today.', 'money.statistics.day.total'),
      c('calls_per_minute_limit', 'BIGINT', 'API calls allowed per minute.', 'rates.limits.minute.total'),
      // Hundreds of figures per API and function (rates.limits.day.serp.task_post, ...): one JSON value each.
      c('rate_limits', 'JSON', 'Calls allowed per day and per minute, per API and function, as JSON.', 'rates.limits', 'json'),
      c('rate_statistics', 'JSON', 'Calls made today and this minute, per API and function, as JSON.', 'rates.statistics', 'json'),
      c('money_limits', 'JSON', 'USD the account may spend per day and per minute, per API and function, as JSON.', 'money.limits', 'json'),
      c('money_statistics', 'JSON', 'USD spent today and this minute, per API and function, as JSON.', 'money.statistics', 'json'),
      c('price', 'JSON', 'The account\'s price of every function, per API and priority, as JSON.', 'price', 'json'),
      ts('backlinks_subscription_expiry_date', 'When the Backlinks subscription ends (UTC); null without a subscription.'),
      ts('llm_mentions_subscription_expiry_date', 'When the LLM Mentions subscription ends (UTC); null without a subscription.'),
    ],
  },

];
