/** On-page resources (E7). */
import type { ColumnDef, TableDef } from '../../catalog/table.js';
import { c, ts } from '../../catalog/declare.js';
import { ownFieldTables } from '../generated.js';

/** Columns of every resource, whatever its type; a type's own fields are in `onpage_resources__items__<type>`. */
const RESOURCE_COLUMNS: ColumnDef[] = [
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
];

export const ON_PAGE_TABLES: readonly TableDef[] = [
  {
    name: 'onpage_resources', parent: null, resultKind: 'onpage_resources', extra: true,
    description: 'On-page resources responses: crawl progress of the crawl task; resources are in `onpage_resources__items`.',
    columns: [
      c('crawl_progress', 'VARCHAR', 'in_progress or finished.'),
      c('crawl_max_pages', 'BIGINT', 'max_crawl_pages of the crawl task.', 'crawl_status.max_crawl_pages'),
      c('crawl_pages_in_queue', 'BIGINT', 'Pages in the crawl queue.', 'crawl_status.pages_in_queue'),
      c('crawl_pages_crawled', 'BIGINT', 'Crawled pages.', 'crawl_status.pages_crawled'),
      c('search_after_token', 'VARCHAR', 'Token for the next page of resources.'),
      c('current_offset', 'BIGINT', 'Offset of this page of resources.'),
      c('total_items_count', 'BIGINT', 'Total relevant items crawled.'),
      c('items_count', 'BIGINT', 'Number of elements in `items`.'),
    ],
  },
  {
    name: 'onpage_resources__items', parent: 'onpage_resources', extra: true, source: { kind: 'objects', path: 'items' },
    description: 'Resources (html, script, image, stylesheet, broken, redirect) found by the crawl, with the usual checks as boolean columns; a type\'s own fields (an HTML page\'s meta, timing and scores) are in `onpage_resources__items__<type>`.',
    columns: RESOURCE_COLUMNS,
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
  {
    name: 'onpage_resources__items__checks', parent: 'onpage_resources__items', extra: false, source: { kind: 'entries', path: 'checks' },
    description: 'Every check of a resource, one row per check (the `check_*` columns take the usual ones): the live service adds checks over time.',
    columns: [c('key', 'VARCHAR', 'Check name.', '$key'), c('value', 'VARCHAR', 'Result (`true` or `false`).', '$')],
  },

];

/**
 * The own fields of each resource type that the columns above leave out (an HTML page's meta, timing and scores;
 * a broken resource's page meta): one table per type with the resource row's `_id`, created with its first row.
 */
export const ON_PAGE_ITEM_TABLES: readonly TableDef[] = ownFieldTables('onpage_resources__items', 'BaseOnPageResourceItem', RESOURCE_COLUMNS, new Set(ON_PAGE_TABLES.map((t) => t.name)));
