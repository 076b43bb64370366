#!/usr/bin/env node
/**
 * Derives the SERP declarations the catalog and the tables build on from the official client's models
 * (node_modules/dataforseo-client/dist/esm/models/*.d.ts): each request model's fields with their depth caps, and
 * each result item type's fields. Writes src/families/serp/models.generated.ts; `--check` exits 1 when the
 * file is not what the models give (test/serp/models-generated.test.ts runs it).
 */
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const MODELS = path.join(path.dirname(require.resolve('dataforseo-client')), '..', 'esm', 'models');
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'src/families/serp/models.generated.ts');

/** Where each interface is declared: most in their own file, some beside the base class that maps them. */
let declaredIn;
function fileOf(name) {
  if (!declaredIn) {
    declaredIn = new Map();
    for (const f of readdirSync(MODELS).filter((x) => x.endsWith('.d.ts'))) {
      for (const m of readFileSync(path.join(MODELS, f), 'utf8').matchAll(/export interface I(\w+)/g)) if (!declaredIn.has(m[1]) || f === `${m[1]}.d.ts`) declaredIn.set(m[1], f);
    }
  }
  return declaredIn.get(name);
}

/** The fields of interface I<name> (and what it extends), each with its TypeScript type and doc comment. */
function fieldsOf(name) {
  const file = fileOf(name);
  if (!file) throw new Error(`${name}: no interface I${name} in the models`);
  const text = readFileSync(path.join(MODELS, file), 'utf8');
  const head = new RegExp(`export interface I${name}(?: extends I(\\w+))? \\{`).exec(text);
  if (!head) throw new Error(`${name}: no interface I${name}`);
  const out = new Map(head[1] ? fieldsOf(head[1]) : []);
  let depth = 1;
  let body = '';
  for (let i = head.index + head[0].length; i < text.length && depth > 0; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}') depth--;
    if (depth > 0) body += depth === 1 ? text[i] : text[i] === '\n' ? ' ' : text[i];
  }
  for (const m of body.matchAll(/(?:\/\*\*(.*?)\*\/\s*)?^\s*(\w+)\?: (.+?) \| undefined;/gms)) out.set(m[2], { type: m[3].trim(), doc: (m[1] ?? '').trim() });
  return out;
}

const num = (doc, re) => { const m = re.exec(doc); return m ? Number(m[1]) : undefined; };

/** The SERP request models of the catalog's types. */
const REQUESTS = readdirSync(MODELS)
  .map((f) => /^(Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|Bing(?:Organic|LocalPack)|Yahoo(?:Organic)|Baidu(?:Organic))(?:TaskPost|Live(?:Regular|Advanced|Html))RequestInfo)\.d\.ts$/.exec(f)?.[1])
  .filter(Boolean)
  .sort();

function requestEntry(name) {
  const fields = fieldsOf(name);
  const depthDoc = fields.get('depth')?.doc ?? '';
  return {
    fields: Object.fromEntries([...fields].map(([k, v]) => [k, v.type])),
    depth: { default: num(depthDoc, /default value:\**\s*`(\d+)`/), max: num(depthDoc, /max value:\**\s*`(\d+)`/) },
  };
}

/** The `type` values a polymorphic base class's fromJS maps, to their classes; empty for a plain class. */
function itemTypes(base) {
  const file = fileOf(base);
  if (!file) return {};
  let js;
  try { js = readFileSync(path.join(MODELS, file.replace(/\.d\.ts$/, '.js')), 'utf8'); } catch { return {}; }
  const at = js.indexOf(`class ${base} `);
  const body = at < 0 ? '' : js.slice(at, js.indexOf('\nexport class ', at + 1) >>> 0);
  const out = {};
  for (const m of body.matchAll(/data\["type"\] === "(\w+)"\)\s*\{\s*let result = new (\w+)\(\)/g)) out[m[1]] = m[2];
  return out;
}

function itemEntry(cls) {
  return Object.fromEntries([...fieldsOf(cls)].map(([k, v]) => [k, v.type]));
}

/** The classes reachable from `roots` through their fields and through polymorphic bases' subclasses. */
function reachable(roots) {
  const seen = new Set();
  const bases = {};
  const stack = [...roots];
  while (stack.length) {
    const cls = stack.pop();
    if (seen.has(cls)) continue;
    seen.add(cls);
    const subs = itemTypes(cls);
    if (Object.keys(subs).length) { bases[cls] = subs; stack.push(...Object.values(subs)); }
    for (const t of Object.values(itemEntry(cls))) {
      for (const ref of t.replace(/\[\]/g, '').split('|').map((x) => x.trim())) if (/^[A-Z]\w+$/.test(ref) && fileOf(ref)) stack.push(ref);
    }
  }
  return { classes: [...seen].sort(), bases };
}

/** The result models of the catalog's SERP types (task_get and live, each variant), and their tasks_ready items. */
const RESULTS = readdirSync(MODELS)
  .map((f) => /^(Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|BingOrganic|YahooOrganic|BaiduOrganic)(?:TaskGet|Live)(?:Regular|Advanced|Html)ResultInfo|Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|BingOrganic|YahooOrganic|BaiduOrganic)TasksReadyResultInfo)\.d\.ts$/.exec(f)?.[1])
  .filter(Boolean)
  .sort();

export function generate() {
  const requests = Object.fromEntries(REQUESTS.map((n) => [n, requestEntry(n)]));
  const { classes, bases } = reachable(RESULTS);
  const sortedBases = Object.fromEntries(Object.keys(bases).sort().map((b) => [b, bases[b]]));
  const fields = Object.fromEntries(classes.map((c) => [c, itemEntry(c)]));
  return [
    '// Generated by scripts/gen-serp-models.mjs from npm dataforseo-client\'s models; do not edit by hand.',
    '',
    '/** Each SERP request model: its fields (name -> TypeScript type) and the depth default and maximum its docs give. */',
    `export const SERP_REQUEST_MODELS: Readonly<Record<string, { fields: Readonly<Record<string, string>>; depth: { default?: number; max?: number } }>> = ${JSON.stringify(requests, null, 2)};`,
    '',
    '/** Polymorphic item bases: the `type` values each maps (as the client\'s fromJS does) to the class of the item. */',
    `export const SERP_ITEM_CLASSES: Readonly<Record<string, Readonly<Record<string, string>>>> = ${JSON.stringify(sortedBases, null, 2)};`,
    '',
    '/** Every class a SERP result of the catalog\'s types can hold, from the result models down: field name -> TypeScript type. */',
    `export const SERP_CLASS_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = ${JSON.stringify(fields, null, 2)};`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generate();
  if (process.argv.includes('--check')) {
    const cur = readFileSync(OUT, 'utf8');
    if (cur !== text) { console.error(`${path.relative(ROOT, OUT)} is out of date: run node scripts/gen-serp-models.mjs`); process.exit(1); }
  } else writeFileSync(OUT, text);
}
