/**
 * Fills one DataChunk column from JS values with a few bulk copies instead of a native call per value: numbers,
 * booleans and timestamps are written into a typed buffer and copied in once; strings of up to 12 UTF-8 bytes are
 * inlined in their 16-byte slot (DuckDB's string_t), longer ones are handed to DuckDB as one buffer per column and
 * chunk, their slots pointing into DuckDB's copy of it. Returns false for a value of an unexpected type, so the
 * caller converts that column the generic way.
 *
 * It writes DuckDB's internal string_t layout through `@duckdb/node-bindings`: that package is declared and pinned
 * to the exact version `@duckdb/node-api` uses (package.json), and `checkStringLayout` proves the layout against
 * DuckDB itself once per process before the first append, so an upgrade that changes it stops the load with a
 * clear error instead of corrupting strings (test/load/chunk-fill.test.ts).
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBDataChunk, DuckDBInstance, DuckDBTypeId, VARCHAR, type DuckDBType } from '@duckdb/node-api';

type Vector = ReturnType<typeof duckdb.data_chunk_get_vector>;

const INLINE_BYTES = 12;
const TWO_32 = 2 ** 32;

/** Scratch buffers reused across chunks (one column is filled at a time, synchronously). */
let scratch = new ArrayBuffer(16 * 2048);
function buffer(bytes: number): ArrayBuffer {
  if (scratch.byteLength < bytes) scratch = new ArrayBuffer(bytes);
  new Uint8Array(scratch, 0, bytes).fill(0);
  return scratch;
}
let validityScratch = new Uint8Array(2048 / 8);

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
    if (!fill(chunk, 1, VARCHAR, PROBE, PROBE.length)) throw new Error('the probe strings were not taken');
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

export function fillColumn(chunk: DuckDBDataChunk, column: number, type: DuckDBType, values: readonly unknown[], count: number): boolean {
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR: return fillVarchar(chunk, column, values, count);
    case DuckDBTypeId.BIGINT: return fillFixed(chunk, column, values, count, 8, safeInteger, writeInt64);
    case DuckDBTypeId.TIMESTAMP_TZ: return fillFixed(chunk, column, values, count, 8, micros, writeInt64);
    case DuckDBTypeId.INTEGER: return fillFixed(chunk, column, values, count, 4, (v) => (typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : undefined), (dv, o, v) => dv.setInt32(o, v, true));
    case DuckDBTypeId.DOUBLE: return fillFixed(chunk, column, values, count, 8, (v) => (typeof v === 'number' ? v : undefined), (dv, o, v) => dv.setFloat64(o, v, true));
    case DuckDBTypeId.BOOLEAN: return fillFixed(chunk, column, values, count, 1, (v) => (typeof v === 'boolean' ? (v ? 1 : 0) : undefined), (dv, o, v) => dv.setUint8(o, v));
    default: return false;
  }
}

/** The validity mask of `values` (a bit per row, cleared for null), or null when no value is null. */
function nullMask(values: readonly unknown[], count: number): Uint8Array | null {
  let mask: Uint8Array | null = null;
  for (let i = 0; i < count; i++) {
    if (values[i] !== null && values[i] !== undefined) continue;
    if (!mask) {
      const bytes = Math.ceil(count / 64) * 8;
      if (validityScratch.length < bytes) validityScratch = new Uint8Array(bytes);
      mask = validityScratch;
      mask.fill(0xff, 0, bytes);
    }
    mask[i >> 3] &= ~(1 << (i & 7));
  }
  return mask;
}

function finish(vector: Vector, data: ArrayBuffer, dataBytes: number, mask: Uint8Array | null, count: number): void {
  duckdb.copy_data_to_vector(vector, 0, data, 0, dataBytes);
  if (mask) {
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, mask.byteOffset, Math.ceil(count / 64) * 8);
  }
}

function fillFixed(chunk: DuckDBDataChunk, column: number, values: readonly unknown[], count: number, width: number, accept: (v: unknown) => number | undefined, write: (dv: DataView, offset: number, v: number) => void): boolean {
  const data = buffer(width * count);
  const dv = new DataView(data);
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const n = accept(v);
    if (n === undefined) return false;
    write(dv, i * width, n);
  }
  finish(duckdb.data_chunk_get_vector(chunk.chunk, column), data, width * count, nullMask(values, count), count);
  return true;
}

/** A safe integer as int64: two 32-bit halves, no BigInt per value. */
function writeInt64(dv: DataView, offset: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  dv.setUint32(offset, n - hi * TWO_32, true);
  dv.setUint32(offset + 4, hi >>> 0, true);
}
const safeInteger = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
/** TIMESTAMPTZ: microseconds since the epoch. */
const micros = (v: unknown) => (v instanceof Date ? safeInteger(v.getTime() * 1000) : undefined);

let heap = Buffer.alloc(1 << 16);

function fillVarchar(chunk: DuckDBDataChunk, column: number, values: readonly unknown[], count: number): boolean {
  const data = buffer(16 * count);
  const bytes = new Uint8Array(data, 0, 16 * count);
  const dv = new DataView(data, 0, 16 * count);
  // Strings that do not fit a slot as ASCII go to one heap (a row repeating the string before it, such as a task's
  // or a parent's id, shares its place), written with one encoder call and handed to DuckDB in one more; each slot
  // then points into DuckDB's copy of it.
  const rowsOut: number[] = [];
  const strIndex: number[] = [];
  const strs: string[] = [];
  let last: string | undefined;
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') return false;
    const len = v.length;
    if (len <= INLINE_BYTES) {
      const at = i * 16;
      let ascii = true;
      for (let k = 0; k < len; k++) {
        const c = v.charCodeAt(k);
        if (c > 0x7f) { ascii = false; break; }
        bytes[at + 4 + k] = c;
      }
      if (ascii) {
        dv.setUint32(at, len, true);
        continue;
      }
      bytes.fill(0, at + 4, at + 16);
    }
    if (v !== last) {
      strs.push(v);
      last = v;
    }
    rowsOut.push(i);
    strIndex.push(strs.length - 1);
  }
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  if (strs.length) {
    const joined = strs.join('');
    if (heap.length < joined.length * 3) heap = Buffer.alloc(joined.length * 3);
    const total = heap.write(joined, 0, 'utf8');
    // Byte offset and length of each string: its character counts when all is ASCII.
    const offsets = new Array<number>(strs.length);
    const lengths = new Array<number>(strs.length);
    let o = 0;
    for (let k = 0; k < strs.length; k++) {
      const n = total === joined.length ? strs[k].length : Buffer.byteLength(strs[k], 'utf8');
      offsets[k] = o;
      lengths[k] = n;
      o += n;
    }
    let lo = 0, hi = 0, pointed = false;
    for (let r = 0; r < rowsOut.length; r++) {
      const i = rowsOut[r];
      const k = strIndex[r];
      const at = i * 16;
      const len = lengths[k];
      const off = offsets[k];
      dv.setUint32(at, len, true);
      const inline = len <= INLINE_BYTES;
      const n = inline ? len : 4;
      for (let b = 0; b < n; b++) bytes[at + 4 + b] = heap[off + b];
      if (inline) continue;
      if (!pointed) {
        // DuckDB copies the heap into the vector's own string buffer (it lives as long as the chunk); this row's
        // slot tells where.
        duckdb.vector_assign_string_element_len(vector, i, heap.subarray(0, Math.max(total, INLINE_BYTES + 1)));
        const slots = duckdb.vector_get_data(vector, 16 * (i + 1));
        const slot = new DataView(slots.buffer, slots.byteOffset + at, 16);
        lo = slot.getUint32(8, true);
        hi = slot.getUint32(12, true);
        pointed = true;
      }
      const sum = lo + off;
      dv.setUint32(at + 8, sum >>> 0, true);
      dv.setUint32(at + 12, (hi + Math.floor(sum / TWO_32)) >>> 0, true);
    }
  }
  finish(vector, data, 16 * count, nullMask(values, count), count);
  return true;
}
