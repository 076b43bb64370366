/**
 * The one rule for "the client's rank": a host counts for a tracked domain when it is that domain or one of its
 * subdomains (blog.client.com for client.com), and a tracked domain's rank on a page is the best organic position
 * among the hosts that count for it. v_serp_tracked_ranks is written with it (views.ts, trackedRanksSelect); the
 * report and the alerts read that view, or its SQL over other tracked domains, and never rank hosts apart.
 */

/** SQL: the host `d` counts for the tracked domain `tracked` (both lower-case, without `www.`). */
export const countsFor = (d: string, tracked: string) => `(${d} = ${tracked} OR right(${d}, length(${tracked}) + 1) = '.' || ${tracked})`;

/** SQL: the host `d` counts for one of the tracked domains bound as the list parameter `$n`. */
export const countsForAny = (d: string, n: number) => `EXISTS (SELECT 1 FROM unnest($${n}::VARCHAR[]) AS t(d) WHERE ${countsFor(d, 't.d')})`;
