/**
 * Fills one DataChunk column with a few bulk copies instead of a native call per value, from a column encoded in
 * DuckDB's vector layout (column-encode.ts, on this thread or a worker's): fixed-width values and the validity mask
 * are copied in once; a column's long strings are handed to DuckDB as one heap, their slots then pointed into
 * DuckDB's copy of it. A column holding a value of an unexpected type is converted the generic way.
 *
 * It writes DuckDB's internal string_t layout through `@duckdb/node-bindings`: that package is declared and pinned
 * to the exact version `@duckdb/node-api` uses (package.json), and `checkStringLayout` proves the layout against
 * DuckDB itself once per process before the first append, so an upgrade that changes it stops the load with a
 * clear error instead of corrupting strings (test/load/chunk-fill.test.ts).
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBDataChunk, DuckDBInstance, DuckDBTypeId, JSToDuckDBValueConverter, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import { Arena, CHUNK_ROWS, INLINE_BYTES, encodeColumn, maskBytes, type ColumnKind, type EncodedColumn } from './column-encode.js';

type Vector = ReturnType<typeof duckdb.data_chunk_get_vector>;

const TWO_32 = 2 ** 32;

/** A validity mask with every row null, for a column of nulls. */
const NO_ROWS = new ArrayBuffer(maskBytes(CHUNK_ROWS));

/** The arena fillColumn encodes into, reused for every column (one is filled at a time, synchronously). */
const scratch = new Arena();

/** Strings of every path above: inline ASCII, inline non-ASCII, heap strings repeated and not, empty, null. */
const PROBE: (string | null)[] = ['', 'short', 'twelve bytes', 'thirteen bytes', 'thirteen bytes', 'é', 'ééééééééééééé', null, 'x'.repeat(300), 'a longer string past the inline prefix'];

let layoutChecked: Promise<void> | null = null;

/** probeStringLayout once per process: every later caller gets the same answer (a failure included). */
export function checkStringLayout(): Promise<void> {
  layoutChecked ??= probeStringLayout();
  return layoutChecked;
}

/**
 * Fills a chunk with PROBE through `fill`, appends it to an in-memory table and reads it back through SQL:
 * resolves when DuckDB sees exactly the strings written, throws when it does not.
 */
export async function probeStringLayout(fill: typeof fillColumn = fillColumn): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run('CREATE TABLE probe (i INTEGER, s VARCHAR)');
    const appender = await conn.createAppender('probe');
    const chunk = DuckDBDataChunk.create([appender.columnType(0), VARCHAR]);
    chunk.rowCount = PROBE.length;
    chunk.setColumnValues(0, PROBE.map((_, i) => i));
    fill(chunk, 1, VARCHAR, PROBE, PROBE.length);
    appender.appendDataChunk(chunk);
    appender.closeSync();
    const got = (await conn.runAndReadAll('SELECT s FROM probe ORDER BY i')).getRows().map((r) => r[0]);
    const bad = PROBE.findIndex((v, i) => got[i] !== v);
    if (got.length !== PROBE.length || bad >= 0) {
      throw new Error(`@duckdb/node-bindings (DuckDB ${duckdb.library_version()}): DuckDB's string layout is not the one src/load/chunk-fill.ts writes (probe ${bad}: wrote ${JSON.stringify(PROBE[bad])}, read ${JSON.stringify(got[bad])}); loading stopped before any string was corrupted. Pin @duckdb/node-api and @duckdb/node-bindings back, or update chunk-fill.ts`);
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** The encoding of a DuckDB column type (column-encode.ts). */
export function kindOfType(type: DuckDBType): ColumnKind {
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR: return 'varchar';
    case DuckDBTypeId.BIGINT: return 'int64';
    case DuckDBTypeId.TIMESTAMP_TZ: return 'micros';
    case DuckDBTypeId.INTEGER: return 'int32';
    case DuckDBTypeId.DOUBLE: return 'f64';
    case DuckDBTypeId.BOOLEAN: return 'bool';
    default: return 'other';
  }
}

/** Fills column `column` of `chunk` from `count` JS values. */
export function fillColumn(chunk: DuckDBDataChunk, column: number, type: DuckDBType, values: readonly unknown[], count: number): void {
  scratch.reset();
  writeColumn(chunk, column, encodeColumn(scratch, kindOfType(type), values, count), scratch.bytes, count);
}

/** Fills column `column` of `chunk` from an encoded column whose offsets are into `arena` (its slots are patched). */
export function writeColumn(chunk: DuckDBDataChunk, column: number, enc: EncodedColumn, arena: Uint8Array, count: number): void {
  if (enc.k === 'values') {
    chunk.setColumnValuesConverted(column, enc.values as never, JSToDuckDBValueConverter);
    return;
  }
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  if (enc.k === 'null') {
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, NO_ROWS, 0, maskBytes(count));
    return;
  }
  if (enc.k === 'varchar' && enc.heap >= 0) pointIntoHeap(vector, enc, arena, count);
  duckdb.copy_data_to_vector(vector, 0, arena.buffer as ArrayBuffer, arena.byteOffset + enc.data, enc.bytes);
  if (enc.mask >= 0) {
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, arena.buffer as ArrayBuffer, arena.byteOffset + enc.mask, maskBytes(count));
  }
}

/**
 * DuckDB copies the column's heap into the vector's own string buffer (it lives as long as the chunk), assigned as
 * the first long string's value; that slot tells where the copy is, and every long string's offset becomes a pointer.
 */
function pointIntoHeap(vector: Vector, enc: Extract<EncodedColumn, { k: 'varchar' }>, arena: Uint8Array, count: number): void {
  const slots = new DataView(arena.buffer, arena.byteOffset + enc.data, enc.bytes);
  let lo = 0, hi = 0, pointed = false;
  for (let i = 0; i < count; i++) {
    const at = i * 16;
    if (slots.getUint32(at, true) <= INLINE_BYTES) continue;
    if (!pointed) {
      duckdb.vector_assign_string_element_len(vector, i, arena.subarray(enc.heap, enc.heap + Math.max(enc.heapBytes, INLINE_BYTES + 1)));
      const assigned = duckdb.vector_get_data(vector, 16 * (i + 1));
      const slot = new DataView(assigned.buffer, assigned.byteOffset + at, 16);
      lo = slot.getUint32(8, true);
      hi = slot.getUint32(12, true);
      pointed = true;
    }
    const sum = lo + slots.getUint32(at + 8, true);
    slots.setUint32(at + 8, sum >>> 0, true);
    slots.setUint32(at + 12, (hi + Math.floor(sum / TWO_32)) >>> 0, true);
  }
}
