/**
 * Rows turned into DuckDB's vector layouts, in plain JS with no DuckDB call, so it runs on any thread: numbers,
 * booleans and timestamps as little-endian fixed-width values, strings as DuckDB's 16-byte string_t slots (up to 12
 * UTF-8 bytes inline; a longer one's slot holds its 4-byte prefix and its offset into one UTF-8 heap per column),
 * nulls as a validity mask of 64-bit words. Everything goes into one growable arena, so a worker thread hands a
 * whole load over in a single transferred buffer; chunk-fill.ts writes the encoded columns into a DataChunk.
 */

/** How a column's values are encoded, from its DuckDB type. */
export type ColumnKind = 'varchar' | 'int64' | 'int32' | 'f64' | 'bool' | 'micros' | 'other';

/** One column of one chunk, encoded: offsets into the arena (-1 for none), or the values themselves ('values'). */
export type EncodedColumn =
  | { k: 'null' }
  | { k: 'fixed'; data: number; bytes: number; mask: number }
  | { k: 'varchar'; data: number; bytes: number; mask: number; heap: number; heapBytes: number }
  | { k: 'values'; values: unknown[] };

/** Up to this many rows a chunk (DuckDB's vector size). */
export const CHUNK_ROWS = 2048;
export const INLINE_BYTES = 12;
const TWO_32 = 2 ** 32;

/** The kind of a column from its DuckDB type name (duckdb_columns().data_type, or a catalog type). */
export function kindOfTypeName(type: string): ColumnKind {
  switch (type) {
    case 'VARCHAR': case 'JSON': return 'varchar';
    case 'BIGINT': return 'int64';
    case 'INTEGER': return 'int32';
    case 'DOUBLE': return 'f64';
    case 'BOOLEAN': return 'bool';
    case 'TIMESTAMPTZ': case 'TIMESTAMP WITH TIME ZONE': return 'micros';
    default: return 'other';
  }
}

/** A growable byte arena; `bytes` is replaced when it grows, so offsets, not views, are kept. */
export class Arena {
  bytes: Uint8Array;
  used = 0;
  constructor(size = 1 << 16) {
    this.bytes = new Uint8Array(size);
  }

  /** `n` bytes, 8-aligned (DuckDB's validity words), zeroed unless `dirty`; returns their offset. */
  alloc(n: number, dirty = false): number {
    const at = (this.used + 7) & ~7;
    const end = at + n;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    } else if (!dirty) {
      this.bytes.fill(0, at, end);
    }
    this.used = end;
    return at;
  }

  /** Forgets everything (the in-thread appender reuses one arena for every chunk). */
  reset(): void {
    this.used = 0;
  }
}

/** Encodes `count` values of a column; a value of another type than its kind makes it a 'values' column. */
export function encodeColumn(arena: Arena, kind: ColumnKind, values: readonly unknown[], count: number): EncodedColumn {
  // Most columns of a wide table are null in most chunks (an item type's fields): they take no bytes at all.
  let i = 0;
  while (i < count && (values[i] === null || values[i] === undefined)) i++;
  if (i === count) return { k: 'null' };
  const mark = arena.used;
  const enc = kind === 'varchar' ? encodeVarchar(arena, values, count) : kind === 'other' ? null : encodeFixed(arena, kind, values, count);
  if (enc) return enc;
  arena.used = mark;
  // A text column the catalog now types (a warehouse of an earlier catalog whose values did not all convert):
  // its typed values are written as text, times as the service writes them.
  if (kind === 'varchar') {
    const texts = encodeVarchar(arena, values.slice(0, count).map(asText), count);
    if (texts) return texts;
    arena.used = mark;
  }
  return { k: 'values', values: values.slice(0, count) as unknown[] };
}

/** A typed value as the text an earlier catalog stored: `2024-03-18 09:41:07 +00:00` for a time. */
function asText(v: unknown): unknown {
  if (v instanceof Date) return `${v.toISOString().slice(0, 19).replace('T', ' ')} +00:00`;
  return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : v;
}

/** Bytes of a validity mask of `count` rows (whole 64-bit words). */
export const maskBytes = (count: number) => Math.ceil(count / 64) * 8;

/** The validity mask of `values` (a bit per row, cleared for null) in the arena, or -1 when no value is null. */
function encodeMask(arena: Arena, values: readonly unknown[], count: number): number {
  let at = -1;
  for (let i = 0; i < count; i++) {
    if (values[i] !== null && values[i] !== undefined) continue;
    if (at < 0) {
      at = arena.alloc(maskBytes(count));
      arena.bytes.fill(0xff, at, at + maskBytes(count));
    }
    arena.bytes[at + (i >> 3)] &= ~(1 << (i & 7));
  }
  return at;
}

const WIDTH: Record<Exclude<ColumnKind, 'varchar' | 'other'>, number> = { int64: 8, int32: 4, f64: 8, bool: 1, micros: 8 };

function encodeFixed(arena: Arena, kind: Exclude<ColumnKind, 'varchar' | 'other'>, values: readonly unknown[], count: number): EncodedColumn | null {
  const width = WIDTH[kind];
  const data = arena.alloc(width * count);
  const dv = new DataView(arena.bytes.buffer, arena.bytes.byteOffset + data, width * count);
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const o = i * width;
    switch (kind) {
      case 'int64':
        if (typeof v !== 'number' || !Number.isSafeInteger(v)) return null;
        writeInt64(dv, o, v);
        break;
      case 'micros': {
        const us = v instanceof Date ? v.getTime() * 1000 : NaN;
        if (!Number.isSafeInteger(us)) return null;
        writeInt64(dv, o, us);
        break;
      }
      case 'int32':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) return null;
        dv.setInt32(o, v, true);
        break;
      case 'f64':
        if (typeof v !== 'number') return null;
        dv.setFloat64(o, v, true);
        break;
      case 'bool':
        if (typeof v !== 'boolean') return null;
        dv.setUint8(o, v ? 1 : 0);
        break;
    }
  }
  return { k: 'fixed', data, bytes: width * count, mask: encodeMask(arena, values, count) };
}

/** A safe integer as int64: two 32-bit halves, no BigInt per value. */
function writeInt64(dv: DataView, offset: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  dv.setUint32(offset, n - hi * TWO_32, true);
  dv.setUint32(offset + 4, hi >>> 0, true);
}

function encodeVarchar(arena: Arena, values: readonly unknown[], count: number): EncodedColumn | null {
  const data = arena.alloc(16 * count);
  // Strings that do not fit a slot as ASCII go to one heap (a row repeating the string before it, such as a task's
  // or a parent's id, shares its place), written with one encoder call; a long string's slot holds its offset there
  // until chunk-fill.ts hands the heap to DuckDB and turns offsets into pointers.
  const rowsOut: number[] = [];
  const strIndex: number[] = [];
  const strs: string[] = [];
  let last: string | undefined;
  let bytes = arena.bytes;
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') return null;
    const len = v.length;
    if (len <= INLINE_BYTES) {
      const at = data + i * 16;
      let ascii = true;
      for (let k = 0; k < len; k++) {
        const c = v.charCodeAt(k);
        if (c > 0x7f) { ascii = false; break; }
        bytes[at + 4 + k] = c;
      }
      if (ascii) {
        bytes[at] = len;
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
  let heap = -1;
  let heapBytes = 0;
  if (strs.length) {
    const joined = strs.join('');
    heap = arena.alloc(joined.length * 3, true); // written over by the encoder
    bytes = arena.bytes;
    const total = Buffer.from(bytes.buffer, bytes.byteOffset + heap, joined.length * 3).write(joined, 0, 'utf8');
    arena.used = heap + total;
    heapBytes = total;
    const dv = new DataView(bytes.buffer, bytes.byteOffset + data, 16 * count);
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
    for (let r = 0; r < rowsOut.length; r++) {
      const i = rowsOut[r];
      const k = strIndex[r];
      const at = data + i * 16;
      const len = lengths[k];
      const off = offsets[k];
      dv.setUint32(i * 16, len, true);
      const inline = len <= INLINE_BYTES;
      const n = inline ? len : 4;
      for (let b = 0; b < n; b++) bytes[at + 4 + b] = bytes[heap + off + b];
      if (!inline) dv.setUint32(i * 16 + 8, off, true);
    }
  }
  return { k: 'varchar', data, bytes: 16 * count, mask: encodeMask(arena, values, count), heap, heapBytes };
}

/**
 * Rows (objects keyed by column name, the normalizer's output) gathered column by column, a chunk of CHUNK_ROWS at
 * a time: `onChunk` takes each full chunk's columns (and `flush` the last), and the buffers are reused after it.
 */
export class ChunkBuilder {
  private readonly buffers: unknown[][];
  private count = 0;
  rows = 0;

  constructor(readonly columns: readonly string[], private readonly onChunk: (values: readonly unknown[][], count: number) => void) {
    // Grown as rows come, not CHUNK_ROWS slots a column up front: a wide family opens a hundred tables a load, most
    // of them for a few rows, and the slots of all their columns kept the collector busy (docs/performance.md).
    this.buffers = columns.map(() => []);
  }

  add(row: Record<string, unknown>): void {
    const at = this.count;
    for (let c = 0; c < this.columns.length; c++) {
      const v = row[this.columns[c]];
      this.buffers[c][at] = v === undefined ? null : v;
    }
    this.rows++;
    if (++this.count === CHUNK_ROWS) this.flush();
  }

  /** Hands over the rows gathered since the last chunk, if any. */
  flush(): void {
    const count = this.count;
    if (!count) return;
    this.count = 0;
    this.onChunk(this.buffers, count);
    for (const values of this.buffers) values.fill(null, 0, count);
  }
}
