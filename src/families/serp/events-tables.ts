/**
 * The SERP endpoint list (E5) and the events search: locations, re-parsed tasks and results (structure designed in
 * docs/api-designed.md). Regular and advanced results of a task share the table: a task's rows are those of the
 * variant collected last (see `tasks.endpoint_id`).
 */
import type { TableDef } from '../../catalog/table.js';
import { c, ts, ITEM_TYPE, SERP_RESULT_HEAD, htmlTables, LOCATION_COLUMNS } from '../../catalog/declare.js';

export const EVENTS_TABLES: readonly TableDef[] = [
  {
    name: 'serp_endpoints', parent: null, resultKind: 'serp_endpoints', resultShape: 'scalar_lists', extra: false,
    description: 'SERP endpoint paths (`$id` where a task id goes), one row per path.',
    columns: [c('path', 'VARCHAR', 'Endpoint path, `v3/serp/...`.', '$')],
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

  // Events SERP (structure designed in docs/api-designed.md / src/sandbox/families/serp/events-data.ts). Regular and advanced
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
];
