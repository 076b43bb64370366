/** Views over the on-page resource tables. */
import { col, type ViewDef } from '../../catalog/view.js';
import { snapshotDate, SNAPSHOT_DATE } from '../../catalog/snapshot-date.js';


/** Host of a URL, lower-case, without a leading `www.`. */
const siteOf = (expr: string) => `nullif(regexp_replace(lower(regexp_extract(${expr}, '^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#]+)', 1)), '^www\\.', ''), '')`;

export const VIEWS: readonly ViewDef[] = [
  {
    name: 'v_resource_problems',
    question: 'Which sites have broken, slow or badly served resources, and of what type?',
    grain: 'one row per snapshot day, site and resource type.',
    notes: 'From `onpage_resources__items` with their `__errors` and `__warnings`. The site is the resource URL\'s host without `www.`. A URL met more than once on a day (pages of a crawl) counts once, as last loaded. A check the service did not report for a resource type is null and counts as no problem.',
    columns: [
      SNAPSHOT_DATE,
      col('site', 'Host of the resource URL, lower-case, without `www.`.'),
      col('resource_type', 'script, image, stylesheet or broken.'),
      col('resources', 'Distinct resource URLs.'),
      col('resources_with_problems', 'Resources with at least one of the problems counted here.'),
      col('broken', 'Resources flagged broken (`check_is_broken`).'),
      col('client_errors', 'Resources answering 4xx (`check_is_4xx_code`).'),
      col('server_errors', 'Resources answering 5xx (`check_is_5xx_code`).'),
      col('redirects', 'Resources that redirect (`check_is_redirect`).'),
      col('slow', 'Resources with a high loading time (`check_high_loading_time`).'),
      col('uncompressed', 'Resources served without content encoding (`check_no_content_encoding`).'),
      col('not_minified', 'Resources reported not minified (`check_is_minified` false).'),
      col('not_https', 'Resources not served over HTTPS (`check_is_https` false).'),
      col('resources_with_errors', 'Resources with at least one parse error.'),
      col('errors', 'Parse errors (`onpage_resources__items__errors` rows).'),
      col('warnings', 'Warnings (`onpage_resources__items__warnings` rows).'),
      col('total_size_bytes', 'Sum of the resources\' sizes, bytes.'),
    ],
    select: `
WITH ranked AS (
  SELECT ${snapshotDate('i')} AS snapshot_date, ${siteOf('i.url')} AS site, coalesce(i.resource_type, 'unknown') AS resource_type,
         i._id, i.size, i.check_is_broken, i.check_is_4xx_code, i.check_is_5xx_code, i.check_is_redirect, i.check_high_loading_time,
         i.check_no_content_encoding, i.check_is_minified, i.check_is_https,
         row_number() OVER (PARTITION BY ${snapshotDate('i')}, coalesce(i.url, i._id) ORDER BY i._loaded_at DESC, i._id DESC) AS rn
  FROM onpage_resources__items i LEFT JOIN _runs r ON r.run_id = i._run_id
), res AS (
  SELECT * FROM ranked WHERE rn = 1
), errs AS (
  SELECT _parent_id, count(*) AS n FROM onpage_resources__items__errors GROUP BY _parent_id
), warns AS (
  SELECT _parent_id, count(*) AS n FROM onpage_resources__items__warnings GROUP BY _parent_id
), flagged AS (
  SELECT res.*, coalesce(e.n, 0) AS error_count, coalesce(w.n, 0) AS warning_count,
         coalesce(check_is_broken, false) OR coalesce(check_is_4xx_code, false) OR coalesce(check_is_5xx_code, false)
           OR coalesce(check_high_loading_time, false) OR coalesce(check_no_content_encoding, false)
           OR check_is_minified IS NOT DISTINCT FROM false OR check_is_https IS NOT DISTINCT FROM false OR coalesce(e.n, 0) > 0 AS has_problem
  FROM res LEFT JOIN errs e ON e._parent_id = res._id LEFT JOIN warns w ON w._parent_id = res._id
)
SELECT snapshot_date, site, resource_type,
       count(*) AS resources,
       count(*) FILTER (WHERE has_problem) AS resources_with_problems,
       count(*) FILTER (WHERE check_is_broken) AS broken,
       count(*) FILTER (WHERE check_is_4xx_code) AS client_errors,
       count(*) FILTER (WHERE check_is_5xx_code) AS server_errors,
       count(*) FILTER (WHERE check_is_redirect) AS redirects,
       count(*) FILTER (WHERE check_high_loading_time) AS slow,
       count(*) FILTER (WHERE check_no_content_encoding) AS uncompressed,
       count(*) FILTER (WHERE check_is_minified = false) AS not_minified,
       count(*) FILTER (WHERE check_is_https = false) AS not_https,
       count(*) FILTER (WHERE error_count > 0) AS resources_with_errors,
       sum(error_count) AS errors,
       sum(warning_count) AS warnings,
       sum(size) AS total_size_bytes
FROM flagged
GROUP BY snapshot_date, site, resource_type`,
  },
];
