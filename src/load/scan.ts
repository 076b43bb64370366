/**
 * A JSON shape checker over raw bytes, without building any object. It answers one question for the SQL fast
 * path: does this line hold only keys the catalog knows, each with a value of the kind its column expects?
 * If yes, DuckDB's typed read (which silently ignores unknown keys and casts loosely) gives exactly the rows the JS
 * extractor would; if no, the line goes to the JS extractor, which keeps unknown fields in `extra`.
 *
 * Measured on 72 MB of keyword responses: about 4x cheaper than JSON.parse, since strings are skipped with a
 * native indexOf and keys are matched by a hash computed in the same pass.
 */

export type Shape =
  /** An object with these fields; other keys reject the line unless `rest` is 'skip'. */
  | { t: 'obj'; fields: Map<string, Shape>; rest?: 'reject' | 'skip' }
  | { t: 'open' }
  | { t: 'arr'; item: Shape }
  /** A string; `strict` refuses null too. */
  | { t: 'str'; strict?: boolean }
  /** An integer token of at most `digits` digits (no fraction or exponent). */
  | { t: 'int'; digits: number }
  | { t: 'num' }
  | { t: 'bool' }
  /** Only null (or absent) is accepted: the SQL path does not handle this field. */
  | { t: 'null' };

const K_OBJ = 0, K_OPEN = 1, K_ARR = 2, K_STR = 3, K_INT = 4, K_NUM = 5, K_BOOL = 6, K_NULL = 7;
const KIND: Record<Shape['t'], number> = { obj: K_OBJ, open: K_OPEN, arr: K_ARR, str: K_STR, int: K_INT, num: K_NUM, bool: K_BOOL, null: K_NULL };

interface Field { quoted: Uint8Array; shape: Compiled }
interface Compiled {
  k: number;
  digits: number;
  strict: boolean;
  skipRest: boolean;
  item: Compiled | null;
  /** Fields in declared order: keys usually come in that order, so the next one is tried first, byte by byte. */
  fields: Field[];
  /** Fallback lookup: hash of the key bytes -> field index. */
  byHash: Map<number, number[]> | null;
}

export function compileShape(s: Shape): Compiled {
  const c: Compiled = { k: KIND[s.t], digits: 0, strict: false, skipRest: false, item: null, fields: [], byHash: null };
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
        c.fields.push({ quoted, shape: compileShape(v) });
      }
      break;
    }
    case 'arr': c.item = compileShape(s.item); break;
    case 'int': c.digits = s.digits; break;
    case 'str': c.strict = Boolean(s.strict); break;
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
    case K_STR:
      if (c !== Q) throw REJECT;
      return endOfString(buf, i);
    case K_NUM: {
      let j = i;
      if (c === 0x2d) j++;
      const start = j;
      let d = buf[j];
      while ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) d = buf[++j];
      if (j === start) throw REJECT;
      return j;
    }
    case K_BOOL:
      if (c === 0x74 && buf[i + 1] === 0x72 && buf[i + 2] === 0x75 && buf[i + 3] === 0x65) return i + 4;
      if (c === 0x66 && buf[i + 1] === 0x61 && buf[i + 2] === 0x6c && buf[i + 3] === 0x73 && buf[i + 4] === 0x65) return i + 5;
      throw REJECT;
    case K_OPEN:
      return skipValue(buf, i);
    default:
      throw REJECT;
  }
}

function checkObject(buf: Buffer, i: number, s: Compiled): number {
  if (buf[i] !== LB) throw REJECT;
  i = ws(buf, i + 1);
  if (buf[i] === RB) return i + 1;
  const fields = s.fields;
  let next = 0;
  for (;;) {
    if (buf[i] !== Q) throw REJECT;
    let shape: Compiled | null = null;
    // Fast path: the expected next key, compared with its quotes.
    if (next < fields.length) {
      const q = fields[next].quoted;
      let x = 0;
      const n = q.length;
      while (x < n && q[x] === buf[i + x]) x++;
      if (x === n) { shape = fields[next].shape; i += n; next++; }
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
          if (x === q.length) { shape = fields[idx].shape; next = idx + 1; break; }
        }
      }
      if (shape === null && !s.skipRest) throw REJECT;
      i = end;
    }
    if (buf[i] !== COLON) { i = ws(buf, i); if (buf[i] !== COLON) throw REJECT; }
    i = shape ? checkValue(buf, i + 1, shape) : skipValue(buf, i + 1);
    let c = buf[i];
    if (c !== COMMA && c !== RB) { i = ws(buf, i); c = buf[i]; }
    if (c === COMMA) { i = ws(buf, i + 1); continue; }
    if (c === RB) return i + 1;
    throw REJECT;
  }
}

/** Index just past the JSON value starting at `start` if it has the shape, else -1. */
export function shapeEnd(buf: Buffer, start: number, shape: Compiled): number {
  try {
    return ws(buf, checkValue(buf, start, shape));
  } catch (err) {
    if (err instanceof Reject) return -1;
    throw err;
  }
}

/** Whether the whole buffer from `start` is one JSON value of the shape. */
export function matchesShape(buf: Buffer, start: number, shape: Compiled): boolean {
  return shapeEnd(buf, start, shape) === buf.length;
}

export type CompiledShape = Compiled;
