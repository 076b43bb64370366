/**
 * Reads the official client's model declarations (node_modules/dataforseo-client/dist/esm/models/*.d.ts) and
 * checks a value against one: every field of the model present, no field it does not declare, each value null
 * or of the declared type (nested models and arrays of them checked the same way).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SERP_ITEM_CLASSES } from '../../src/families/serp/models.generated.js';

const require = createRequire(import.meta.url);
const MODELS = path.join(path.dirname(require.resolve('dataforseo-client')), 'models');
/** Interfaces declared beside the base class that maps them rather than in a file of their own. */
let declaredIn: Map<string, string> | undefined;
function fileOf(name: string): string {
  if (existsSync(path.join(MODELS, `${name}.d.ts`))) return `${name}.d.ts`;
  if (!declaredIn) {
    declaredIn = new Map();
    for (const f of readdirSync(MODELS).filter((x) => x.endsWith('.d.ts'))) {
      for (const m of readFileSync(path.join(MODELS, f), 'utf8').matchAll(/export interface I(\w+)/g)) if (!declaredIn.has(m[1])) declaredIn.set(m[1], f);
    }
  }
  return declaredIn.get(name) ?? `${name}.d.ts`;
}

interface Model { fields: Map<string, string> }
const cache = new Map<string, Model>();

/** The fields of interface I<name> (and of the interfaces it extends) with their declared types. */
export function model(name: string): Model {
  const hit = cache.get(name);
  if (hit) return hit;
  const text = readFileSync(path.join(MODELS, fileOf(name)), 'utf8');
  const head = new RegExp(`export interface I${name}(?: extends I(\\w+))? \\{`).exec(text);
  if (!head) throw new Error(`${name}: no interface I${name}`);
  const fields = new Map<string, string>(head[1] ? model(head[1]).fields : []);
  let depth = 1;
  let i = head.index + head[0].length;
  let body = '';
  for (; i < text.length && depth > 0; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}') depth--;
    if (depth > 0) body += depth === 1 ? text[i] : text[i] === '\n' ? ' ' : text[i];
  }
  for (const m of body.matchAll(/^\s*(\w+)\?: (.+?) \| undefined;/gm)) fields.set(m[1], m[2].trim());
  const out = { fields };
  cache.set(name, out);
  return out;
}

/** Problems of `value` against model `name`, as `path: problem` lines; empty when it matches field by field. */
export function modelProblems(name: string, value: unknown, at = name): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: expected an object of ${name}`];
  const { fields } = model(name);
  const obj = value as Record<string, unknown>;
  const out: string[] = [];
  for (const key of Object.keys(obj)) {
    if (typeof obj[key] === 'function') continue;
    if (!fields.has(key)) out.push(`${at}.${key}: not a field of ${name}`);
  }
  for (const [key, type] of fields) {
    if (!(key in obj)) out.push(`${at}.${key}: missing`);
    else out.push(...typeProblems(type, obj[key], `${at}.${key}`));
  }
  return out;
}

function typeProblems(type: string, v: unknown, at: string): string[] {
  if (v === null || v === undefined) return [];
  if (type.startsWith('{')) return typeof v === 'object' && !Array.isArray(v) ? [] : [`${at}: expected an object, got ${JSON.stringify(v)}`];
  if (type === 'any') return [];
  if (type.endsWith('[]')) {
    if (!Array.isArray(v)) return [`${at}: expected ${type}, got ${JSON.stringify(v)}`];
    return v.flatMap((e, i) => typeProblems(type.slice(0, -2), e, `${at}[${i}]`));
  }
  if (type === 'string' || type === 'number' || type === 'boolean') return typeof v === type ? [] : [`${at}: expected ${type}, got ${JSON.stringify(v)}`];
  if (type === 'Date') return v instanceof Date ? [] : [`${at}: expected a Date`];
  return modelProblems(subclassOf(type, v), v, at);
}

/** The class a polymorphic base maps a value to by its `type`, as the client's `fromJS` does; the base otherwise. */
function subclassOf(base: string, v: unknown): string {
  const t = (v as { type?: unknown } | null)?.type;
  return (typeof t === 'string' && SERP_ITEM_CLASSES[base]?.[t]) || base;
}
