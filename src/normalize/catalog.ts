/**
 * The table catalog: every output table declared once. A declaration names the table, its parent, where its rows
 * come from in a task result, and each column with its DuckDB type, its JSON path (relative to the row's source
 * object) and a description. Everything else is derived from it: the JS extractor (extract.ts), the DDL and schema
 * evolution (src/load/ddl.ts), the SQL fast path over the raw archive (src/load/sql-path.ts), the Parquet export and
 * the data dictionary docs/tables.md (docs.ts).
 *
 * Lineage columns are added to every table by `lineageColumns` and are not declared per table:
 * `_id` (deterministic row id), `_task_id`, `_run_id`, `_loaded_at`, and on child tables `_parent_id`, `_list_idx`.
 * Row ids are hierarchical text: a task's result row is `<task_id>:<i>`, its children `<parent _id>:<j>`; the
 * `tasks` row is `<task_id>@<endpoint_id>`. Text ids cost some speed over integers (measured ~0.25 s per million
 * child rows in DuckDB) but are deterministic without any hash, identical in the JS and SQL paths, and readable.
 */
import type { ResultKind } from '../api/catalog.js';
import { KEYWORDS_ADS_METRIC_COLUMNS, KEYWORDS_ADS_TABLES, KEYWORDS_ADS_TASK_COLUMNS, LOCATION_COLUMNS } from './tables/keywords-ads.js';
import { SERP_TABLES } from './tables/serp.js';
import { c, ts, scalarChild } from './declare.js';

export type DuckType = 'VARCHAR' | 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMPTZ' | 'JSON';

/**
 * How a source value becomes a column value. Without one, the column type decides (see coerce in extract.ts):
 * numbers in numeric strings are accepted, a value that cannot be typed goes to `extra` instead of being dropped.
 */
export type Convert =
  /** `"2024-01-02 03:04:05 +00:00"` -> TIMESTAMPTZ (parseTimestamp). */
  | 'timestamp'
  /** `"0.0818 sec."` -> seconds (parseSeconds). */
  | 'seconds'
  /** `google_shopping_serp` -> `shopping_serp`: the item type without its engine prefix. */
  | 'item_type'
  /** Any JSON value kept as JSON text (filters, order_by). */
  | 'json'
  /** A string list joined with `/` (task `path`). */
  | 'join_path'
  /** A timestamp that carries a zone -> TIMESTAMPTZ; a local time without one -> null (see `local_time`). */
  | 'zoned_timestamp'
  /** A local time without a zone, kept as written (`yyyy-mm-dd hh:mm:ss`); a zoned timestamp -> null. */
  | 'local_time'
  /** Whether the timestamp carries a zone. */
  | 'has_zone';

export interface ColumnDef {
  name: string;
  type: DuckType;
  /** Dotted path inside the row's source object; `$` is the source value itself (scalar list elements). */
  path: string;
  convert?: Convert;
  /** A second place of the value, read when `path` holds nothing (where the reference puts a field the live service moved). */
  alt?: string;
  description: string;
  /** Filled only from results of these kinds (a table two result kinds share, where one path means two things). */
  onlyForResultKinds?: readonly ResultKind[];
}

/** Where a table's rows come from. */
export type RowSource =
  /** Each element of the parent's array at `path` is an object: one row per element. */
  | { kind: 'objects'; path: string }
  /** Each element of the array at `path` is a scalar: one row per element, its value at column path `$`. */
  | { kind: 'scalars'; path: string }
  /** The value at `path` is an object with dynamic keys: one row per key (`$key`) and value (`$`). */
  | { kind: 'entries'; path: string }
  /** `technologies`: { group: { category: [name, ...] } } -> one row per (group, category, technology). */
  | { kind: 'technologies'; path: string };

export interface TableDef {
  name: string;
  description: string;
  /** Parent table, or null for tables whose rows are a task's `result` elements (and `tasks`). */
  parent: string | null;
  /** For root result tables: the result kind whose `result` elements are this table's rows. */
  resultKind?: ResultKind;
  /** Further result kinds whose elements land in this table too (columns may be limited to one kind). */
  alsoResultKinds?: readonly ResultKind[];
  /** Root result tables: `objects` (default) or `scalar_lists` (`result` elements are arrays of strings). */
  resultShape?: 'objects' | 'scalar_lists';
  /** For child tables: where in the parent's source object the rows come from. */
  source?: RowSource;
  /** Child tables that apply only to some parent item types (engine-neutral, as in the `item_type` column). */
  onlyForItemTypes?: readonly string[];
  columns: readonly ColumnDef[];
  /** Known source paths deliberately not stored (constant or derivable); they are not counted as unknown. */
  ignored?: readonly { path: string; why: string }[];
  /** Item types the catalog knows, for tables holding typed items (an unknown one is kept and counted). */
  knownItemTypes?: readonly string[];
  /** Whether rows keep fields the catalog does not know in an `extra` JSON column (object rows only). */
  extra: boolean;
}

export const LINEAGE = {
  id: '_id',
  taskId: '_task_id',
  runId: '_run_id',
  loadedAt: '_loaded_at',
  parentId: '_parent_id',
  listIdx: '_list_idx',
} as const;

export interface LineageColumn { name: string; type: DuckType; description: string }

/** The lineage columns a table carries, first in its column order. */
export function lineageColumns(t: TableDef): LineageColumn[] {
  const cols: LineageColumn[] = [
    { name: '_id', type: 'VARCHAR', description: t.name === 'tasks'
      ? 'Row id: `<task_id>@<endpoint_id>`. Primary key.'
      : t.parent === 'tasks' || (t.parent === null)
        ? 'Row id: `<task_id>:<index in result>` (deterministic). Primary key.'
        : 'Row id: `<parent _id>:<index in list>` (deterministic). Primary key.' },
    { name: '_task_id', type: 'VARCHAR', description: 'Id of the API task this row came from.' },
    { name: '_run_id', type: 'VARCHAR', description: 'Run that collected the task (or `ingest-...` for ingested files).' },
    { name: '_loaded_at', type: 'TIMESTAMPTZ', description: 'When the row was loaded.' },
  ];
  if (t.name !== 'tasks' && t.parent !== null) {
    cols.push({ name: '_parent_id', type: 'VARCHAR', description: `\`_id\` of the parent row in \`${t.parent}\`.` });
  }
  if (t.name !== 'tasks') {
    cols.push({ name: '_list_idx', type: 'INTEGER', description: t.parent === null ? 'Position in the task `result` (0-based).' : 'Position in the source list (0-based).' });
  }
  return cols;
}

export const EXTRA_COLUMN = 'extra';

// ---- declaration helpers -------------------------------------------------------------------------------------

/** Whether a column takes values from results of this kind. */
export const columnApplies = (col: ColumnDef, kind: ResultKind | undefined): boolean => !col.onlyForResultKinds || (kind !== undefined && col.onlyForResultKinds.includes(kind));


function rating(prefix: 'product_rating' | 'shop_rating', what: string): ColumnDef[] {
  return [
    c(`${prefix}_type`, 'VARCHAR', `${what} rating type: Max5, Percents or CustomMax.`, `${prefix}.rating_type`),
    c(`${prefix}_value`, 'DOUBLE', `${what} rating value.`, `${prefix}.value`),
    c(`${prefix}_votes_count`, 'BIGINT', `Number of votes of the ${what.toLowerCase()} rating.`, `${prefix}.votes_count`),
    c(`${prefix}_max`, 'DOUBLE', `Maximum of the ${what.toLowerCase()} rating type.`, `${prefix}.rating_max`),
    c(`${prefix}_position`, 'VARCHAR', `Where the ${what.toLowerCase()} rating is shown: left or right.`, `${prefix}.position`),
  ];
}
const ratingIgnored = (prefix: string) => ({ path: `${prefix}.type`, why: 'always `rating_element`' });

const DELIVERY: ColumnDef[] = [
  c('delivery_message', 'VARCHAR', 'Delivery message.', 'delivery_info.delivery_message'),
  c('delivery_price_current', 'DOUBLE', 'Delivery price; null when delivery is free.', 'delivery_info.delivery_price.current'),
  c('delivery_price_regular', 'DOUBLE', 'Undiscounted delivery price.', 'delivery_info.delivery_price.regular'),
  c('delivery_price_max_value', 'DOUBLE', 'Maximum undiscounted delivery price.', 'delivery_info.delivery_price.max_value'),
  c('delivery_price_currency', 'VARCHAR', 'Currency of the delivery price.', 'delivery_info.delivery_price.currency'),
  c('delivery_price_is_price_range', 'BOOLEAN', 'Whether the delivery price is a range.', 'delivery_info.delivery_price.is_price_range'),
  c('delivery_price_displayed', 'VARCHAR', 'Delivery price as displayed.', 'delivery_info.delivery_price.displayed_price'),
  ts('delivery_date_from', 'Earliest delivery date (UTC).', 'delivery_info.delivery_date_from'),
  ts('delivery_date_to', 'Latest delivery date (UTC).', 'delivery_info.delivery_date_to'),
  ts('fastest_delivery_date_from', 'Earliest date of the fast delivery option (UTC).', 'delivery_info.fastest_delivery_date_from'),
  ts('fastest_delivery_date_to', 'Latest date of the fast delivery option (UTC).', 'delivery_info.fastest_delivery_date_to'),
];

/** The live service sends stores_count_info on the item; the reference puts it inside delivery_info: both are read. */
const STORES: ColumnDef[] = [
  c('stores_count', 'BIGINT', 'Number of stores offering the product.', 'stores_count_info.count', undefined, 'delivery_info.stores_count_info.count'),
  c('stores_count_displayed_text', 'VARCHAR', 'Stores count as displayed.', 'stores_count_info.displayed_text', undefined, 'delivery_info.stores_count_info.displayed_text'),
  c('stores_count_from_text', 'BOOLEAN', 'True when the count was taken from the displayed text, false when found in the page code.', 'stores_count_info.count_from_text', undefined, 'delivery_info.stores_count_info.count_from_text'),
];

const SPECIAL_OFFER: ColumnDef[] = [
  c('special_offer_title', 'VARCHAR', 'Special offer title.', 'special_offer_info.title'),
  c('special_offer_sub_title', 'VARCHAR', 'Special offer subtitle.', 'special_offer_info.sub_title'),
  c('special_offer_fixed_discount', 'DOUBLE', 'Fixed discount.', 'special_offer_info.fixed_discount'),
  c('special_offer_fixed_discount_currency', 'VARCHAR', 'Currency of the fixed discount.', 'special_offer_info.fixed_discount_currency'),
  c('special_offer_percentage_discount', 'DOUBLE', 'Percentage discount.', 'special_offer_info.percentage_discount'),
  c('special_offer_coupon_code', 'VARCHAR', 'Coupon code.', 'special_offer_info.coupon_code'),
  c('special_offer_coupon_info', 'VARCHAR', 'Coupon information.', 'special_offer_info.coupon_info'),
  c('special_offer_url', 'VARCHAR', 'Page where the offer is posted (deprecated on the live service: null).', 'special_offer_info.url'),
  c('special_offer_domain', 'VARCHAR', 'Domain of the offer page.', 'special_offer_info.domain'),
];

const ITEM_TYPE: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'Item type without the engine prefix (`shopping_serp`), the same for every engine.', 'type', 'item_type'),
  c('type', 'VARCHAR', 'Item type as the service wrote it (`<engine>_shopping_serp`).'),
];

const SERP_RESULT_HEAD: ColumnDef[] = [
  c('keyword', 'VARCHAR', 'Keyword of the task (decoded).'),
  c('type', 'VARCHAR', 'Search engine type from the task.'),
  c('se_domain', 'VARCHAR', 'Search engine domain.'),
  c('location_code', 'BIGINT', 'Location code.'),
  c('language_code', 'VARCHAR', 'Language code.'),
  c('check_url', 'VARCHAR', 'Direct URL of the result page, for verification.'),
  ts('datetime', 'When the result was received (UTC).'),
  c('spell_keyword', 'VARCHAR', 'Keyword after the engine\'s autocorrection; null without one.', 'spell.keyword'),
  c('spell_type', 'VARCHAR', 'Autocorrection type: did_you_mean, showing_results_for, no_results_found_for, including_results_for.', 'spell.type'),
];

/** The two tables of a task_get/html result: one row per result, its pages as children. */
function htmlTables(family: string, resultKind: ResultKind, what: string): TableDef[] {
  const name = `${family}_html`;
  return [
    {
      name, parent: null, resultKind, extra: true,
      description: `${what} HTML results (task_get/html), one row per result; the pages are in \`${name}__items\`.`,
      columns: [c('keyword', 'VARCHAR', 'Keyword.'), c('type', 'VARCHAR', 'Search engine type.'), c('se_domain', 'VARCHAR', 'Search engine domain.'), c('location_code', 'BIGINT', 'Location code.'), c('language_code', 'VARCHAR', 'Language code.'), ts('datetime', 'When the result was received (UTC).'), c('items_count', 'BIGINT', 'Number of pages.')],
    },
    {
      name: `${name}__items`, parent: name, extra: true, source: { kind: 'objects', path: 'items' },
      description: `HTML pages of ${what === 'Events' ? 'an events' : 'a merchant'} HTML result.`,
      columns: [c('page', 'BIGINT', 'Page number.'), ts('date', 'When the page was fetched (UTC).'), c('html', 'VARCHAR', 'The page HTML.')],
    },
  ];
}

const MERCHANT_ITEM_TYPES = ['shopping_sponsored_carousel', 'shopping_carousel', 'shopping_paid', 'shopping_serp', 'related_searches'] as const;

// ---- the tables ---------------------------------------------------------------------------------------------

export const TABLES: readonly TableDef[] = [
  {
    name: 'tasks', parent: null, extra: true,
    description: 'One row per collected task (failed ones included): status, cost, timing, the API version that answered, and the echo of the request parameters (`data`). Result tables join on `_task_id`.',
    columns: [
      c('endpoint_id', 'VARCHAR', 'Catalog endpoint that returned the task (for example `keywords_for_site.task_get`).', '$endpoint_id'),
      c('api_version', 'VARCHAR', 'The `version` the API answered with.', '$version'),
      c('status_code', 'INTEGER', 'Task status code; 40000 and above is an error.'),
      c('status_message', 'VARCHAR', 'Task status message.'),
      c('cost', 'DOUBLE', 'Cost of the task, USD.'),
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
      ...KEYWORDS_ADS_TASK_COLUMNS,
    ],
    ignored: [{ path: 'id', why: 'in `_task_id`' }, { path: 'result', why: 'rows of the result tables' }],
  },
  scalarChild('tasks__keywords', 'tasks', 'data.keywords', c('keyword', 'VARCHAR', 'One of the keywords given with the task.', '$'), 'Keywords echoed in a task\'s `data.keywords`, one row each.'),
  scalarChild('tasks__search_terms', 'tasks', 'data.search_terms', c('search_term', 'VARCHAR', 'One of the HTML search terms given with the task.', '$'), 'HTML search terms echoed in a task\'s `data.search_terms`, one row each.'),

  // Keyword data (E1, E2) and the ads-based keyword API's metrics: one table, each API's competition in its own terms.
  {
    name: 'keyword_data', parent: null, resultKind: 'keyword_data', alsoResultKinds: ['keyword_ads_data'], extra: true,
    description: 'Keyword metrics, one row per keyword, from both keyword APIs: the legacy family (keywords_for_site, keywords_for_keywords) and the ads-based API (search_volume, keywords_for_site, keywords_for_keywords; `endpoint_id` `keywords_ads.*`). Competition stays in each API\'s terms (`competition` legacy 0-1, `competition_level`/`competition_index` ads); `v_keyword_competition` puts them side by side.',
    columns: [
      c('function', 'VARCHAR', 'keywords_for_site or keywords_for_keywords (the task\'s `data.function`).', '$function'),
      c('keyword', 'VARCHAR', 'Keyword.'),
      c('location_code', 'BIGINT', 'Location code.'),
      c('language_code', 'VARCHAR', 'Language code.'),
      c('search_partners', 'BOOLEAN', 'Whether data from partner networks is included.'),
      { ...c('competition', 'DOUBLE', 'Legacy API only: relative paid-search competition, 0 to 1 (null on ads API rows, see `competition_level`).'), onlyForResultKinds: ['keyword_data'] },
      c('cpc', 'DOUBLE', 'Average cost per click, USD.'),
      c('search_volume', 'BIGINT', 'Approximate monthly average searches.'),
      ...KEYWORDS_ADS_METRIC_COLUMNS,
    ],
  },
  {
    name: 'keyword_data__monthly_searches', parent: 'keyword_data', extra: true, source: { kind: 'objects', path: 'monthly_searches' },
    description: 'Searches per month of a keyword (the past twelve months, or the requested range on the ads-based API).',
    columns: [c('year', 'INTEGER', 'Year.'), c('month', 'INTEGER', 'Month number (1-12).'), c('search_volume', 'BIGINT', 'Search volume of that month.')],
  },
  scalarChild('keyword_data__categories', 'keyword_data', 'categories', c('category_code', 'BIGINT', 'Product and service category code.', '$'), 'Category codes of a keyword, one row per code.'),

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
  {
    name: 'serp_endpoints', parent: null, resultKind: 'serp_endpoints', resultShape: 'scalar_lists', extra: false,
    description: 'SERP endpoint paths (`$id` where a task id goes), one row per path.',
    columns: [c('path', 'VARCHAR', 'Endpoint path, `v3/serp/...`.', '$')],
  },
  {
    name: 'paraphrases', parent: null, resultKind: 'paraphrase', extra: true,
    description: 'Paraphrase results (content generation).',
    columns: [
      c('input_tokens', 'BIGINT', 'Input tokens of the request.'),
      c('output_tokens', 'BIGINT', 'Output tokens of the response.'),
      c('new_tokens', 'BIGINT', 'New tokens in the response.'),
      c('generated_text', 'VARCHAR', 'Paraphrased text.'),
    ],
  },
  {
    name: 'events_locations', parent: null, resultKind: 'events_locations', extra: true,
    description: 'Locations supported by the events search.',
    columns: LOCATION_COLUMNS,
  },
  {
    name: 'fixed_tasks', parent: null, resultKind: 'fixed_tasks', extra: true,
    description: 'Re-parsed (fixed) tasks listed by tasks_fixed (events and every SERP type).',
    columns: [
      c('fixed_task_id', 'VARCHAR', 'Id of the re-parsed task.', 'id'),
      c('se', 'VARCHAR', 'Search engine given with the task.'),
      c('se_type', 'VARCHAR', 'Search engine type (`events`, `organic`, ...).'),
      ts('date_fixed', 'When the task was fixed (UTC; events).'),
      ts('date_posted', 'When the task was posted (UTC; the SERP types\' lists).'),
      c('tag', 'VARCHAR', 'User-defined task tag.'),
      c('endpoint_regular', 'VARCHAR', 'Path of the regular result; null if not supported.'),
      c('endpoint_advanced', 'VARCHAR', 'Path of the advanced result; null if not supported.'),
      c('endpoint_html', 'VARCHAR', 'Path of the HTML result; null if not supported.'),
    ],
  },

  // Events SERP (structure designed in docs/api-designed.md / src/sandbox/data/events.ts). Regular and advanced
  // results of a task share the table: a task's rows are those of the variant collected last (see `tasks.endpoint_id`).
  {
    name: 'events_serp', parent: null, resultKind: 'events_serp', extra: true,
    description: 'Events SERP results (regular and advanced task_get), one row per result (keyword and location).',
    columns: [...SERP_RESULT_HEAD, c('se_results_count', 'BIGINT', 'Number of results the engine reported.'), c('items_count', 'BIGINT', 'Number of elements in `items`.'),
      c('refinement_chips_xpath', 'VARCHAR', 'XPath of the refinement chips (advanced); the chips are in `events_serp__refinement_chips`.', 'refinement_chips.xpath')],
    ignored: [{ path: 'item_types', why: 'derivable from `events_serp__items.item_type`' }, { path: 'refinement_chips.type', why: 'always `refinement_chips`' }],
  },
  {
    name: 'events_serp__refinement_chips', parent: 'events_serp', extra: true, source: { kind: 'objects', path: 'refinement_chips.items' },
    knownItemTypes: ['refinement_chips_element'],
    description: 'Search refinement chips of an events SERP result (advanced, live service), one row per chip.',
    columns: [...ITEM_TYPE, c('title', 'VARCHAR', 'Chip title.'), c('url', 'VARCHAR', 'Search URL with the refinement.'), c('domain', 'VARCHAR', 'Domain of the URL.'), c('options', 'JSON', 'Options of the chip as sent (null when none).', 'options', 'json')],
  },
  {
    name: 'events_serp__items', parent: 'events_serp', extra: true, source: { kind: 'objects', path: 'items' },
    knownItemTypes: ['event_item'],
    description: 'Events of an events SERP result, dates and venue flattened into columns.',
    columns: [
      ...ITEM_TYPE,
      c('rank_group', 'BIGINT', 'Position among items of the same type.'),
      c('rank_absolute', 'BIGINT', 'Position among all items.'),
      c('position', 'VARCHAR', 'left or right.'),
      c('xpath', 'VARCHAR', 'XPath of the element.'),
      c('title', 'VARCHAR', 'Event title.'),
      c('description', 'VARCHAR', 'Event description.'),
      c('url', 'VARCHAR', 'Event page.'),
      // The live service gives a zoned time (stored as an instant) or a local time without a zone (kept as written).
      c('start_datetime', 'TIMESTAMPTZ', 'Event start as an instant, when the service gave a zone; null for a local time without one (see start_datetime_local).', 'event_dates.start_datetime', 'zoned_timestamp'),
      c('start_datetime_local', 'VARCHAR', 'Event start as local wall time `yyyy-mm-dd hh:mm:ss` when the service gave no zone (not UTC: the event\'s own local time); null when zoned.', 'event_dates.start_datetime', 'local_time'),
      c('start_datetime_has_zone', 'BOOLEAN', 'Whether the start time carried a zone: true -> start_datetime, false -> start_datetime_local.', 'event_dates.start_datetime', 'has_zone'),
      c('end_datetime', 'TIMESTAMPTZ', 'Event end as an instant, when zoned; null when open-ended or local (see end_datetime_local).', 'event_dates.end_datetime', 'zoned_timestamp'),
      c('end_datetime_local', 'VARCHAR', 'Event end as local wall time when the service gave no zone; null otherwise.', 'event_dates.end_datetime', 'local_time'),
      c('end_datetime_has_zone', 'BOOLEAN', 'Whether the end time carried a zone; null when open-ended.', 'event_dates.end_datetime', 'has_zone'),
      c('displayed_dates', 'VARCHAR', 'Dates as displayed.', 'event_dates.displayed_dates'),
      c('venue_name', 'VARCHAR', 'Venue name.', 'location_info.name'),
      c('venue_address', 'VARCHAR', 'Venue address.', 'location_info.address'),
      c('venue_url', 'VARCHAR', 'Venue website.', 'location_info.url'),
      c('venue_cid', 'VARCHAR', 'Venue id on the engine\'s maps, as text (a large number).', 'location_info.cid'),
      c('venue_feature_id', 'VARCHAR', 'Venue feature id on the engine\'s maps.', 'location_info.feature_id'),
      c('image_url', 'VARCHAR', 'Event image (advanced).'),
    ],
  },
  {
    name: 'events_serp__items__information_and_tickets', parent: 'events_serp__items', extra: true, source: { kind: 'objects', path: 'information_and_tickets' },
    description: 'Information and ticket links of an event (advanced).',
    columns: [...ITEM_TYPE, c('title', 'VARCHAR', 'Link title.'), c('description', 'VARCHAR', 'Link description.'), c('url', 'VARCHAR', 'Link URL.'), c('domain', 'VARCHAR', 'Link domain.')],
    knownItemTypes: ['information_and_tickets_element'],
  },
  ...htmlTables('events', 'events_html', 'Events'),

  // Merchant (E9).
  {
    name: 'merchant_shopping', parent: null, resultKind: 'merchant_shopping', extra: true,
    description: 'Merchant shopping results, one row per result (keyword and location).',
    columns: [...SERP_RESULT_HEAD, c('items_count', 'BIGINT', 'Number of elements in `items`.')],
  },
  scalarChild('merchant_shopping__item_types', 'merchant_shopping', 'item_types', c('item_type', 'VARCHAR', 'An item type found in the result, as the service wrote it.', '$'), 'Types of the items found in a shopping result, one row each.'),
  {
    name: 'merchant_shopping__items', parent: 'merchant_shopping', extra: true, source: { kind: 'objects', path: 'items' },
    knownItemTypes: MERCHANT_ITEM_TYPES,
    description: 'Items of a shopping result, every item type in one table (`item_type`); columns that do not apply to a type are null. Unknown item types are kept with their common columns and `extra`.',
    columns: [
      ...ITEM_TYPE,
      c('rank_group', 'BIGINT', 'Position among items of the same type.'),
      c('rank_absolute', 'BIGINT', 'Position among all items.'),
      c('position', 'VARCHAR', 'left or right.'),
      c('xpath', 'VARCHAR', 'XPath of the element.'),
      c('title', 'VARCHAR', 'Title (carousel title or product title).'),
      c('domain', 'VARCHAR', 'Domain (paid, serp).'),
      c('description', 'VARCHAR', 'Product description (paid, serp).'),
      c('url', 'VARCHAR', 'Product page on the seller\'s site (paid, serp).'),
      c('shopping_url', 'VARCHAR', 'Product page on the shopping service (serp).'),
      c('price', 'DOUBLE', 'Product price (serp).'),
      c('price_multiplier', 'BIGINT', 'Months covered by a monthly instalment (serp).'),
      c('old_price', 'DOUBLE', 'Previous price (serp).'),
      c('currency', 'VARCHAR', 'ISO currency code (serp).'),
      c('product_id', 'VARCHAR', 'Product identifier assigned by the engine, as text (serp).'),
      c('data_docid', 'VARCHAR', 'Identifier of the result data element, as text (serp).'),
      c('seller', 'VARCHAR', 'Seller name (serp).'),
      c('reviews_count', 'BIGINT', 'Number of user reviews (serp).'),
      c('is_best_match', 'BOOLEAN', 'Marked with the best-match label (serp).'),
      ...rating('product_rating', 'Product'),
      ...rating('shop_rating', 'Shop'),
      c('shop_ad_aclk', 'VARCHAR', 'Ad click referral parameter (paid, serp).'),
      c('gid', 'VARCHAR', 'Global product identifier on the shopping service, as text (serp).'),
      ...DELIVERY,
      ...STORES,
    ],
    ignored: [ratingIgnored('product_rating'), ratingIgnored('shop_rating')],
  },
  {
    name: 'merchant_shopping__items__elements', parent: 'merchant_shopping__items', extra: true,
    source: { kind: 'objects', path: 'items' }, onlyForItemTypes: ['shopping_sponsored_carousel', 'shopping_carousel'],
    knownItemTypes: ['shopping_sponsored_carousel_element', 'shopping_carousel_element'],
    description: 'Elements of a carousel item: the sponsored carousel (`shopping_sponsored_carousel_element`) and the product carousel the live service adds (`shopping_carousel_element`).',
    columns: [
      ...ITEM_TYPE,
      c('xpath', 'VARCHAR', 'XPath of the element.'),
      c('title', 'VARCHAR', 'Product title.'),
      c('seller', 'VARCHAR', 'Seller.'),
      c('price', 'DOUBLE', 'Price.'),
      c('currency', 'VARCHAR', 'ISO currency code.'),
      ...rating('product_rating', 'Product'),
      c('shop_ad_aclk', 'VARCHAR', 'Ad click referral parameter (sponsored).'),
      c('shopping_url', 'VARCHAR', 'Product page on the shopping service (product carousel).'),
      c('product_id', 'VARCHAR', 'Product identifier assigned by the engine, as text (product carousel).'),
      c('data_docid', 'VARCHAR', 'Identifier of the result data element, as text (product carousel).'),
      c('gid', 'VARCHAR', 'Global product identifier on the shopping service, as text (product carousel).'),
      ...DELIVERY,
      ...SPECIAL_OFFER,
    ],
    ignored: [ratingIgnored('product_rating')],
  },
  scalarChild('merchant_shopping__items__elements__tags', 'merchant_shopping__items__elements', 'tags', c('tag', 'VARCHAR', 'Tag.', '$'), 'Tags of a carousel element, one row each.'),
  scalarChild('merchant_shopping__items__elements__product_images', 'merchant_shopping__items__elements', 'product_images', c('url', 'VARCHAR', 'Image URL; `_list_idx` 0 is the featured image.', '$'), 'Product images of a carousel element, one row each.'),
  scalarChild('merchant_shopping__items__tags', 'merchant_shopping__items', 'tags', c('tag', 'VARCHAR', 'Tag.', '$'), 'Tags of a shopping item, one row each.', ['shopping_serp', 'shopping_paid', 'shopping_sponsored_carousel']),
  scalarChild('merchant_shopping__items__product_images', 'merchant_shopping__items', 'product_images', c('url', 'VARCHAR', 'Image URL; `_list_idx` 0 is the featured image.', '$'), 'Product images of a shopping item, one row each.', ['shopping_serp', 'shopping_paid', 'shopping_sponsored_carousel']),
  scalarChild('merchant_shopping__items__related_searches', 'merchant_shopping__items', 'items', c('keyword', 'VARCHAR', 'Related keyword (JSON text when the service sends an object).', '$'), 'Related keywords of a `related_searches` item, one row each.', ['related_searches']),
  ...htmlTables('merchant', 'merchant_html', 'Merchant'),
  {
    name: 'merchant_shopping__items__additional_specifications', parent: 'merchant_shopping__items', extra: false,
    source: { kind: 'entries', path: 'additional_specifications' },
    description: 'Additional URL parameters of a shopping item (product-specification and sellers requests), one row per parameter.',
    columns: [c('name', 'VARCHAR', 'Parameter name.', '$key'), c('value', 'VARCHAR', 'Parameter value (JSON text when not a string).', '$')],
  },

  // On-page (E7).
  {
    name: 'onpage_resources', parent: null, resultKind: 'onpage_resources', extra: true,
    description: 'On-page resources responses: crawl progress of the crawl task; resources are in `onpage_resources__items`.',
    columns: [
      c('crawl_progress', 'VARCHAR', 'in_progress or finished.'),
      c('crawl_max_pages', 'BIGINT', 'max_crawl_pages of the crawl task.', 'crawl_status.max_crawl_pages'),
      c('crawl_pages_in_queue', 'BIGINT', 'Pages in the crawl queue.', 'crawl_status.pages_in_queue'),
      c('crawl_pages_crawled', 'BIGINT', 'Crawled pages.', 'crawl_status.pages_crawled'),
      c('search_after_token', 'VARCHAR', 'Token for the next page of resources.'),
      c('total_items_count', 'BIGINT', 'Total relevant items crawled.'),
      c('items_count', 'BIGINT', 'Number of elements in `items`.'),
    ],
  },
  {
    name: 'onpage_resources__items', parent: 'onpage_resources', extra: true, source: { kind: 'objects', path: 'items' },
    description: 'Resources (script, image, stylesheet, broken) found by the crawl, with checks as boolean columns.',
    columns: [
      c('resource_type', 'VARCHAR', 'script, image, stylesheet or broken.'),
      c('url', 'VARCHAR', 'Resource URL.'),
      c('status_code', 'INTEGER', 'Status code of the page where the resource is.'),
      c('location', 'VARCHAR', 'Location header (redirect target).'),
      c('size', 'BIGINT', 'Size, bytes.'),
      c('encoded_size', 'BIGINT', 'Size after encoding, bytes.'),
      c('total_transfer_size', 'BIGINT', 'Compressed size, bytes.'),
      ts('fetch_time', 'When the resource was fetched (UTC).'),
      c('fetch_duration_ms', 'BIGINT', 'Milliseconds taken to fetch.', 'fetch_timing.duration_time'),
      c('fetch_start', 'BIGINT', 'Time for the browser to start downloading.', 'fetch_timing.fetch_start'),
      c('fetch_end', 'BIGINT', 'Time for the browser to complete downloading.', 'fetch_timing.fetch_end'),
      c('cachable', 'BOOLEAN', 'Whether the resource is cacheable.', 'cache_control.cachable'),
      c('cache_ttl_ms', 'BIGINT', 'Time to live, milliseconds.', 'cache_control.ttl'),
      c('content_encoding', 'VARCHAR', 'Type of encoding.'),
      c('media_type', 'VARCHAR', 'Media type.'),
      c('accept_type', 'VARCHAR', 'Expected type (any, none, image, script, ...).'),
      c('server', 'VARCHAR', 'Server version.'),
      ts('last_modified_header', 'Last-Modified from the header (UTC).', 'last_modified.header'),
      ts('last_modified_sitemap', 'Last modification from the sitemap (UTC).', 'last_modified.sitemap'),
      ts('last_modified_meta_tag', 'Last modification from a meta tag (UTC).', 'last_modified.meta_tag'),
      c('meta_alternative_text', 'VARCHAR', 'Image alt text.', 'meta.alternative_text'),
      c('meta_title', 'VARCHAR', 'Title.', 'meta.title'),
      c('meta_original_width', 'BIGINT', 'Original image width, px.', 'meta.original_width'),
      c('meta_original_height', 'BIGINT', 'Original image height, px.', 'meta.original_height'),
      c('meta_width', 'BIGINT', 'Displayed image width, px.', 'meta.width'),
      c('meta_height', 'BIGINT', 'Displayed image height, px.', 'meta.height'),
      ...(['no_content_encoding', 'high_loading_time', 'is_redirect', 'is_4xx_code', 'is_5xx_code', 'is_broken', 'is_www', 'is_https', 'is_http',
        'original_size_displayed', 'is_minified', 'has_redirect', 'has_subrequests', 'from_sitemap'] as const)
        .map((k) => c(`check_${k}`, 'BOOLEAN', `Check \`${k}\`; null when not reported for this resource type.`, `checks.${k}`)),
    ],
  },
  {
    name: 'onpage_resources__items__errors', parent: 'onpage_resources__items', extra: true, source: { kind: 'objects', path: 'resource_errors.errors' },
    description: 'Errors found in a resource (parse errors and the like).',
    columns: [c('line', 'BIGINT', 'Line.'), c('column', 'BIGINT', 'Column.'), c('message', 'VARCHAR', 'Message.'), c('status_code', 'INTEGER', 'Error code (501 Html Parse Error, 1501 JS Parse Error, ...).')],
  },
  {
    name: 'onpage_resources__items__warnings', parent: 'onpage_resources__items', extra: true, source: { kind: 'objects', path: 'resource_errors.warnings' },
    description: 'Warnings found in a resource (line 0 means the whole page).',
    columns: [c('line', 'BIGINT', 'Line (0: the whole page).'), c('column', 'BIGINT', 'Column.'), c('message', 'VARCHAR', 'Message.'), c('status_code', 'INTEGER', 'Warning code.')],
  },

  // Domain analytics (E13, E14).
  {
    name: 'domain_errors', parent: null, resultKind: 'domain_errors', extra: true,
    description: 'Domain-analytics tasks and webhook deliveries that failed in the last 7 days.',
    columns: [
      c('error_task_id', 'VARCHAR', 'Id of the task that failed.', 'id'),
      ts('datetime', 'When the error occurred (UTC).'),
      c('function', 'VARCHAR', 'API function (for example pingback_url or postback_url).'),
      c('error_code', 'BIGINT', 'Error code.'),
      c('error_message', 'VARCHAR', 'Error message or the URL that caused it.'),
      c('http_url', 'VARCHAR', 'URL called.'),
      c('http_method', 'VARCHAR', 'HTTP method.'),
      c('http_code', 'INTEGER', 'HTTP status code.'),
      c('http_time', 'DOUBLE', 'Time of the HTTP request, seconds.'),
      c('http_response', 'VARCHAR', 'Response text.'),
    ],
  },
  {
    name: 'domain_technologies', parent: null, resultKind: 'domain_technologies', extra: true,
    description: 'Domains-by-HTML-terms responses (one per page of results); domains are in `domain_technologies__items`.',
    columns: [
      c('total_count', 'BIGINT', 'Total relevant items in the database.'),
      c('items_count', 'BIGINT', 'Number of elements in `items`.'),
      c('offset', 'BIGINT', 'Offset used.'),
      c('offset_token', 'VARCHAR', 'Token for the following results.'),
    ],
  },
  {
    name: 'domain_technologies__items', parent: 'domain_technologies', extra: true, source: { kind: 'objects', path: 'items' },
    description: 'Domains whose homepage holds the search terms, with their profile.',
    columns: [
      ...ITEM_TYPE,
      c('domain', 'VARCHAR', 'Domain.'),
      c('title', 'VARCHAR', 'Meta title.'),
      c('description', 'VARCHAR', 'Meta description.'),
      c('domain_rank', 'BIGINT', 'Backlink rank of the domain.'),
      ts('last_visited', 'Latest crawler visit (UTC).'),
      c('country_iso_code', 'VARCHAR', 'Country the domain belongs to.'),
      c('language_code', 'VARCHAR', 'Language the domain is associated with.'),
      c('content_language_code', 'VARCHAR', 'Language of the content.'),
    ],
    knownItemTypes: ['domain_technology_item'],
  },
  {
    name: 'domain_technologies__items__technologies', parent: 'domain_technologies__items', extra: false, source: { kind: 'technologies', path: 'technologies' },
    description: 'Technologies of a domain, one row per (group, category, technology).',
    columns: [c('group', 'VARCHAR', 'Technology group (servers, analytics, ...).', '$group'), c('category', 'VARCHAR', 'Technology category.', '$category'), c('technology', 'VARCHAR', 'Technology name.', '$')],
  },
  scalarChild('domain_technologies__items__meta_keywords', 'domain_technologies__items', 'meta_keywords', c('keyword', 'VARCHAR', 'Meta keyword.', '$'), 'Meta keywords of a domain, one row each.'),
  scalarChild('domain_technologies__items__phone_numbers', 'domain_technologies__items', 'phone_numbers', c('phone_number', 'VARCHAR', 'Phone number found on the site.', '$'), 'Phone numbers on a domain\'s site, one row each.'),
  scalarChild('domain_technologies__items__emails', 'domain_technologies__items', 'emails', c('email', 'VARCHAR', 'Email address found on the site.', '$'), 'Email addresses on a domain\'s site, one row each.'),
  scalarChild('domain_technologies__items__social_graph_urls', 'domain_technologies__items', 'social_graph_urls', c('url', 'VARCHAR', 'Social link or handle.', '$'), 'Social links of a domain, one row each.'),

  ...SERP_TABLES,
  // The account (appendix/user_data, live service): what `seo-etl check` reads, when a user_data answer is loaded.
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

  // Catch-all for results no table describes (an endpoint outside the catalog, met by ingest).
  {
    name: 'unknown_results', parent: null, extra: false,
    description: 'Results of endpoints the catalog has no table for, kept whole so nothing is lost (one row per `result` element).',
    columns: [c('path', 'VARCHAR', 'Path of the call.', '$path'), c('result', 'JSON', 'The result element as JSON.', '$', 'json')],
  },
  ...KEYWORDS_ADS_TABLES,
];

export const TABLE_BY_NAME: ReadonlyMap<string, TableDef> = new Map(TABLES.map((t) => [t.name, t]));

export function table(name: string): TableDef {
  const t = TABLE_BY_NAME.get(name);
  if (!t) throw new Error(`unknown table '${name}'`);
  return t;
}

export function childrenOf(name: string): TableDef[] {
  return TABLES.filter((t) => t.parent === name);
}

/** The root table for a result kind (undefined for kinds without rows: task_created). */
export function rootTableFor(kind: ResultKind): TableDef | undefined {
  return TABLES.find((t) => t.resultKind === kind || t.alsoResultKinds?.includes(kind));
}

/** A table and all its descendants: the tables a task of that kind writes (and replaces on reload). */
export function familyOf(root: string): TableDef[] {
  const out: TableDef[] = [];
  const walk = (name: string) => {
    out.push(table(name));
    for (const ch of childrenOf(name)) walk(ch.name);
  };
  walk(root);
  return out;
}

/** All columns of a table in storage order: lineage, declared columns, then `extra`. */
export function allColumns(t: TableDef): { name: string; type: DuckType; description: string }[] {
  return [
    ...lineageColumns(t),
    ...t.columns.map((col) => ({ name: col.name, type: col.type, description: col.description })),
    ...(t.extra ? [{ name: EXTRA_COLUMN, type: 'JSON' as DuckType, description: 'Fields the catalog does not know, as JSON (null when there are none).' }] : []),
  ];
}

/** Catalog self-check, run by tests: unique names, parents exist, child naming `parent__child`. */
export function catalogProblems(): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const t of TABLES) {
    if (seen.has(t.name)) problems.push(`${t.name}: declared twice`);
    seen.add(t.name);
    if (t.parent && !TABLE_BY_NAME.has(t.parent)) problems.push(`${t.name}: parent ${t.parent} is not declared`);
    if (t.parent && t.parent !== 'tasks' && !t.name.startsWith(`${t.parent}__`)) problems.push(`${t.name}: a child table is named <parent>__<child>`);
    if (t.parent && !t.source) problems.push(`${t.name}: a child table needs a source`);
    const cols = new Set<string>();
    for (const col of allColumns(t)) {
      if (cols.has(col.name)) problems.push(`${t.name}.${col.name}: declared twice`);
      cols.add(col.name);
    }
  }
  return problems;
}
