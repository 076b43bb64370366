/**
 * The catalog tables one warehouse holds or is about to: those every warehouse has (ALWAYS_IN_USE), the tables it
 * was found with, and those of what its loads and pipelines bring. Owned by the Warehouse; the catalog itself never
 * changes at run time, so two warehouses (or two tests) in one process do not see each other's tables.
 */
import type { TableDef } from '../catalog/table.js';
import { ALWAYS_IN_USE, TABLE_BY_NAME, inCatalogOrder } from '../normalize/catalog.js';

export class TablesInUse {
  private readonly names = new Set(ALWAYS_IN_USE.map((t) => t.name));
  private ordered: readonly TableDef[] = ALWAYS_IN_USE;

  /** Puts the named catalog tables in use; returns those newly in use, in catalog order (unknown names ignored). */
  add(names: Iterable<string>): TableDef[] {
    const fresh = [...names].filter((n) => !this.names.has(n) && TABLE_BY_NAME.has(n));
    if (!fresh.length) return [];
    for (const n of fresh) this.names.add(n);
    this.ordered = inCatalogOrder(this.names);
    return inCatalogOrder(fresh);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The tables in use, in catalog order. */
  get tables(): readonly TableDef[] {
    return this.ordered;
  }
}
