/** One transaction on a connection: `work` commits, or nothing it did stays (the rollback's own failure is moot). */
import type { DuckDBConnection } from '@duckdb/node-api';

export async function inTransaction(conn: DuckDBConnection, work: (conn: DuckDBConnection) => Promise<void>): Promise<void> {
  await conn.run('BEGIN TRANSACTION');
  try {
    await work(conn);
    await conn.run('COMMIT');
  } catch (err) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
