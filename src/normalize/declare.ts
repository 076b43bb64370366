/** Helpers that declare catalog columns and tables, shared by the catalog and the table files it spreads in. */
import type { ColumnDef, Convert, DuckType, TableDef } from './catalog.js';

/** A column; `alt` is a second path read when `path` holds nothing (the live service and the reference place a field apart). */
export const c = (name: string, type: DuckType, description: string, path: string = name, convert?: Convert, alt?: string): ColumnDef =>
  ({ name, type, path, description, ...(convert ? { convert } : {}), ...(alt ? { alt } : {}) });
export const ts = (name: string, description: string, path: string = name): ColumnDef => c(name, 'TIMESTAMPTZ', description, path, 'timestamp');

/** A list of scalars as child rows. A text column takes any element (objects as JSON text); a typed one keeps a value it cannot type in `extra`. */
export function scalarChild(name: string, parent: string, path: string, column: ColumnDef, description: string, onlyForItemTypes?: readonly string[]): TableDef {
  return { name, parent, description, source: { kind: 'scalars', path }, columns: [column], extra: column.type !== 'VARCHAR', ...(onlyForItemTypes ? { onlyForItemTypes } : {}) };
}
