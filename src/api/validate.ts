/**
 * Checks one task against its endpoint's rules from the catalog. Pure: the client runs it before sending
 * (a failing task costs nothing and is never sent), the pipeline planner runs it before spending, and the
 * sandbox runs it to answer the task-level error the live service gives.
 */
import type { CrossRule, EndpointDef, FieldRule } from '../catalog/endpoint.js';
import { parseTimestamp } from './envelope.js';

export interface ValidationIssue {
  /** Dotted path of the field in the task, e.g. `filters` or `keywords[3]`. */
  field: string;
  /** The rule broken, in a few words: `required`, `max 700`, `max 8 conditions`, ... */
  rule: string;
  value: unknown;
  /** The task-level status the live service answers for it (40501 invalid field, 40506 unknown field, 40503 invalid data). */
  code: 40501 | 40503 | 40506;
  message: string;
}

export interface ValidateOptions {
  /** Clock for time-window rules (E13's last 7 days). */
  now?: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.?$/i;

/** Tokens as the paraphrase limit counts them: runs of letters or digits, and each other visible character. */
export function countTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function issue(field: string, rule: string, value: unknown, code: ValidationIssue['code'] = 40501): ValidationIssue {
  const label = code === 40506 ? 'Unknown Field' : 'Invalid Field';
  return { field, rule, value, code, message: `${label}: '${field}' ${rule} (got ${describe(value)}).` };
}

function checkCoordinate(field: string, v: string): ValidationIssue[] {
  const parts = v.split(',');
  if (parts.length !== 3) return [issue(field, 'must be "latitude,longitude,radius"', v)];
  const [lat, lng, radius] = parts.map((p) => p.trim());
  const out: ValidationIssue[] = [];
  const decimals = (s: string) => (s.split('.')[1] ?? '').length;
  for (const [name, s, lim] of [['latitude', lat, 90], ['longitude', lng, 180]] as const) {
    const n = Number(s);
    if (s === '' || !Number.isFinite(n) || Math.abs(n) > lim) out.push(issue(field, `${name} must be a number from -${lim} to ${lim}`, v));
    else if (decimals(s) > 7) out.push(issue(field, `${name} may have at most 7 decimal digits`, v));
  }
  const r = Number(radius);
  if (radius === '' || !Number.isFinite(r) || r < 199.9 || r > 199999) out.push(issue(field, 'radius must be from 199.9 to 199999', v));
  return out;
}

/** `latitude,longitude`, as the ads-based keyword API writes a location coordinate (no radius). */
function checkLatLng(field: string, v: string): ValidationIssue[] {
  const parts = v.split(',').map((p) => p.trim());
  if (parts.length !== 2) return [issue(field, 'must be "latitude,longitude"', v)];
  const out: ValidationIssue[] = [];
  for (const [name, s, lim] of [['latitude', parts[0], 90], ['longitude', parts[1], 180]] as const) {
    const n = Number(s);
    if (s === '' || !Number.isFinite(n) || Math.abs(n) > lim) out.push(issue(field, `${name} must be a number from -${lim} to ${lim}`, v));
  }
  return out;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Midnight UTC of a `yyyy-mm-dd` date, or null when it is not a real date in that format. */
export function parseDate(v: unknown): number | null {
  const m = typeof v === 'string' ? DATE.exec(v) : null;
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === v ? t : null;
}

function checkString(field: string, v: unknown, rule: Extract<FieldRule, { type: 'string' }>): ValidationIssue[] {
  if (typeof v !== 'string') return [issue(field, 'must be a string', v)];
  if (rule.minLength !== undefined && v.length < rule.minLength) return [issue(field, rule.minLength === 1 ? 'must not be empty' : `must be at least ${rule.minLength} characters`, v)];
  if (rule.maxLength !== undefined && v.length > rule.maxLength) return [issue(field, `must be at most ${rule.maxLength} characters`, v)];
  if (rule.enum && !rule.enum.includes(v)) return [issue(field, `must be one of ${rule.enum.join(', ')}`, v)];
  if (rule.tokens) {
    const n = countTokens(v);
    if (n < rule.tokens.min || n > rule.tokens.max) return [issue(field, `must be ${rule.tokens.min} to ${rule.tokens.max} tokens (has ${n})`, v)];
  }
  switch (rule.format) {
    case 'uuid': return UUID.test(v) ? [] : [issue(field, 'must be a task id in UUID format', v)];
    case 'domain': return DOMAIN.test(v.replace(/^https?:\/\//, '').replace(/\/.*$/, '')) ? [] : [issue(field, 'must be a domain name', v)];
    case 'url': {
      try {
        const u = new URL(v.replace(/\$id|\$tag/g, 'x'));
        return u.protocol === 'http:' || u.protocol === 'https:' ? [] : [issue(field, 'must be an http or https URL', v)];
      } catch { return [issue(field, 'must be an absolute URL', v)]; }
    }
    case 'timestamp': return parseTimestamp(v) ? [] : [issue(field, 'must be a timestamp "yyyy-mm-dd hh:mm:ss +00:00"', v)];
    case 'coordinate': return checkCoordinate(field, v);
    case 'lat_lng': return checkLatLng(field, v);
    case 'date': return parseDate(v) !== null ? [] : [issue(field, 'must be a date "yyyy-mm-dd"', v)];
    default: return [];
  }
}

const CONNECTORS = new Set(['and', 'or']);

const LIST_OPERATORS = new Set(['in', 'not_in']);
const TEXT_OPERATORS = new Set(['like', 'not_like', 'ilike', 'not_ilike', 'match', 'not_match', 'regex', 'not_regex']);
/** The live service's regex and not_regex patterns: at most 1000 characters (docs/api-live.md, "Filters"). */
const MAX_REGEX = 1000;

/** What a condition's value must be for its operator (docs/api-live.md, "Filters"), or null when it is fine. */
function filterValueRule(op: string, value: unknown): string | null {
  const scalar = (x: unknown) => x === null || ['string', 'number', 'boolean'].includes(typeof x);
  if (LIST_OPERATORS.has(op)) {
    return Array.isArray(value) && value.length > 0 && value.every(scalar) ? null : `with ${op} the value must be a non-empty array of values`;
  }
  if (TEXT_OPERATORS.has(op)) {
    if (typeof value !== 'string') return `with ${op} the value must be a string`;
    return (op === 'regex' || op === 'not_regex') && value.length > MAX_REGEX ? `a ${op} pattern may be at most ${MAX_REGEX} characters` : null;
  }
  return scalar(value) ? null : `with ${op} the value must be a single value (a string, number or boolean), not a list or object`;
}

/** Counts conditions in a filter expression, or returns the problem that makes it malformed. */
function walkFilters(expr: unknown, operators: readonly string[], at: string): { conditions: number; problem?: ValidationIssue } {
  const isCondition = (e: unknown): e is unknown[] =>
    Array.isArray(e) && e.length === 3 && typeof e[0] === 'string' && !CONNECTORS.has(e[0]) && typeof e[1] === 'string' && !Array.isArray(e[1]);
  if (isCondition(expr)) {
    const [field, op] = expr as [string, string, unknown];
    if (!/^[a-z_][a-z0-9_.]*$/i.test(field)) return { conditions: 1, problem: issue(at, 'condition field must be a field name like checks.is_https', field) };
    if (!operators.includes(op)) return { conditions: 1, problem: issue(at, `operator must be one of ${operators.join(' ')}`, op) };
    const valueRule = filterValueRule(op, (expr as unknown[])[2]);
    if (valueRule) return { conditions: 1, problem: issue(at, valueRule, (expr as unknown[])[2]) };
    return { conditions: 1 };
  }
  if (!Array.isArray(expr) || expr.length === 0) return { conditions: 0, problem: issue(at, 'must be a condition [field, operator, value] or a list of conditions joined by "and"/"or"', expr) };
  let conditions = 0;
  for (let i = 0; i < expr.length; i++) {
    const e = expr[i];
    if (i % 2 === 1) {
      if (typeof e !== 'string' || !CONNECTORS.has(e)) return { conditions, problem: issue(`${at}[${i}]`, 'conditions must be joined by "and" or "or"', e) };
      continue;
    }
    const sub = walkFilters(e, operators, `${at}[${i}]`);
    conditions += sub.conditions;
    if (sub.problem) return { conditions, problem: sub.problem };
  }
  if (expr.length % 2 === 0) return { conditions, problem: issue(at, 'must not end with a connector', expr) };
  return { conditions };
}

function checkField(field: string, v: unknown, rule: FieldRule): ValidationIssue[] {
  switch (rule.type) {
    case 'any': return [];
    case 'string': return checkString(field, v, rule);
    case 'integer':
    case 'number': {
      // A code declared as a string in the models: its digits are the integer the rule checks.
      if (rule.type === 'integer' && rule.digits && typeof v === 'string') return /^\d{1,15}$/.test(v) ? checkField(field, Number(v), { ...rule, digits: false }) : [issue(field, 'must be an integer (or a string of its digits)', v)];
      if (typeof v !== 'number' || !Number.isFinite(v)) return [issue(field, `must be ${rule.type === 'integer' ? 'an integer' : 'a number'}`, v)];
      if (rule.type === 'integer' && !Number.isInteger(v)) return [issue(field, 'must be an integer', v)];
      if (rule.type === 'integer' && rule.enum && !rule.enum.includes(v)) return [issue(field, `must be one of ${rule.enum.join(', ')}`, v)];
      if (rule.min !== undefined && v < rule.min) return [issue(field, `must be at least ${rule.min}`, v)];
      if (rule.max !== undefined && v > rule.max) return [issue(field, `must be at most ${rule.max}`, v)];
      return [];
    }
    case 'boolean': return typeof v === 'boolean' ? [] : [issue(field, 'must be true or false', v)];
    case 'string_array': {
      if (!Array.isArray(v)) return [issue(field, 'must be an array of strings', v)];
      if (rule.minItems !== undefined && v.length < rule.minItems) return [issue(field, `must hold at least ${rule.minItems} item${rule.minItems === 1 ? '' : 's'}`, v)];
      if (rule.maxItems !== undefined && v.length > rule.maxItems) return [issue(field, `must hold at most ${rule.maxItems} items`, v)];
      const out: ValidationIssue[] = [];
      v.forEach((item, i) => {
        if (typeof item !== 'string' || item.length === 0) out.push(issue(`${field}[${i}]`, 'must be a non-empty string', item));
        else if (rule.itemEnum && !rule.itemEnum.includes(item)) out.push(issue(`${field}[${i}]`, `must be one of ${rule.itemEnum.join(', ')}`, item));
        else if (rule.itemMaxLength !== undefined && item.length > rule.itemMaxLength) out.push(issue(`${field}[${i}]`, `must be at most ${rule.itemMaxLength} characters`, item));
        else if (rule.itemMaxWords !== undefined && item.trim().split(/\s+/).length > rule.itemMaxWords) out.push(issue(`${field}[${i}]`, `must be at most ${rule.itemMaxWords} words`, item));
      });
      return out.slice(0, 5);
    }
    case 'object_array': {
      if (!Array.isArray(v)) return [issue(field, 'must be an array of objects', v)];
      if (rule.minItems !== undefined && v.length < rule.minItems) return [issue(field, `must hold at least ${rule.minItems} item${rule.minItems === 1 ? '' : 's'}`, v)];
      if (rule.maxItems !== undefined && v.length > rule.maxItems) return [issue(field, `must hold at most ${rule.maxItems} items`, v)];
      const out: ValidationIssue[] = [];
      v.forEach((item, i) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) { out.push(issue(`${field}[${i}]`, 'must be an object', item)); return; }
        out.push(...checkObject(`${field}[${i}]`, item as Record<string, unknown>, rule.fields));
      });
      return out.slice(0, 5);
    }
    case 'filters': {
      const { conditions, problem } = walkFilters(v, rule.operators, field);
      if (problem) return [problem];
      if (conditions > rule.maxConditions) return [issue(field, `may hold at most ${rule.maxConditions} conditions (has ${conditions})`, v)];
      return [];
    }
    case 'order_by': {
      if (!Array.isArray(v)) return [issue(field, 'must be an array of "<field>,<asc|desc>" strings', v)];
      if (v.length > rule.maxRules) return [issue(field, `may hold at most ${rule.maxRules} rules`, v)];
      for (const [i, r] of v.entries()) {
        const m = typeof r === 'string' ? /^([a-z_][a-z0-9_.]*),(asc|desc)$/i.exec(r.trim()) : null;
        if (!m) return [issue(`${field}[${i}]`, 'must be "<field>,<asc|desc>"', r)];
        if (rule.fields && !rule.fields.includes(m[1])) return [issue(`${field}[${i}]`, `field must be one of ${rule.fields.join(', ')}`, r)];
      }
      return [];
    }
  }
}

function checkCross(task: Record<string, unknown>, rule: CrossRule, opts: ValidateOptions): ValidationIssue[] {
  const has = (f: string) => task[f] !== undefined && task[f] !== null;
  switch (rule.rule) {
    case 'one_of_required':
      return rule.fields.some(has) ? [] : [issue(rule.fields.join('|'), `one of ${rule.fields.join(', ')} is required`, undefined)];
    case 'required_with':
      return has(rule.when) && !has(rule.field) ? [issue(rule.field, `is required when ${rule.when} is set`, undefined)] : [];
    case 'sum_max': {
      const [a, b] = rule.fields;
      const va = typeof task[a] === 'number' ? (task[a] as number) : rule.defaults[0];
      const vb = typeof task[b] === 'number' ? (task[b] as number) : rule.defaults[1];
      return va + vb > rule.max ? [issue(`${a}+${b}`, `${a} plus ${b} must not exceed ${rule.max}`, va + vb)] : [];
    }
    case 'within_days': {
      const now = (opts.now ?? new Date()).getTime();
      const out: ValidationIssue[] = [];
      for (const f of rule.fields) {
        if (!has(f)) continue;
        const d = parseTimestamp(task[f]);
        if (d && (d.getTime() < now - rule.days * 86_400_000 || d.getTime() > now + 60_000)) out.push(issue(f, `must be within the last ${rule.days} days`, task[f]));
      }
      return out;
    }
    case 'together': {
      const given = rule.fields.filter(has);
      return given.length && given.length < rule.fields.length
        ? [issue(rule.fields.find((f) => !has(f))!, `is required with ${given.join(', ')}`, undefined)]
        : [];
    }
    case 'date_range': return checkDateRange(task, rule, opts);
    case 'needs': return has(rule.field) && !has(rule.needs) ? [issue(rule.field, `works only with ${rule.needs} set`, task[rule.field])] : [];
    case 'disjoint': {
      const [a, b] = rule.fields;
      const left = Array.isArray(task[a]) ? (task[a] as unknown[]) : [];
      const shared = Array.isArray(task[b]) ? (task[b] as unknown[]).filter((x) => left.includes(x)) : [];
      return shared.length ? [issue(b, `must not repeat a value of ${a} (${shared.join(', ')})`, task[b])] : [];
    }
  }
}

const DAY = 86_400_000;

/** A date range against today (UTC): the past window of keyword metrics or the future one of traffic forecasts. */
function checkDateRange(task: Record<string, unknown>, rule: Extract<CrossRule, { rule: 'date_range' }>, opts: ValidateOptions): ValidationIssue[] {
  const now = opts.now ?? new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = parseDate(task[rule.from]);
  const to = parseDate(task[rule.to]);
  const out: ValidationIssue[] = [];
  if (rule.window === 'past') {
    const earliest = Date.UTC(now.getUTCFullYear() - (rule.maxYearsBack ?? 4), now.getUTCMonth(), now.getUTCDate());
    for (const [f, d] of [[rule.from, from], [rule.to, to]] as const) {
      if (d === null) continue;
      if (d > today - DAY) out.push(issue(f, 'must be yesterday or earlier', task[f]));
      else if (d < earliest) out.push(issue(f, `must be at most ${rule.maxYearsBack ?? 4} years ago`, task[f]));
    }
    if (from !== null && to !== null && from > to) out.push(issue(rule.from, `must not be after ${rule.to}`, task[rule.from]));
  } else {
    const latest = Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate());
    if (from !== null && from < today + DAY) out.push(issue(rule.from, 'must be tomorrow or later (a forecast window)', task[rule.from]));
    if (to !== null && to > latest) out.push(issue(rule.to, 'must be at most a year from today', task[rule.to]));
    if (from !== null && to !== null && to <= from) out.push(issue(rule.to, `must be after ${rule.from}`, task[rule.to]));
  }
  return out;
}

/**
 * The fields of an object against their rules. A field sent as null is absent, as the live service treats it
 * (the official client sends every field of its request model, null when unset).
 */
function checkObject(at: string, t: Record<string, unknown>, rules: Readonly<Record<string, FieldRule>>, owner?: string): ValidationIssue[] {
  const name = (k: string) => (at ? `${at}.${k}` : k);
  const out: ValidationIssue[] = [];
  for (const key of Object.keys(t)) {
    if (!(key in rules) && t[key] !== null && t[key] !== undefined) out.push(issue(name(key), `is not a field of ${owner ?? at}`, t[key], 40506));
  }
  for (const [field, rule] of Object.entries(rules)) {
    const v = t[field];
    if (v === undefined || v === null) {
      if ('required' in rule && rule.required) out.push(issue(name(field), 'is required', v));
      continue;
    }
    out.push(...checkField(name(field), v, rule));
  }
  return out;
}

/** Every rule the task breaks, in field order; an empty list means it may be sent. */
export function validateTask(def: EndpointDef, task: unknown, opts: ValidateOptions = {}): ValidationIssue[] {
  if (def.method === 'GET') return [];
  if (task === null || typeof task !== 'object' || Array.isArray(task)) {
    return [{ field: '(task)', rule: 'must be a JSON object', value: task, code: 40503, message: `POST Data Is Invalid: each task must be a JSON object (got ${describe(task)}).` }];
  }
  const t = task as Record<string, unknown>;
  const out = checkObject('', t, def.fields ?? {}, def.id);
  for (const rule of def.cross ?? []) out.push(...checkCross(t, rule, opts));
  return out;
}
