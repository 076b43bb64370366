/** E13: errors of the last 7 days (failed pingback/postback deliveries, domain-analytics task errors). */
import type { LiveCompute } from '../../family.js';
import { parseTimestamp } from '../../../api/envelope.js';
import { DAY_MS } from '../../clock.js';

export const computeErrors: LiveCompute = (task, req, ctx) => {
  const since = req.now - 7 * DAY_MS;
  const from = typeof task.datetime_from === 'string' ? parseTimestamp(task.datetime_from)!.getTime() : since;
  const to = typeof task.datetime_to === 'string' ? parseTimestamp(task.datetime_to)!.getTime() : Infinity;
  const fn = task.filtered_function as string | undefined;
  const limit = (task.limit as number | undefined) ?? 1000;
  const offset = (task.offset as number | undefined) ?? 0;
  // Newest first, as an error log is read.
  const rows = ctx.records.errors
    .filter((e) => e.at >= Math.max(since, from) && e.at <= to && (!fn || e.function === fn))
    .reverse()
    .slice(offset, offset + limit)
    .map(({ at: _at, ...e }) => e);
  return { result: rows };
};
