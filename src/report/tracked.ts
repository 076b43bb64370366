/** Tracked domains, as the SERP views count them: the domain itself or any subdomain of it (blog.client.com for client.com). */

/** SQL: `col` is one of the tracked domains bound as list parameter `$n`, or a subdomain of one. */
export const trackedDomain = (col: string, n: number) => `EXISTS (SELECT 1 FROM unnest($${n}::VARCHAR[]) AS t(d) WHERE ${col} = t.d OR ends_with(${col}, '.' || t.d))`;

export const isTracked = (domain: string, domains: readonly string[]) => domains.some((d) => domain === d || domain.endsWith(`.${d}`));
