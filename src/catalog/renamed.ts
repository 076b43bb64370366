/**
 * Field names a column does not take as they are: the catalog's own `extra`, and SQL's reserved `table`, which every
 * BI tool and query had to quote. A field so named keeps its value in the column named here; `formerly` is the name
 * warehouses made before kept it under (renamed in place: src/load/ddl.ts, src/publish/postgres). No imports: the
 * families' declarations read it while the catalog is being built.
 */
export const RENAMED_FIELDS: Readonly<Record<string, { column: string; formerly?: string }>> = {
  extra: { column: 'extra_value' },
  table: { column: 'table_json', formerly: 'table' },
};
