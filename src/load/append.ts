/**
 * Appending rows to DuckDB through DataChunks: the fastest way in from JS measured here (about 1M rows/s, against
 * about 7k rows/s for a prepared INSERT per row). Rows are objects keyed by column name (the normalizer's output).
 */
import { DuckDBDataChunk, JSToDuckDBValueConverter, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { q } from './ddl.js';
import type { Row } from '../normalize/extract.js';

const CHUNK_ROWS = 2048;

/** Appends `rows` to `table`, filling the columns named in `columns` (the table's column order). */
export async function appendRows(conn: DuckDBConnection, table: string, columns: readonly string[], rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  const appender = await conn.createAppender(table);
  try {
    if (appender.columnCount !== columns.length) {
      throw new Error(`append to ${q(table)}: the table has ${appender.columnCount} columns, the rows ${columns.length}`);
    }
    const types: DuckDBType[] = [];
    for (let i = 0; i < columns.length; i++) types.push(appender.columnType(i));
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      const end = Math.min(rows.length, start + CHUNK_ROWS);
      const cols: unknown[][] = columns.map(() => new Array(end - start));
      for (let r = start; r < end; r++) {
        const row = rows[r];
        for (let c = 0; c < columns.length; c++) {
          const v = row[columns[c]];
          cols[c][r - start] = v === undefined ? null : v;
        }
      }
      const chunk = DuckDBDataChunk.create(types, end - start);
      chunk.setColumnsConverted(cols as never, JSToDuckDBValueConverter);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
