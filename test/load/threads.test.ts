/** warehouse.threads: every DuckDB instance a command opens runs that many threads; 0 keeps DuckDB's default. */
import { afterEach, describe, expect, test } from 'vitest';
import { availableParallelism } from 'node:os';
import { createDuckdb, useDuckdbThreads } from '../../src/load/threads.js';
import { openDatabase } from '../../src/load/database.js';
import { loadConfig, ConfigError } from '../../src/config/index.js';
import { ROOT, TEST_DUCKDB_THREADS } from '../helpers/project.js';

async function threadsOf(open: () => Promise<{ connect(): Promise<{ runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>; closeSync(): void }>; closeSync(): void }>): Promise<number> {
  const i = await open();
  const c = await i.connect();
  try { return Number((await c.runAndReadAll(`SELECT current_setting('threads')`)).getRows()[0][0]); } finally { c.closeSync(); i.closeSync(); }
}

afterEach(() => useDuckdbThreads(TEST_DUCKDB_THREADS));

describe('warehouse.threads', () => {
  test('a set count reaches every instance created, the warehouse included; 0 is DuckDB\'s default', async () => {
    useDuckdbThreads(1);
    expect(await threadsOf(() => createDuckdb(':memory:'))).toBe(1);
    const w = await openDatabase(':memory:');
    try { expect(Number((await w.connection.runAndReadAll(`SELECT current_setting('threads')`)).getRows()[0][0])).toBe(1); } finally { w.connection.closeSync(); w.instance.closeSync(); }
    useDuckdbThreads(0);
    expect(await threadsOf(() => createDuckdb(':memory:'))).toBe(availableParallelism());
    // An instance that names its own count keeps it.
    useDuckdbThreads(1);
    expect(await threadsOf(() => createDuckdb(':memory:', { threads: '2' }))).toBe(2);
  });

  test('the setting comes from the environment and is validated, naming the variable', () => {
    expect(loadConfig({ root: ROOT, env: { SEO_ETL_WAREHOUSE_THREADS: '3' } }).warehouse.threads).toBe(3);
    expect(loadConfig({ root: ROOT, env: {} }).warehouse.threads).toBe(0);
    let err: unknown;
    try { loadConfig({ root: ROOT, env: { SEO_ETL_WAREHOUSE_THREADS: '-1' } }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(/SEO_ETL_WAREHOUSE_THREADS/);
    expect(String((err as Error).message)).toMatch(/warehouse\.threads|threads/);
  });
});
