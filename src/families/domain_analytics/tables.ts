/** Domain analytics: errors (E13) and domains by HTML terms (E14). */
import type { TableDef } from '../../catalog/table.js';
import { c, ts, scalarChild, ITEM_TYPE } from '../../catalog/declare.js';

export const DOMAIN_ANALYTICS_TABLES: readonly TableDef[] = [
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
];
