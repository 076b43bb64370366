/**
 * The table list as the stages read it, from the process's catalog (src/catalog/catalog.ts derives it): the core
 * tables (tasks, ready lists, unknown results) and every family's. The JS extractor (extract.ts), the DDL and schema
 * evolution (src/load/ddl.ts), the Parquet export and the data dictionary docs/tables.md (docs.ts) follow it. What
 * one table is: src/catalog/table.ts.
 */
import type { ResultKind } from '../catalog/endpoint.js';
import type { TableDef } from '../catalog/table.js';
import { CATALOG } from '../families/index.js';

/** The core tables and every family's: in use in every warehouse. */
export const CORE_TABLES: readonly TableDef[] = CATALOG.coreTables;

/** Every table the registry's families can write (`seo-etl tables --available`, docs/tables.md). */
export const AVAILABLE_TABLES: readonly TableDef[] = CATALOG.tables;

export const TABLE_BY_NAME: ReadonlyMap<string, TableDef> = CATALOG.tableByName;

/** The tables every warehouse holds from the start (Catalog.alwaysInUse). */
export const ALWAYS_IN_USE: readonly TableDef[] = CATALOG.alwaysInUse;

/** The tables a file holding these (catalog or other) table names has for readers: every warehouse's, then the named ones, in catalog order. */
export function heldOf(names: Iterable<string>): TableDef[] {
  return CATALOG.inOrder([...ALWAYS_IN_USE.map((t) => t.name), ...names]);
}

/** The named tables of the catalog, in its order (names it does not know left out). */
export function inCatalogOrder(names: Iterable<string>): TableDef[] {
  return CATALOG.inOrder(names);
}

export function inUseOnFirstRow(t: TableDef): boolean {
  return CATALOG.inUseOnFirstRow(t);
}

export function table(name: string): TableDef {
  return CATALOG.table(name);
}

export function childrenOf(name: string): readonly TableDef[] {
  return CATALOG.childrenOf(name);
}

export function rootTableFor(kind: ResultKind): TableDef | undefined {
  return CATALOG.rootTableFor(kind);
}

export function familyOf(root: string): TableDef[] {
  return CATALOG.familyOf(root);
}

export function catalogProblems(): string[] {
  return CATALOG.problems();
}
