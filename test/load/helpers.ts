import type { Warehouse } from '../../src/load/warehouse.js';
import { TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';

/** Every catalog table's rows (all columns but `_loaded_at`), sorted by `_id`, as JSON-able values. */
export async function dumpTables(wh: Warehouse, opts: { withLoadedAt?: boolean } = {}): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) {
    const cols = allColumns(t).map((c) => c.name).filter((c) => opts.withLoadedAt || c !== '_loaded_at');
    const reader = await wh.connection.runAndReadAll(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${t.name}" ORDER BY _id`);
    out[t.name] = reader.getRowsJson() as unknown[];
  }
  return out;
}
