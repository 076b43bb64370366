/**
 * A JSON shape checker over raw bytes, without building any object. It answers one question for the SQL fast
 * path: does this line hold only keys the catalog knows, each with a value of the kind its column expects?
 * If yes, DuckDB's typed read (which silently ignores unknown keys and casts loosely) gives exactly the rows the JS
 * extractor would; if no, the line goes to the JS extractor, which keeps unknown fields in `extra`.
 *
 * Beyond plain objects it knows the irregular parts of the catalog, each narrowed to what SQL reproduces exactly:
 * maps with dynamic keys (DuckDB MAP keeps the line's key order; keys made only of digits are refused because
 * JavaScript puts them first, duplicate keys because JSON.parse keeps the last and DuckDB refuses them), typed
 * items whose allowed fields depend on their `type` (the variant is chosen by the type's engine-neutral name),
 * and timestamps in the service's `yyyy-mm-dd hh:mm:ss +00:00` form with a real calendar date (JavaScript
 * rolls 02-30 over to March, DuckDB refuses it). A key given twice in an object is refused too: JSON.parse keeps
 * the last value, DuckDB's reader the first.
 *
 * Measured on 72 MB of keyword responses: about 4x cheaper than JSON.parse, since strings are skipped with a
 * native indexOf and keys are matched by a hash computed in the same pass.
 */

export type Shape =
  /** An object with these fields; other keys reject the line unless `rest` is 'skip'. */
  | { t: 'obj'; fields: Map<string, Shape>; rest?: 'reject' | 'skip' }
  | { t: 'open' }
  | { t: 'arr'; item: Shape }
  /** A string; `strict` refuses null too; `capture` collects its value (task ids). */
  | { t: 'str'; strict?: boolean; capture?: boolean }
  /** An integer token of at most `digits` digits (no fraction or exponent), or such a number as a string. */
  | { t: 'int'; digits: number }
  /** A number, or a string holding a plain decimal (`"4.5"`): DuckDB casts it to DOUBLE as Number() does. */
  | { t: 'num' }
  | { t: 'bool' }
  /** A `yyyy-mm-dd hh:mm:ss +00:00` string naming a real instant. */
  | { t: 'ts' }
  /** An object with any keys (not all digits, none twice), every value of shape `value`. */
  | { t: 'map'; value: Shape }
  /**
   * An object whose fields depend on its item type: the string at `key` is classified (null: refuse the line)
   * and the object must then have the variant's shape; without a type (absent or null) it must have `untyped`.
   */
  | { t: 'typed'; key: string; classify: (raw: string) => string | null; variants: ReadonlyMap<string, Shape>; untyped: Shape }
  /** Only null (or absent) is accepted: the SQL path does not handle this field. */
  | { t: 'null' };

const K_OBJ = 0, K_OPEN = 1, K_ARR = 2, K_STR = 3, K_INT = 4, K_NUM = 5, K_BOOL = 6, K_NULL = 7, K_TS = 8, K_MAP = 9, K_TYPED = 10;
const KIND: Record<Shape['t'], number> = { obj: K_OBJ, open: K_OPEN, arr: K_ARR, str: K_STR, int: K_INT, num: K_NUM, bool: K_BOOL, null: K_NULL, ts: K_TS, map: K_MAP, typed: K_TYPED };

/** A field with its key as written (with quotes), and that key as little-endian 32-bit words (last one padded). */
interface Field { quoted: Uint8Array; words: Uint32Array; shape: Compiled }
interface Compiled {
  k: number;
  digits: number;
  strict: boolean;
  capture: boolean;
  skipRest: boolean;
  /** Array items and map values. */
  item: Compiled | null;
  /** Fields in declared order. */
  fields: Field[];
  /**
   * The field that followed each field (slot 0: the first key) the last time this object was checked: objects
   * of one kind come with their keys in one order, so that field is tried first, byte by byte.
   */
  after: Int32Array | null;
  /** Fallback lookup: hash of the key bytes -> field index. */
  byHash: Map<number, number[]> | null;
  /** Per field, the visit that last saw it (a key seen twice in one visit refuses the line). */
  seen: Int32Array | null;
  /** Typed objects: the quoted type key, the classifier (memoised) and the compiled variants. */
  typeKey: Uint8Array | null;
  classify: ((raw: string) => string | null) | null;
  classified: Map<string, Compiled | null> | null;
  variants: Map<string, Compiled> | null;
  untyped: Compiled | null;
}

export function compileShape(s: Shape): Compiled {
  const c: Compiled = {
    k: KIND[s.t], digits: 0, strict: false, capture: false, skipRest: false, item: null, fields: [], after: null, byHash: null, seen: null,
    typeKey: null, classify: null, classified: null, variants: null, untyped: null,
  };
  switch (s.t) {
    case 'obj': {
      c.byHash = new Map();
      c.skipRest = s.rest === 'skip';
      for (const [k, v] of s.fields) {
        const quoted = Buffer.from(JSON.stringify(k), 'utf8');
        const h = hashBytes(quoted, 1, quoted.length - 1);
        const list = c.byHash.get(h) ?? [];
        list.push(c.fields.length);
        c.byHash.set(h, list);
        const words = new Uint32Array(Math.ceil(quoted.length / 4));
        for (let w = 0; w < words.length; w++) {
          let x = 0;
          for (let b = 3; b >= 0; b--) x = (x << 8) | (quoted[w * 4 + b] ?? 0);
          words[w] = x >>> 0;
        }
        c.fields.push({ quoted, words, shape: compileShape(v) });
      }
      c.seen = new Int32Array(c.fields.length);
      c.after = Int32Array.from({ length: c.fields.length + 1 }, (_, k) => k);
      break;
    }
    case 'arr': c.item = compileShape(s.item); break;
    case 'map': c.item = compileShape(s.value); break;
    case 'typed':
      c.typeKey = Buffer.from(JSON.stringify(s.key), 'utf8');
      c.classify = s.classify;
      c.classified = new Map();
      c.variants = new Map([...s.variants].map(([k, v]) => [k, compileShape(v)]));
      c.untyped = compileShape(s.untyped);
      break;
    case 'int': c.digits = s.digits; break;
    case 'str': c.strict = Boolean(s.strict); c.capture = Boolean(s.capture); break;
    default: break;
  }
  return c;
}

function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

const Q = 0x22, BS = 0x5c, LB = 0x7b, RB = 0x7d, LS = 0x5b, RS = 0x5d, COMMA = 0x2c, COLON = 0x3a;

class Reject extends Error {}
const REJECT = new Reject();

/** Visits of objects, numbering each so that a key seen twice in one object is noticed. */
let visits = 0;
/** Strings of `capture` shapes met by the current check. */
let captured: string[] = [];
/** The buffer being checked, for reading four bytes at a time. */
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

function ws(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
  return i;
}

/** Index just past the closing quote of the string starting at `i` (b[i] is the opening quote). */
function endOfString(buf: Buffer, i: number): number {
  // Most strings are short: a plain loop beats a native indexOf call for them.
  const stop = Math.min(buf.length, i + 48);
  for (let x = i + 1; x < stop; x++) {
    const b = buf[x];
    if (b === Q) return x + 1;
    if (b === BS) break;
  }
  let j = i + 1;
  for (;;) {
    const q = buf.indexOf(Q, j);
    if (q < 0) throw REJECT;
    let k = q - 1;
    let slashes = 0;
    while (k > i && buf[k] === BS) { slashes++; k--; }
    if ((slashes & 1) === 0) return q + 1;
    j = q + 1;
  }
}

function skipValue(buf: Buffer, i: number): number {
  i = ws(buf, i);
  const c = buf[i];
  if (c === Q) return endOfString(buf, i);
  if (c === LB || c === LS) {
    let depth = 0;
    while (i < buf.length) {
      const d = buf[i];
      if (d === Q) { i = endOfString(buf, i); continue; }
      if (d === LB || d === LS) depth++;
      else if (d === RB || d === RS) { depth--; if (depth === 0) return i + 1; }
      i++;
    }
    throw REJECT;
  }
  while (i < buf.length) {
    const d = buf[i];
    if (d === COMMA || d === RB || d === RS || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) return i;
    i++;
  }
  return i;
}

function hasBackslash(buf: Buffer, from: number, to: number): boolean {
  for (let x = from; x < to; x++) if (buf[x] === BS) return true;
  return false;
}

function isNullAt(buf: Buffer, i: number): boolean {
  return buf[i] === 0x6e && buf[i + 1] === 0x75 && buf[i + 2] === 0x6c && buf[i + 3] === 0x6c;
}

function checkValue(buf: Buffer, i: number, s: Compiled): number {
  let c = buf[i];
  if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i = ws(buf, i); c = buf[i]; }
  if (c === 0x6e) {
    if (s.strict || !isNullAt(buf, i)) throw REJECT;
    return i + 4;
  }
  switch (s.k) {
    case K_INT: {
      if (c === Q) return plainNumberString(buf, i, s.digits, false);
      let j = i;
      if (c === 0x2d) j++;
      const start = j;
      let d = buf[j];
      while (d >= 0x30 && d <= 0x39) d = buf[++j];
      if (j === start || j - start > s.digits || d === 0x2e || d === 0x65 || d === 0x45) throw REJECT;
      return j;
    }
    case K_OBJ: return checkObject(buf, i, s);
    case K_ARR: {
      if (c !== LS) throw REJECT;
      i++;
      if (buf[i] === RS) return i + 1;
      const item = s.item!;
      for (;;) {
        i = checkValue(buf, i, item);
        c = buf[i];
        if (c === COMMA) { i++; continue; }
        if (c === RS) return i + 1;
        i = ws(buf, i);
        c = buf[i];
        if (c === COMMA) { i++; continue; }
        if (c === RS) return i + 1;
        throw REJECT;
      }
    }
    case K_STR: {
      if (c !== Q) throw REJECT;
      const end = endOfString(buf, i);
      if (s.capture) {
        if (hasBackslash(buf, i + 1, end - 1)) throw REJECT;
        captured.push(buf.toString('utf8', i + 1, end - 1));
      }
      return end;
    }
    case K_NUM: {
      if (c === Q) return plainNumberString(buf, i, 300, true);
      let j = i;
      if (c === 0x2d) j++;
      const start = j;
      let d = buf[j];
      let nonZero = false, exp = false;
      while ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) {
        if (d === 0x65 || d === 0x45) exp = true;
        else if (!exp && d > 0x30 && d <= 0x39) nonZero = true;
        d = buf[++j];
      }
      if (j === start) throw REJECT;
      // -0 and values beyond a double's range: JSON.parse and DuckDB disagree (sign of zero, Infinity).
      if (c === 0x2d && !nonZero) throw REJECT;
      if (exp || j - start > 300) {
        const n = Number(buf.toString('latin1', i, j));
        if (!Number.isFinite(n)) throw REJECT;
      }
      return j;
    }
    case K_BOOL:
      if (c === 0x74 && buf[i + 1] === 0x72 && buf[i + 2] === 0x75 && buf[i + 3] === 0x65) return i + 4;
      if (c === 0x66 && buf[i + 1] === 0x61 && buf[i + 2] === 0x6c && buf[i + 3] === 0x73 && buf[i + 4] === 0x65) return i + 5;
      throw REJECT;
    case K_OPEN:
      return skipValue(buf, i);
    case K_TS:
      return timestampString(buf, i);
    case K_MAP:
      return checkMap(buf, i, s);
    case K_TYPED:
      return checkTyped(buf, i, s);
    default:
      throw REJECT;
  }
}

/**
 * A number written as a string (`"53"`, `"-4.5"`), in the one form DuckDB's JSON reader casts as Number() reads
 * it: no leading zeros, a fraction only when `fraction`, at most `digits` integer digits, never negative zero.
 */
function plainNumberString(buf: Buffer, i: number, digits: number, fraction: boolean): number {
  let j = i + 1;
  const neg = buf[j] === 0x2d;
  if (neg) j++;
  const start = j;
  let nonZero = false;
  while (buf[j] >= 0x30 && buf[j] <= 0x39) { if (buf[j] !== 0x30) nonZero = true; j++; }
  if (j === start || j - start > digits || (buf[start] === 0x30 && j - start > 1)) throw REJECT;
  if (buf[j] === 0x2e) {
    if (!fraction) throw REJECT;
    const f = ++j;
    while (buf[j] >= 0x30 && buf[j] <= 0x39) { if (buf[j] !== 0x30) nonZero = true; j++; }
    if (j === f) throw REJECT;
  }
  if (buf[j] !== Q || (neg && !nonZero)) throw REJECT;
  return j + 1;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TS_TAIL = Buffer.from(' +00:00"');

/** `"2025-12-26 15:00:00 +00:00"` with a real date and time. */
function timestampString(buf: Buffer, i: number): number {
  if (buf[i] !== Q) throw REJECT;
  const d = (k: number) => {
    const x = buf[i + 1 + k] - 0x30;
    if (x < 0 || x > 9) throw REJECT;
    return x;
  };
  if (buf[i + 5] !== 0x2d || buf[i + 8] !== 0x2d || buf[i + 11] !== 0x20 || buf[i + 14] !== COLON || buf[i + 17] !== COLON) throw REJECT;
  for (let k = 0; k < TS_TAIL.length; k++) if (buf[i + 20 + k] !== TS_TAIL[k]) throw REJECT;
  const year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const month = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  const hour = d(11) * 10 + d(12);
  const minute = d(14) * 10 + d(15);
  const second = d(17) * 10 + d(18);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month - 1])) throw REJECT;
  if (hour > 23 || minute > 59 || second > 59) throw REJECT;
  return i + 20 + TS_TAIL.length;
}

/** An object with dynamic keys: none made only of digits, none twice, each value of the item shape. */
function checkMap(buf: Buffer, i: number, s: Compiled): number {
  if (buf[i] !== LB) throw REJECT;
  i = ws(buf, i + 1);
  if (buf[i] === RB) return i + 1;
  let keys: Set<string> | null = null;
  let first = '';
  let n = 0;
  for (;;) {
    if (buf[i] !== Q) throw REJECT;
    const end = endOfString(buf, i);
    let digits = true;
    for (let x = i + 1; x < end - 1; x++) {
      const b = buf[x];
      // Keys are compared as written: an escaped spelling of the same key is refused rather than decoded.
      if (b === BS) throw REJECT;
      if (b < 0x30 || b > 0x39) digits = false;
    }
    if (digits) throw REJECT;
    const key = buf.toString('latin1', i + 1, end - 1);
    if (n === 0) first = key;
    else {
      if (n === 1) { keys = new Set([first]); }
      if (keys!.has(key)) throw REJECT;
      keys!.add(key);
    }
    n++;
    i = end;
    if (buf[i] !== COLON) { i = ws(buf, i); if (buf[i] !== COLON) throw REJECT; }
    i = checkValue(buf, i + 1, s.item!);
    let c = buf[i];
    if (c !== COMMA && c !== RB) { i = ws(buf, i); c = buf[i]; }
    if (c === COMMA) { i = ws(buf, i + 1); continue; }
    if (c === RB) return i + 1;
    throw REJECT;
  }
}

/** The string value of `key` at the top level of the object at `i`: null when absent or null; refuses others. */
function typeOf(buf: Buffer, i: number, key: Uint8Array): string | null {
  i = ws(buf, i + 1);
  if (buf[i] === RB) return null;
  for (;;) {
    if (buf[i] !== Q) throw REJECT;
    const end = endOfString(buf, i);
    let same = end - i === key.length;
    for (let x = 0; same && x < key.length; x++) same = buf[i + x] === key[x];
    i = ws(buf, end);
    if (buf[i] !== COLON) throw REJECT;
    i = ws(buf, i + 1);
    if (same) {
      if (isNullAt(buf, i)) return null;
      if (buf[i] !== Q) throw REJECT;
      const vEnd = endOfString(buf, i);
      if (hasBackslash(buf, i + 1, vEnd - 1)) throw REJECT;
      return buf.toString('utf8', i + 1, vEnd - 1);
    }
    i = ws(buf, skipValue(buf, i));
    if (buf[i] === COMMA) { i = ws(buf, i + 1); continue; }
    if (buf[i] === RB) return null;
    throw REJECT;
  }
}

function checkTyped(buf: Buffer, i: number, s: Compiled): number {
  if (buf[i] !== LB) throw REJECT;
  const raw = typeOf(buf, i, s.typeKey!);
  if (raw === null) return checkObject(buf, i, s.untyped!);
  let variant = s.classified!.get(raw);
  if (variant === undefined) {
    const name = s.classify!(raw);
    variant = name === null ? null : s.variants!.get(name) ?? null;
    s.classified!.set(raw, variant);
  }
  if (variant === null) throw REJECT;
  return checkObject(buf, i, variant);
}

/** Whether the `n` bytes at `i` are the key whose words are given (four bytes compared at a time). */
function sameKey(buf: Buffer, i: number, words: Uint32Array, n: number): boolean {
  if (i + n > buf.length) return false;
  const full = n >> 2;
  for (let w = 0; w < full; w++) if (view.getUint32(i + w * 4, true) !== words[w]) return false;
  const rest = n & 3;
  if (rest) {
    const last = words[full];
    const o = i + full * 4;
    for (let b = 0; b < rest; b++) if (buf[o + b] !== ((last >>> (b * 8)) & 0xff)) return false;
  }
  return true;
}

function checkObject(buf: Buffer, i: number, s: Compiled): number {
  if (buf[i] !== LB) throw REJECT;
  i = ws(buf, i + 1);
  if (buf[i] === RB) return i + 1;
  const fields = s.fields;
  const seen = s.seen!;
  const after = s.after!;
  const visit = ++visits;
  // Slot in `after` of the key just matched (0: none yet).
  let prev = 0;
  for (;;) {
    if (buf[i] !== Q) throw REJECT;
    let shape: Compiled | null = null;
    // Fast path: the key that followed last time, compared with its quotes.
    const guess = after[prev];
    if (guess < fields.length) {
      const f = fields[guess];
      const n = f.quoted.length;
      if (sameKey(buf, i, f.words, n)) {
        if (seen[guess] === visit) throw REJECT;
        seen[guess] = visit;
        shape = fields[guess].shape; i += n; prev = guess + 1;
      }
    }
    if (shape === null) {
      const end = endOfString(buf, i);
      const cands = s.byHash!.get(hashBytes(buf, i + 1, end - 1));
      if (cands) {
        for (const idx of cands) {
          const q = fields[idx].quoted;
          if (q.length !== end - i) continue;
          let x = 0;
          while (x < q.length && q[x] === buf[i + x]) x++;
          if (x === q.length) {
            if (seen[idx] === visit) throw REJECT;
            seen[idx] = visit;
            after[prev] = idx;
            shape = fields[idx].shape; prev = idx + 1; break;
          }
        }
      }
      if (shape === null && !s.skipRest) throw REJECT;
      i = end;
    }
    if (buf[i] !== COLON) { i = ws(buf, i); if (buf[i] !== COLON) throw REJECT; }
    i++;
    let c = buf[i];
    if (shape !== null && shape.k === K_INT && c >= 0x30 && c <= 0x39) {
      // The commonest value, inline: a non-negative integer token.
      const start = i;
      do c = buf[++i]; while (c >= 0x30 && c <= 0x39);
      if (i - start > shape.digits || c === 0x2e || c === 0x65 || c === 0x45) throw REJECT;
    } else {
      i = shape ? checkValue(buf, i, shape) : skipValue(buf, i);
      c = buf[i];
    }
    if (c !== COMMA && c !== RB) { i = ws(buf, i); c = buf[i]; }
    if (c === COMMA) { i = ws(buf, i + 1); continue; }
    if (c === RB) return i + 1;
    throw REJECT;
  }
}

/**
 * Index just past the JSON value starting at `start` if it has the shape, else -1. The values of `capture`
 * strings are pushed to `captures` when given (and only when the whole value has the shape).
 */
export function shapeEnd(buf: Buffer, start: number, shape: Compiled, captures?: string[]): number {
  captured = [];
  view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (visits > 0x3fffffff) {
    visits = 0;
    resetSeen(shape, new Set());
  }
  try {
    const end = ws(buf, checkValue(buf, start, shape));
    if (captures) for (const c of captured) captures.push(c);
    return end;
  } catch (err) {
    if (err instanceof Reject) return -1;
    throw err;
  }
}

function resetSeen(c: Compiled, done: Set<Compiled>): void {
  if (done.has(c)) return;
  done.add(c);
  c.seen?.fill(0);
  if (c.item) resetSeen(c.item, done);
  for (const f of c.fields) resetSeen(f.shape, done);
  if (c.untyped) resetSeen(c.untyped, done);
  for (const v of c.variants?.values() ?? []) resetSeen(v, done);
  for (const v of c.classified?.values() ?? []) if (v) resetSeen(v, done);
}

/** Whether the whole buffer from `start` is one JSON value of the shape. */
export function matchesShape(buf: Buffer, start: number, shape: Compiled): boolean {
  return shapeEnd(buf, start, shape) === buf.length;
}

export type CompiledShape = Compiled;
