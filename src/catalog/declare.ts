/** Helpers that declare catalog columns and tables, shared by the catalog and the table files it spreads in. */
import type { ColumnDef, Convert, DuckType, TableDef } from './table.js';
import type { ResultKind } from './endpoint.js';

/** A column; `alt` is a second path read when `path` holds nothing (the live service and the reference place a field apart). */
export const c = (name: string, type: DuckType, description: string, path: string = name, convert?: Convert, alt?: string): ColumnDef =>
  ({ name, type, path, description, ...(convert ? { convert } : {}), ...(alt ? { alt } : {}) });
export const ts = (name: string, description: string, path: string = name): ColumnDef => c(name, 'TIMESTAMPTZ', description, path, 'timestamp');

/** A list of scalars as child rows. A text column takes any element (objects as JSON text); a typed one keeps a value it cannot type in `extra`. */
export function scalarChild(name: string, parent: string, path: string, column: ColumnDef, description: string, onlyForItemTypes?: readonly string[]): TableDef {
  return { name, parent, description, source: { kind: 'scalars', path }, columns: [column], extra: column.type !== 'VARCHAR', ...(onlyForItemTypes ? { onlyForItemTypes } : {}) };
}

export const ITEM_TYPE: ColumnDef[] = [
  c('item_type', 'VARCHAR', 'Item type without the engine prefix (`shopping_serp`), the same for every engine.', 'type', 'item_type'),
  c('type', 'VARCHAR', 'Item type as the service wrote it (`<engine>_shopping_serp`).'),
];

export const SERP_RESULT_HEAD: ColumnDef[] = [
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
export function htmlTables(family: string, resultKind: ResultKind, what: string): TableDef[] {
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

/** A location list's item, as the service's location lists give it (events and the ads keyword API alike). */
export const LOCATION_COLUMNS: readonly ColumnDef[] = [
  c('location_code', 'BIGINT', 'Location code.'),
  c('location_name', 'VARCHAR', 'Full location name, narrowest first.'),
  c('location_code_parent', 'BIGINT', 'Code of the superordinate location; null for a country.'),
  c('country_iso_code', 'VARCHAR', 'ISO country code.'),
  c('location_type', 'VARCHAR', 'Location type (Country, State, ...).'),
];

