/**
 * JSON text of a parsed value, whatever its depth. JSON.parse takes any nesting, but V8's JSON.stringify recurses
 * and throws RangeError past a few thousand levels: an answer nested that deep would otherwise crash the run at
 * the point where its unknown parts are kept (`extra`) or archived. The same text as JSON.stringify, built with an
 * explicit stack when the fast path overflows.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return deepJsonText(value);
  }
}

type Frame = { kind: 'array'; items: unknown[]; i: number } | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; i: number; wrote: boolean };

function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string': return JSON.stringify(v);
    case 'number': return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint': throw new TypeError('Do not know how to serialize a BigInt');
    case 'undefined': case 'function': case 'symbol': return undefined;
    default: return undefined; // objects and arrays
  }
}

function deepJsonText(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, i: 0 });
    } else {
      const obj = v as Record<string, unknown>;
      out.push('{');
      stack.push({ kind: 'object', obj, keys: Object.keys(obj), i: 0, wrote: false });
    }
  };
  const first = scalar(root);
  if (first !== undefined || root === undefined || typeof root === 'function' || typeof root === 'symbol') return first ?? 'null';
  open(root);
  while (stack.length) {
    const f = stack[stack.length - 1];
    if (f.kind === 'array') {
      if (f.i >= f.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (f.i > 0) out.push(',');
      const v = f.items[f.i++];
      const s = scalar(v);
      if (s !== undefined) out.push(s);
      else if (v !== null && typeof v === 'object') open(v);
      else out.push('null'); // undefined, functions and symbols in arrays become null, as in JSON.stringify
    } else {
      if (f.i >= f.keys.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const key = f.keys[f.i++];
      const v = f.obj[key];
      const s = scalar(v);
      const nested = s === undefined && v !== null && typeof v === 'object';
      if (s === undefined && !nested) continue; // undefined, functions and symbols are left out of objects
      if (f.wrote) out.push(',');
      f.wrote = true;
      out.push(JSON.stringify(key), ':');
      if (nested) open(v);
      else out.push(s!);
    }
  }
  return out.join('');
}
