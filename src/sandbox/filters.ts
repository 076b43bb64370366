/**
 * Evaluates the API's filter expressions and order_by rules on generated items. The validator already checked
 * the shape (operators, connectors, the 8-condition cap); this module checks what needs the data: that each
 * field exists for this endpoint and that each value suits its operator, and then applies them.
 */
export type Getter = (item: any, field: string) => unknown;

export class FilterError extends Error {
  constructor(readonly field: string, readonly rule: string) {
    super(`Invalid Field: '${field}' ${rule}.`);
  }
}

type Compiled = (item: any) => boolean;

function likeToRegex(pattern: string): RegExp {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*');
  return new RegExp(`^${escaped}$`, 'is');
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b));
}

function isCondition(e: unknown): e is [string, string, unknown] {
  return Array.isArray(e) && e.length === 3 && typeof e[0] === 'string' && e[0] !== 'and' && e[0] !== 'or' && typeof e[1] === 'string' && !Array.isArray(e[1]);
}

function compileCondition(cond: [string, string, unknown], fields: ReadonlySet<string>, get: Getter, where: string): Compiled {
  const [field, op, value] = cond;
  if (!fields.has(field)) throw new FilterError(where, `field '${field}' is not a filter field here (known: ${[...fields].slice(0, 40).join(', ')}${fields.size > 40 ? ', ...' : ''})`);
  switch (op) {
    case 'regex':
    case 'not_regex': {
      if (typeof value !== 'string') throw new FilterError(where, `${op} needs a string pattern`);
      let re: RegExp;
      try {
        re = new RegExp(value);
      } catch (e) {
        throw new FilterError(where, `${op} pattern is not a valid regular expression (${(e as Error).message})`);
      }
      const want = op === 'regex';
      return (item) => {
        const v = get(item, field);
        return v !== null && v !== undefined && re.test(String(v)) === want;
      };
    }
    case 'like':
    case 'not_like': {
      if (typeof value !== 'string') throw new FilterError(where, `${op} needs a string pattern with % wildcards`);
      const re = likeToRegex(value);
      const want = op === 'like';
      return (item) => {
        const v = get(item, field);
        if (Array.isArray(v)) return v.some((x) => re.test(String(x))) === want;
        return v !== null && v !== undefined && re.test(String(v)) === want;
      };
    }
    case 'in':
    case 'not_in': {
      if (!Array.isArray(value)) throw new FilterError(where, `${op} needs an array of values`);
      const set = new Set(value.map((v) => String(v)));
      const want = op === 'in';
      return (item) => {
        const v = get(item, field);
        const hit = Array.isArray(v) ? v.some((x) => set.has(String(x))) : v !== null && v !== undefined && set.has(String(v));
        return hit === want;
      };
    }
    case '=':
    case '<>': {
      const want = op === '=';
      return (item) => {
        const v = get(item, field);
        if (Array.isArray(v)) return v.some((x) => x === value) === want;
        return (v === value || (v !== null && value !== null && compare(v, value) === 0 && typeof v === typeof value)) === want;
      };
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if (typeof value !== 'number' && typeof value !== 'string') throw new FilterError(where, `${op} needs a number or a string`);
      const test = op === '<' ? (c: number) => c < 0 : op === '<=' ? (c: number) => c <= 0 : op === '>' ? (c: number) => c > 0 : (c: number) => c >= 0;
      return (item) => {
        const v = get(item, field);
        return v !== null && v !== undefined && test(compare(v, value));
      };
    }
    default:
      throw new FilterError(where, `operator '${op}' is not supported`);
  }
}

/** Compiles a filter expression; `and` binds tighter than `or`, and nested arrays group. */
export function compileFilters(expr: unknown, fields: ReadonlySet<string>, get: Getter, where = 'filters'): Compiled {
  if (isCondition(expr)) return compileCondition(expr, fields, get, where);
  if (!Array.isArray(expr)) throw new FilterError(where, 'must be a condition or a list of conditions');
  const groups: Compiled[][] = [[]];
  expr.forEach((e, i) => {
    if (i % 2 === 1) {
      if (e === 'or') groups.push([]);
      return;
    }
    groups[groups.length - 1].push(compileFilters(e, fields, get, `${where}[${i}]`));
  });
  return (item) => groups.some((g) => g.every((c) => c(item)));
}

/** Fields referenced by a filter expression (to know whether cheap projections suffice). */
export function filterFields(expr: unknown, out = new Set<string>()): Set<string> {
  if (isCondition(expr)) out.add(expr[0]);
  else if (Array.isArray(expr)) for (const e of expr) if (typeof e !== 'string') filterFields(e, out);
  return out;
}

export interface OrderRule { field: string; dir: 1 | -1 }

export function parseOrderBy(rules: unknown, fields: ReadonlySet<string>, where = 'order_by'): OrderRule[] {
  if (!Array.isArray(rules)) return [];
  return rules.map((r, i) => {
    const [field, dir] = String(r).split(',').map((s) => s.trim());
    if (!fields.has(field)) throw new FilterError(`${where}[${i}]`, `field '${field}' cannot be sorted on here`);
    return { field, dir: dir.toLowerCase() === 'desc' ? -1 : 1 };
  });
}

/** Sorts with the rules; nulls go last whatever the direction, as the service lists them. */
export function comparator<T>(rules: OrderRule[], get: Getter): (a: T, b: T) => number {
  return (a, b) => {
    for (const { field, dir } of rules) {
      const va = get(a, field);
      const vb = get(b, field);
      const na = va === null || va === undefined;
      const nb = vb === null || vb === undefined;
      if (na || nb) {
        if (na && nb) continue;
        return na ? 1 : -1;
      }
      const c = compare(va, vb);
      if (c !== 0) return dir * c;
    }
    return 0;
  };
}

/** Dotted-path lookup: `fetch_timing.duration_time`. */
export function dotted(item: any, field: string): unknown {
  if (!field.includes('.')) return item?.[field];
  let v = item;
  for (const part of field.split('.')) {
    if (v === null || v === undefined) return undefined;
    v = v[part];
  }
  return v;
}

/** Every dotted path to a scalar or array in a sample object: the filterable fields of an item shape. */
export function fieldPaths(sample: Record<string, unknown>, prefix = '', out = new Set<string>()): Set<string> {
  for (const [k, v] of Object.entries(sample)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) fieldPaths(v as Record<string, unknown>, path, out);
    else out.add(path);
  }
  return out;
}
