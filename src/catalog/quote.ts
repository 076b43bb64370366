/** SQL quoting, with no imports so that declarations (views built from the catalog) can use it without a cycle. */
export const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** A string as an SQL literal (view texts built from the catalog, where no parameter can be bound). */
export const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
