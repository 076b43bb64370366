/**
 * The catalog's own tables: one row per task (`tasks`, with the request echoes every family adds as task columns),
 * the ready lists and the catch-all for results no table describes; then every family's declared tables.
 */
import { c, ts, scalarChild } from './declare.js';
import type { FamilyDef } from './family.js';
import type { ColumnDef, TableDef } from './table.js';

/** The columns of `tasks` every task has: the answer's status, cost and timing, and the request echoes in `data`. */
const TASK_COLUMNS: readonly ColumnDef[] = [
  c('endpoint_id', 'VARCHAR', 'Catalog endpoint that returned the task (for example `keywords_for_site.task_get`).', '$endpoint_id'),
  c('api_version', 'VARCHAR', 'The `version` the API answered with.', '$version'),
  c('status_code', 'INTEGER', 'Task status code; 40000 and above is an error.'),
  c('status_message', 'VARCHAR', 'Task status message.'),
  c('cost', 'DOUBLE', 'What the service reported in this answer, USD. A SERP `task_get` answer reports the task\'s final cost (after refunds); other `task_get` answers the free GET\'s (0), NOT what the task was billed. The billed cost (from the ledger) is `billed_cost_usd` in `v_task_costs` (and `cost` in the ledger table `_tasks`).'),
  c('time_seconds', 'DOUBLE', 'Execution time, seconds.', 'time', 'seconds'),
  c('result_count', 'BIGINT', 'Number of elements in `result`.'),
  c('path', 'VARCHAR', 'URL path segments of the call, joined with `/`.', 'path', 'join_path'),
  c('api', 'VARCHAR', 'API family (`data.api`).', 'data.api'),
  c('function', 'VARCHAR', 'API function (`data.function`).', 'data.function'),
  c('se', 'VARCHAR', 'Search engine (`data.se`), as the service names it.', 'data.se'),
  c('se_type', 'VARCHAR', 'Search engine type (`data.se_type`).', 'data.se_type'),
  c('tag', 'VARCHAR', 'User-defined task tag (`data.tag`).', 'data.tag'),
  c('keyword', 'VARCHAR', 'Keyword of the task (`data.keyword`).', 'data.keyword'),
  c('target', 'VARCHAR', 'Target domain (`data.target`).', 'data.target'),
  c('location_code', 'BIGINT', 'Location code (`data.location_code`).', 'data.location_code'),
  c('location_name', 'VARCHAR', 'Location name (`data.location_name`).', 'data.location_name'),
  c('location_coordinate', 'VARCHAR', 'Location coordinate (`data.location_coordinate`).', 'data.location_coordinate'),
  c('language_code', 'VARCHAR', 'Language code (`data.language_code`).', 'data.language_code'),
  c('language_name', 'VARCHAR', 'Language name (`data.language_name`).', 'data.language_name'),
  c('se_domain', 'VARCHAR', 'Search engine domain (`data.se_domain`).', 'data.se_domain'),
  c('device', 'VARCHAR', 'Device (`data.device`).', 'data.device'),
  c('os', 'VARCHAR', 'Operating system (`data.os`).', 'data.os'),
  c('depth', 'BIGINT', 'Requested number of results (`data.depth`).', 'data.depth'),
  c('max_crawl_pages', 'BIGINT', 'Requested result pages (`data.max_crawl_pages`).', 'data.max_crawl_pages'),
  c('priority', 'INTEGER', 'Task priority (`data.priority`).', 'data.priority'),
  c('date_range', 'VARCHAR', 'Events date range (`data.date_range`).', 'data.date_range'),
  c('search_partners', 'BOOLEAN', 'Whether partner networks were included (`data.search_partners`).', 'data.search_partners'),
  c('sort_by', 'VARCHAR', 'Requested sort order (`data.sort_by`).', 'data.sort_by'),
  c('price_min', 'DOUBLE', 'Minimum price filter (`data.price_min`).', 'data.price_min'),
  c('price_max', 'DOUBLE', 'Maximum price filter (`data.price_max`).', 'data.price_max'),
  c('url', 'VARCHAR', 'URL given with the task (`data.url`).', 'data.url'),
  c('text', 'VARCHAR', 'Text to paraphrase (`data.text`).', 'data.text'),
  c('creativity_index', 'DOUBLE', 'Paraphrase creativity (`data.creativity_index`).', 'data.creativity_index'),
  c('crawl_task_id', 'VARCHAR', 'On-page crawl task id (`data.id`).', 'data.id'),
  c('mode', 'VARCHAR', 'Search mode (`data.mode`).', 'data.mode'),
  c('limit', 'BIGINT', 'Page size (`data.limit`).', 'data.limit'),
  c('offset', 'BIGINT', 'Offset (`data.offset`).', 'data.offset'),
  c('offset_token', 'VARCHAR', 'Offset token (`data.offset_token`).', 'data.offset_token'),
  c('search_after_token', 'VARCHAR', 'Search-after token (`data.search_after_token`).', 'data.search_after_token'),
  c('filtered_function', 'VARCHAR', 'Function filter (`data.filtered_function`).', 'data.filtered_function'),
  ts('datetime_from', 'Start of the requested window (`data.datetime_from`).', 'data.datetime_from'),
  ts('datetime_to', 'End of the requested window (`data.datetime_to`).', 'data.datetime_to'),
  c('filters', 'JSON', 'Filter expression as sent (`data.filters`), a nested condition list.', 'data.filters', 'json'),
  c('relevant_pages_filters', 'JSON', 'Page filter expression as sent (`data.relevant_pages_filters`).', 'data.relevant_pages_filters', 'json'),
  c('order_by', 'JSON', 'Sort rules as sent (`data.order_by`).', 'data.order_by', 'json'),
  c('pingback_url', 'VARCHAR', 'Pingback URL (`data.pingback_url`).', 'data.pingback_url'),
  c('postback_url', 'VARCHAR', 'Postback URL (`data.postback_url`).', 'data.postback_url'),
  c('postback_data', 'VARCHAR', 'Postback result type (`data.postback_data`).', 'data.postback_data'),
];

/** The core tables, then every family's declared ones (in use in every warehouse), in the registry's order. */
export function coreTables(families: readonly FamilyDef[]): TableDef[] {
  return [
    {
      name: 'tasks', parent: null, extra: true,
      description: 'One row per collected task (failed ones included): status, timing, the API version that answered, and the echo of the request parameters (`data`). Result tables join on `_task_id`.',
      columns: [...TASK_COLUMNS, ...families.flatMap((f) => f.taskColumns ?? [])],
      ignored: [{ path: 'id', why: 'in `_task_id`' }, { path: 'result', why: 'rows of the result tables' }],
    },
    scalarChild('tasks__keywords', 'tasks', 'data.keywords', c('keyword', 'VARCHAR', 'One of the keywords given with the task.', '$'), 'Keywords echoed in a task\'s `data.keywords`, one row each.'),
    scalarChild('tasks__search_terms', 'tasks', 'data.search_terms', c('search_term', 'VARCHAR', 'One of the HTML search terms given with the task.', '$'), 'HTML search terms echoed in a task\'s `data.search_terms`, one row each.'),

    // Lists.
    {
      name: 'ready_tasks', parent: null, resultKind: 'ready_list', extra: true,
      description: 'Ready-task lists (tasks_ready): tasks completed and not collected yet, as listed at the time of the call.',
      columns: [
        c('ready_task_id', 'VARCHAR', 'Id of the completed task.', 'id'),
        c('se', 'VARCHAR', 'Search engine.'),
        c('se_type', 'VARCHAR', 'Search engine type.'),
        ts('date_posted', 'When the task was posted (UTC).'),
        c('tag', 'VARCHAR', 'User-defined task tag.'),
        c('endpoint', 'VARCHAR', 'Result path (keywords data).'),
        c('endpoint_regular', 'VARCHAR', 'Path of the regular result.'),
        c('endpoint_advanced', 'VARCHAR', 'Path of the advanced result.'),
        c('endpoint_html', 'VARCHAR', 'Path of the HTML result.'),
      ],
    },
    // Catch-all for results no table describes (an endpoint outside the catalog, met by ingest).
    {
      name: 'unknown_results', parent: null, extra: false,
      description: 'Results of endpoints the catalog has no table for, kept whole so nothing is lost (one row per `result` element).',
      columns: [c('path', 'VARCHAR', 'Path of the call.', '$path'), c('result', 'JSON', 'The result element as JSON.', '$', 'json')],
    },
    ...families.flatMap((f) => f.tables ?? []),
  ];
}

