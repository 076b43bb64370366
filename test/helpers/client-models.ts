/**
 * Reads the official client's model declarations (node_modules/dataforseo-client/dist/esm/models/*.d.ts) and
 * checks a value against one: every field of the model present, no field it does not declare, each value null
 * or of the declared type (nested models and arrays of them checked the same way). An item of a polymorphic model
 * is checked against the item type its `type` names, as the client's own parser picks it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
// The ESM build: its classes are written `export class`, which the item-type lookup below reads.
const MODELS = path.join(path.dirname(require.resolve('dataforseo-client')), '..', 'esm', 'models');

interface Model { fields: Map<string, string>; variants: Map<string, string>; by: string; wire: Map<string, string>; notes: Map<string, string> }
const cache = new Map<string, Model>();

let declaredIn: Map<string, string> | null = null;
/** The file declaring interface I<name>: its own, or (item types) the file of the model they belong to. */
function fileOf(name: string): string {
  const own = path.join(MODELS, `${name}.d.ts`);
  if (existsSync(own)) return own;
  if (!declaredIn) {
    declaredIn = new Map();
    for (const f of readdirSync(MODELS).filter((x) => x.endsWith('.d.ts'))) {
      for (const m of readFileSync(path.join(MODELS, f), 'utf8').matchAll(/^export interface I(\w+)/gm)) if (!declaredIn.has(m[1])) declaredIn.set(m[1], path.join(MODELS, f));
    }
  }
  const f = declaredIn.get(name);
  if (!f) throw new Error(`${name}: no interface I${name} in the client's models`);
  return f;
}

/** Item type value -> item type class, and the field that names it, from the class's own fromJS. */
function variantsOf(file: string, name: string): { by: string; variants: Map<string, string> } {
  const all = readFileSync(file.replace(/\.d\.ts$/, '.js'), 'utf8');
  const at = all.indexOf(`export class ${name} `);
  if (at < 0) return { by: 'type', variants: new Map() };
  const end = all.indexOf('\nexport class ', at + 1);
  const text = all.slice(at, end < 0 ? undefined : end);
  const found = [...text.matchAll(/if \(data\["(\w+)"\] === "([^"]+)"\) \{\s*let result = new (\w+)\(\)/g)];
  return { by: found[0]?.[1] ?? 'type', variants: new Map(found.map((m) => [m[2], m[3]])) };
}

/** The fields of interface I<name> (and of the interfaces it extends) with their declared types. */
export function model(name: string): Model {
  const hit = cache.get(name);
  if (hit) return hit;
  const file = fileOf(name);
  const text = readFileSync(file, 'utf8');
  const head = new RegExp(`export interface I${name}(?: extends I(\\w+))? \\{`).exec(text);
  if (!head) throw new Error(`${name}: no interface I${name}`);
  const fields = new Map<string, string>(head[1] ? model(head[1]).fields : []);
  const notes = new Map<string, string>(head[1] ? model(head[1]).notes : []);
  let depth = 1;
  let i = head.index + head[0].length;
  let body = '';
  for (; i < text.length && depth > 0; i++) {
    // A doc comment is copied whole: its braces (a code example may leave one open) are not the model's.
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end < 0 ? text.length : end + 2);
      body += depth === 1 ? comment : comment.replace(/\n/g, ' ');
      i += comment.length - 1;
      continue;
    }
    if (text[i] === '{') depth++;
    if (text[i] === '}') depth--;
    if (depth > 0) body += depth === 1 ? text[i] : text[i] === '\n' ? ' ' : text[i];
  }
  // The JSON name where the client maps a property to another one on the wire (`target_1` <- `target1`).
  const js = readFileSync(file.replace(/\.d\.ts$/, '.js'), 'utf8');
  const cls = js.slice(Math.max(0, js.indexOf(`export class ${name} `)));
  const wire = new Map([...cls.slice(0, Math.max(0, cls.indexOf('\nexport class ', 1)) || undefined).matchAll(/this\.(\w+) = data\["([^"]+)"\]/g)].map((m) => [m[1], m[2]]));
  for (const m of body.matchAll(/(?:\/\*\*(.*)\*\/\s*\n)?^\s*(\w+)\?: (.+?) \| undefined;/gm)) {
    fields.set(wire.get(m[2]) ?? m[2], m[3].trim());
    notes.set(wire.get(m[2]) ?? m[2], m[1] ?? '');
  }
  const out = { fields, notes, ...variantsOf(file, name), wire: new Map([...(head[1] ? model(head[1]).wire : []), ...wire]) };
  cache.set(name, out);
  return out;
}

/**
 * Problems of `value` against model `name`, as `path: problem` lines; empty when it matches field by field.
 * `parsed`: the value is the client's own parse, whose properties keep the models' names (`target_1` for the JSON
 * `target1`) and carry the item type the client chose (`discriminator`).
 */
export function modelProblems(name: string, value: unknown, at = name, parsed = false): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: expected an object of ${name}`];
  let obj = value as Record<string, unknown>;
  const { variants, by, wire } = model(name);
  const variant = typeof obj[by] === 'string' ? variants.get(obj[by] as string) : undefined;
  if (variant && variant !== name) return modelProblems(variant, value, at, parsed);
  if (parsed) obj = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'discriminator').map(([k, v]) => [wire.get(k) ?? k, v]));
  const { fields } = model(name);
  const out: string[] = [];
  for (const key of Object.keys(obj)) {
    if (typeof obj[key] === 'function') continue;
    if (!fields.has(key)) out.push(`${at}.${key}: not a field of ${name}`);
  }
  for (const [key, type] of fields) {
    if (!(key in obj)) out.push(`${at}.${key}: missing`);
    else out.push(...typeProblems(type, obj[key], `${at}.${key}`, parsed));
  }
  return out;
}

function typeProblems(type: string, v: unknown, at: string, parsed = false): string[] {
  if (v === null || v === undefined) return [];
  if (type === 'any') return [];
  if (type.endsWith('[]')) {
    if (!Array.isArray(v)) return [`${at}: expected ${type}, got ${JSON.stringify(v)}`];
    return v.flatMap((e, i) => typeProblems(type.slice(0, -2), e, `${at}[${i}]`, parsed));
  }
  if (type.startsWith('{')) return typeof v === 'object' && !Array.isArray(v) ? [] : [`${at}: expected an object, got ${JSON.stringify(v)}`];
  if (type === 'string' || type === 'number' || type === 'boolean') return typeof v === type ? [] : [`${at}: expected ${type}, got ${JSON.stringify(v)}`];
  if (type === 'Date') return v instanceof Date ? [] : [`${at}: expected a Date`];
  return modelProblems(type, v, at, parsed);
}
