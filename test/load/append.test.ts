import { afterEach, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { appendRows } from '../../src/load/append.js';

let closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});
async function memory(): Promise<DuckDBConnection> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  closers.push(() => { conn.closeSync(); inst.closeSync(); });
  return conn;
}

// Strings on both sides of the 12-byte inline limit, multi-byte ones that fit it in characters but not in bytes,
// repeats (which share one place in the chunk), the empty string and a long one.
const STRINGS = ['short', 'a string longer than twelve', 'a string longer than twelve', 'héllo wörld, ünïcode and long', 'é', 'éééééé', 'ééééééé',
  null, '', 'exactly12abc', 'thirteen13abc', '😀 an emoji string, long', 'x'.repeat(70_000), 'a string longer than twelve'];

describe('appendRows (DataChunks filled in bulk)', () => {
  it('reads back every value as appended, across chunk boundaries: strings, nulls, BIGINT, INTEGER, DOUBLE, BOOLEAN, TIMESTAMPTZ, JSON', async () => {
    const conn = await memory();
    await conn.run('CREATE TABLE t (a VARCHAR, b BIGINT, d DOUBLE, i INTEGER, ok BOOLEAN, ts TIMESTAMPTZ, j JSON)');
    const rows = Array.from({ length: 5000 }, (_, k) => ({
      a: STRINGS[k % STRINGS.length],
      b: k % 7 === 0 ? null : k * 123_456_789 - 2 ** 40,
      d: k % 11 === 0 ? null : k / 3,
      i: k % 5 === 0 ? null : -k,
      ok: k % 13 === 0 ? null : k % 2 === 0,
      ts: new Date(1_700_000_000_000 + k),
      j: k % 4 ? null : JSON.stringify({ k, s: STRINGS[k % STRINGS.length] }),
    }));
    await appendRows(conn, 't', ['a', 'b', 'd', 'i', 'ok', 'ts', 'j'], rows);
    const back = (await conn.runAndReadAll('SELECT a, b::DOUBLE AS b, d, i, ok, epoch_ms(ts)::DOUBLE AS ts, j FROM t ORDER BY rowid')).getRowObjectsJS();
    expect(back).toHaveLength(rows.length);
    back.forEach((x, k) => {
      const e = rows[k];
      expect({ ...x }).toEqual({ a: e.a, b: e.b, d: e.d, i: e.i, ok: e.ok, ts: e.ts.getTime(), j: e.j });
    });
    // The strings compare as DuckDB sees them (prefix and length in the slot), not only as read back.
    const n = (await conn.runAndReadAll(`SELECT count(*)::INTEGER FROM t WHERE a = 'a string longer than twelve'`)).getRows()[0][0];
    expect(n).toBe(rows.filter((r) => r.a === 'a string longer than twelve').length);
    expect((await conn.runAndReadAll(`SELECT count(*)::INTEGER FROM t WHERE a LIKE 'héllo%'`)).getRows()[0][0]).toBe(rows.filter((r) => r.a?.startsWith('héllo')).length);
  });

  it('converts a column the generic way when a value has an unexpected type, and refuses what DuckDB refuses', async () => {
    const conn = await memory();
    await conn.run('CREATE TABLE t (b BIGINT, a VARCHAR)');
    await appendRows(conn, 't', ['b', 'a'], [{ b: 5n, a: 'x' }, { b: 2 ** 53 + 2, a: 'y' }]);
    expect((await conn.runAndReadAll('SELECT b::VARCHAR, a FROM t ORDER BY rowid')).getRows()).toEqual([['5', 'x'], [String(2 ** 53 + 2), 'y']]);
    await expect(appendRows(conn, 't', ['b', 'a'], [{ b: 'not a number', a: 'z' }])).rejects.toThrow();
  });

  it('refills one chunk for every 2,048 rows: nothing of a chunk (its nulls, strings, a generic column) is left in the next', async () => {
    const conn = await memory();
    await conn.run('CREATE TABLE t (a VARCHAR, b BIGINT, c VARCHAR)');
    // Chunk 1: every value null, then long strings and a BigInt (a column converted the generic way); chunk 2: no
    // null at all, short strings; chunk 3 (partial): nulls again where chunk 2 had values.
    const rows = [
      ...Array.from({ length: 2048 }, (_, k) => (k < 1024 ? { a: null, b: null, c: null } : { a: `a long string number ${k}`, b: BigInt(k), c: `another long one ${k}` })),
      ...Array.from({ length: 2048 }, (_, k) => ({ a: `s${k % 100}`, b: k, c: 'short' })),
      ...Array.from({ length: 700 }, (_, k) => ({ a: k % 2 ? null : `tail string, long ${k}`, b: k % 3 ? null : 1 - k, c: null })),
    ];
    await appendRows(conn, 't', ['a', 'b', 'c'], rows);
    const back = (await conn.runAndReadAll('SELECT a, b::DOUBLE AS b, c FROM t ORDER BY rowid')).getRowObjectsJS();
    expect(back).toHaveLength(rows.length);
    back.forEach((x, k) => {
      const e = rows[k];
      expect({ ...x }).toEqual({ a: e.a, b: e.b === null ? null : Number(e.b), c: e.c });
    });
  });
});
