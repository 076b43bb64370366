/**
 * The catalog tables one warehouse holds or is about to: those every warehouse has (Catalog.alwaysInUse), the tables it
 * was found with, and those of what its loads and pipelines bring. Owned by the Warehouse; the catalog itself never
 * changes at run time, so two warehouses (or two tests) in one process do not see each other's tables.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { TableDef } from '../catalog/table.js';
import { CATALOG } from '../families/index.js';

export class TablesInUse {
  private readonly names: Set<string>;
  private ordered: readonly TableDef[];

  constructor(private readonly catalog: Catalog = CATALOG) {
    this.names = new Set(catalog.alwaysInUse.map((t) => t.name));
    this.ordered = catalog.alwaysInUse;
  }

  /** Puts the named catalog tables in use; returns those newly in use, in catalog order (unknown names ignored). */
  add(names: Iterable<string>): TableDef[] {
    const fresh = [...names].filter((n) => !this.names.has(n) && this.catalog.tableByName.has(n));
    if (!fresh.length) return [];
    for (const n of fresh) this.names.add(n);
    this.ordered = this.catalog.inOrder(this.names);
    return this.catalog.inOrder(fresh);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The tables in use, in catalog order. */
  get tables(): readonly TableDef[] {
    return this.ordered;
  }
}
