#!/usr/bin/env node
/**
 * Reads the live service's published models - the official client `dataforseo-client` as installed in
 * node_modules (dist/esm/api/*.js: paths and methods; dist/esm/models/*.d.ts and *.js: fields, types and the
 * item types of polymorphic lists) - and writes the project's own declarations of every operation:
 *   src/families/generated/<family>.json  path, method, kind, variant, request field rules, paging, result model
 *   src/families/generated/models.json     every model a request or a result reaches: fields and types
 *   src/families/serp/models.generated.ts  the SERP request models and result classes the hand-declared SERP family
 *                                          builds on (`--serp-out file` writes or checks it elsewhere)
 * Facts carry over (names, types, paths, limits the field notes state); no code or prose is copied.
 * `node scripts/generate-declarations.mjs --check [--out dir]` writes nothing and exits 1 when the committed files
 * differ from what the installed client gives (test/families/generated.test.ts runs it).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_OUT = path.join(ROOT, 'src', 'families', 'generated');
const DEFAULT_SERP_OUT = path.join(ROOT, 'src', 'families', 'serp', 'models.generated.ts');

/** dist/esm of the installed client (the models and API classes the brief of this generator names). */
export function clientDir() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  let dir = path.dirname(require.resolve('dataforseo-client'));
  const isRoot = (d) => existsSync(path.join(d, 'package.json')) && JSON.parse(readFileSync(path.join(d, 'package.json'), 'utf8')).name === 'dataforseo-client';
  while (!isRoot(dir)) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'esm');
}

// ---- models ------------------------------------------------------------------------------------------------

/**
 * The body of a declaration from `from` (just past its opening brace) to its closing brace, nested braces kept
 * on one line. Braces inside doc comments do not count: a note's code example may leave one unclosed (the
 * `custom_js` note of On-Page's requests closes more than it opens, which once ended the model there).
 */
function braceBody(text, from) {
  let depth = 1;
  let body = '';
  for (let i = from; i < text.length && depth > 0; i++) {
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end < 0 ? text.length : end + 2);
      body += depth === 1 ? comment : comment.replace(/\n/g, ' ');
      i += comment.length - 1;
      continue;
    }
    const ch = text[i];
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (depth > 0) body += depth === 1 ? ch : ch === '\n' ? ' ' : ch;
  }
  return body;
}

/** The body of `export interface I<name> ... {` with nested braces kept on one line, and what it extends. */
function interfaceOf(text, name) {
  const head = new RegExp(`export interface I${name}(?: extends I(\\w+))? \\{`).exec(text);
  if (!head) return null;
  return { base: head[1] ?? null, body: braceBody(text, head.index + head[0].length) };
}

/** `{ [key: string]: X; }` -> `map<X>`, other types as written. */
function normType(t) {
  const m = /^\{\s*\[key: string\]: (.+?);\s*\}(\[\])?$/.exec(t.trim());
  return m ? `map<${normType(m[1])}>${m[2] ?? ''}` : t.trim().replace(/\s+/g, ' ');
}

/** Where a model is declared when not in a file of its own: item types sit in their polymorphic base's file. */
const declaredIn = new Map();

/** Fields (own, in order) of a model with each field's note, which only the request rules read. */
function modelFields(dir, name) {
  let file = path.join(dir, 'models', `${name}.d.ts`);
  if (!existsSync(file) && declaredIn.has(name)) file = path.join(dir, 'models', `${declaredIn.get(name)}.d.ts`);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const iface = interfaceOf(text, name);
  if (!iface) return null;
  const fields = [];
  let note = '';
  const wire = wireNames(file.replace(/\.d\.ts$/, '.js'), name);
  for (const line of iface.body.split('\n')) {
    const doc = /^\s*\/\*\*(.*)\*\/\s*$/.exec(line);
    if (doc) { note = doc[1]; continue; }
    const f = /^\s*(\w+)\?: (.+?) \| undefined;/.exec(line);
    if (f) fields.push({ name: wire.get(f[1]) ?? f[1], type: normType(f[2]), note });
    note = '';
  }
  return { base: iface.base, fields };
}

/** The JSON name of each property whose name on the wire differs (`target_1` is sent as `target1`). */
function wireNames(jsFile, name) {
  const out = new Map();
  if (!existsSync(jsFile)) return out;
  const all = readFileSync(jsFile, 'utf8');
  const at = all.indexOf(`export class ${name} `);
  if (at < 0) return out;
  const end = all.indexOf('\nexport class ', at + 1);
  for (const m of all.slice(at, end < 0 ? undefined : end).matchAll(/this\.(\w+) = data\["([^"]+)"\]/g)) if (m[1] !== m[2]) out.set(m[1], m[2]);
  return out;
}

/** Item types of a polymorphic model: the `type` value each subclass is chosen by (from the model's fromJS). */
function variantsOf(dir, name) {
  let file = path.join(dir, 'models', `${name}.js`);
  if (!existsSync(file) && declaredIn.has(name)) file = path.join(dir, 'models', `${declaredIn.get(name)}.js`);
  if (!existsSync(file)) return null;
  const all = readFileSync(file, 'utf8');
  const at = all.indexOf(`export class ${name} `);
  if (at < 0) return null;
  const end = all.indexOf('\nexport class ', at + 1);
  const text = all.slice(at, end < 0 ? undefined : end);
  const out = {};
  let by = null;
  for (const m of text.matchAll(/if \(data\["(\w+)"\] === "([^"]+)"\) \{\s*let result = new (\w+)\(\)/g)) { by = m[1]; out[m[2]] = m[3]; }
  return Object.keys(out).length ? { by, variants: out } : null;
}

const SCALARS = new Set(['string', 'number', 'boolean', 'any', 'Date']);

// ---- column types (facts the client's types leave out) ----------------------------------------------------------

/** The specification's integer fields by model (scripts/integer-facts.mjs): the TypeScript client types them `number`. */
const FACTS = JSON.parse(readFileSync(path.join(ROOT, 'scripts', 'facts', 'integer-fields.json'), 'utf8'));
const INTEGERS = FACTS.models;
/** The numbers the specification types `number` (double): a number in neither list is one its docs lack. */
const DOUBLES = FACTS.doubles;
/** A string the note says is a time (`yyyy-mm-dd hh-mm-ss +00:00`, ISO 8601) or a date (`yyyy-mm-dd`) by its format, */
const TIME_NOTE = /hh[-:]mm[-:]ss|year-month-date:minutes|\(in the UTC format\)/;
const DATE_NOTE = /yyyy-mm-dd|year-month-date/;
/** or by an example value of one alone (`example: '1997-03-29 03:00:00 +00:00'`, `example: 2022-05-16`). */
const TIME_EXAMPLE = /example:?\s*[`'"]*\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}:\d{2}|[`'"])/;

/**
 * A result field's type as its column takes it: `integer` for a number the specification types integer (also as
 * a list's or a map's element), `time` for a string its note gives a date or time format of; otherwise as written.
 */
function columnType(model, f) {
  const integer = INTEGERS[model]?.includes(f.name);
  if (integer) return f.type.replace(/\bnumber\b/, 'integer');
  if (f.type === 'string' && [TIME_NOTE, DATE_NOTE, TIME_EXAMPLE].some((r) => r.test(f.note))) return 'time';
  return f.type;
}
/** Model names a type refers to. */
function refs(type) {
  const t = type.replace(/^map<(.+)>$/, '$1').replace(/\[\]$/, '').replace(/\[\]$/, '');
  if (t.startsWith('map<')) return refs(t);
  return SCALARS.has(t) || t.includes(' ') || t.startsWith('{') ? [] : [t];
}

// ---- operations ------------------------------------------------------------------------------------------------

/** Every method of the client's API classes: the path it calls, HTTP method, request and response models. */
function clientOperations(dir) {
  const apiDir = path.join(dir, 'api');
  const ops = [];
  for (const file of readdirSync(apiDir).filter((f) => f.endsWith('Api.js')).sort()) {
    const js = readFileSync(path.join(apiDir, file), 'utf8');
    const dts = readFileSync(path.join(apiDir, file.replace(/\.js$/, '.d.ts')), 'utf8');
    const cls = file.replace(/\.js$/, '');
    for (const m of js.matchAll(/\n {4}(\w+)\(([^)]*)\) \{\n {8}let url_ = this\.baseUrl \+ "([^"]+)";([\s\S]*?)\n {4}\}\n {4}process\w+\(response\) \{([\s\S]*?)\n {4}\}(?=\n)/g)) {
      const [, method, , url, body, proc] = m;
      const http = /method: "(GET|POST)"/.exec(body)?.[1];
      const response = /result200 = resultData200 \? (\w+)\.fromJS/.exec(proc)?.[1];
      const sig = new RegExp(`\\n\\s+${method}\\(body: (\\w+)\\[\\]`).exec(dts);
      ops.push({ client: `${cls}.${method}`, method: http, path: url, request: sig?.[1] ?? null, response });
    }
  }
  return ops;
}

const KIND_WORDS = ['task_post', 'tasks_ready', 'tasks_fixed', 'task_get', 'live'];

/** Kind and variant of an operation, from its path's segments. */
function kindOf(segments, method) {
  const at = segments.findIndex((s) => KIND_WORDS.includes(s));
  if (at < 0) return { kind: 'list' };
  const kind = segments[at];
  const next = segments[at + 1];
  const variant = next && !next.startsWith('{') ? next : undefined;
  if (kind === 'live' && method === 'GET') return { kind: 'list' };
  return { kind, ...(variant ? { variant } : {}) };
}

/** `/v3/backlinks/summary/live` -> `backlinks.summary.live`; a path parameter other than the task id names itself. */
function idOf(p) {
  return p.replace(/^\/v3\//, '').split('/').filter((s) => s !== '{id}').map((s) => s.replace(/^\{(\w+)\}$/, '$1')).join('.');
}

// ---- request rules (facts the field notes state) ---------------------------------------------------------------

const COMPARISON = ['<', '<=', '>', '>=', '=', '<>'];
/** The filter operators that are words (docs/api-live.md, "Filters"): a note's list is read against these. */
const WORD_OPERATORS = new Set(['regex', 'not_regex', 'in', 'not_in', 'like', 'not_like', 'ilike', 'not_ilike', 'match', 'not_match', 'has', 'has_not']);
const num = (s) => Number(s.replace(/,/g, ''));

function fieldRule(f) {
  const n = f.note;
  const rule = {};
  if (/\*\*required field\*\*(?!\s*(?:if|when))/i.test(n) || /\brequired field(?!\s*(?:if|when))\b/.test(n.replace(/\*\*/g, '')) && !/optional field/.test(n)) rule.required = true;
  if (f.type === 'string' && /_code$/.test(f.name) && /example:\s*`\d+`/.test(n)) {
    // A code the models declare as a string though its example is a number (Google Trends' location_code): the
    // service documents an integer and the client's users send one (docs/api-live.md); its digits as a string pass too.
    rule.type = 'integer';
    rule.digits = true;
  } else if (f.type === 'string') {
    rule.type = 'string';
    const len = /character limit is (\d+)/.exec(n) ?? /up to (\d[\d,]*) characters/.exec(n) ?? /can(?:not| not) be longer than (\d+)/.exec(n) ?? /must be no more than (\d+) characters/.exec(n);
    if (len) rule.maxLength = num(len[1]);
    const list = /possible values:{1,2}\s*((?:`[\w\-./]+`(?:,\s*|\s+or\s+))+`[\w\-./]+`)\s*(?:default value|\*\/|$|;|\.|\s*(?:note|if|you|the|by|learn|example))/i.exec(n);
    if (list) rule.enum = [...list[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]);
  } else if (f.type === 'number') {
    rule.type = 'number';
    const max = /maximum value:?\s*`?(-?\d[\d,.]*)`?/.exec(n) ?? /possible values: from `?(?:-?\d[\d.]*)`? to `?(-?\d[\d,.]*)`?/.exec(n);
    const min = /minimum value:?\s*`?(-?\d[\d,.]*)`?/.exec(n) ?? /possible values: from `?(-?\d[\d,.]*)`? to/.exec(n);
    const dflt = /default value:?\s*`(-?\d[\d,.]*)`/.exec(n);
    if (max) rule.max = num(max[1].replace(/\.$/, ''));
    if (min) rule.min = num(min[1].replace(/\.$/, ''));
    if (dflt) rule.default = num(dflt[1].replace(/\.$/, ''));
  } else if (f.type === 'boolean') {
    rule.type = 'boolean';
  } else if (f.name === 'filters' || /filtering parameters/.test(n)) {
    rule.type = 'filters';
    rule.maxConditions = /only one filtering parameter/.test(n) ? 1 : num(/\((\d+) filters maximum\)/.exec(n)?.[1] ?? /(\d+) filters maximum/.exec(n)?.[1] ?? '8');
    // The operators a note lists, with or without backticks (On-Page pages writes them bare).
    const ops = /operators are supported:([^.]*?)(?:you can use|example|$)/.exec(n)?.[1] ?? '';
    rule.operators = [...new Set([...ops.split(/[\s,`]+/).filter((t) => WORD_OPERATORS.has(t)), ...COMPARISON])];
  } else if (f.name === 'order_by' || /sorting rules/.test(n) && f.type === 'string[]') {
    rule.type = 'order_by';
    rule.maxRules = /no more than (three|3|five|5) sorting rules/.test(n) ? ({ three: 3, five: 5 }[/no more than (\w+)/.exec(n)[1]] ?? 3) : 3;
  } else if (f.type === 'string[]') {
    rule.type = 'string_array';
    const items = /maximum number of [a-z ]+? you can specify(?: in this array)?: (\d[\d,]*)/.exec(n) ?? /up to (\d[\d,]*) (?!characters)[a-z]+/.exec(n) ?? /maximum amount of words: (\d[\d,]*)/.exec(n);
    if (items) rule.maxItems = num(items[1]);
    const itemLen = /maximum number of characters for each [a-z ]+?: (\d+)/.exec(n) ?? /maximum word length: (\d+) characters/.exec(n);
    if (itemLen) rule.itemMaxLength = num(itemLen[1]);
    const words = /maximum number of words for each [a-z ]+?: (\d+)/.exec(n);
    if (words) rule.itemMaxWords = num(words[1]);
  } else {
    rule.type = 'any';
    rule.of = f.type;
  }
  return rule;
}

/** Requirements between fields the notes state: one of a group, or one field with another. */
function crossRules(fields) {
  const groups = new Map();
  const out = [];
  for (const f of fields) {
    const plain = f.note.replace(/\*\*/g, '').replace(/_or/g, ' or');
    const m = /required field if (?:you )?(?:don't|do not) specify ((?:`\w+`(?:\s*(?:or|,)\s*)?)+)/.exec(plain) ?? /required field if ((?:`\w+`(?:\s*(?:or|,)\s*)?)+) (?:is|are) not specified/.exec(plain);
    if (m) {
      const names = [f.name, ...[...m[1].matchAll(/`(\w+)`/g)].map((x) => x[1])].filter((x) => fields.some((g) => g.name === x)).sort();
      if (names.length > 1) groups.set(names.join(','), names);
      continue;
    }
    const w = /required field if (?:you specify|you use) `(\w+)`/.exec(plain) ?? /required field if `(\w+)` is specified/.exec(plain);
    if (w && fields.some((g) => g.name === w[1])) out.push({ rule: 'required_with', field: f.name, when: w[1] });
  }
  // Groups that name the same fields in parts (location_code|location_name, location_code|location_name|location_coordinate) merge.
  const merged = [];
  for (const g of [...groups.values()].sort((a, b) => b.length - a.length)) {
    if (!merged.some((m) => g.every((x) => m.includes(x)))) merged.push(g);
  }
  return [...merged.map((fields) => ({ rule: 'one_of_required', fields })), ...out];
}

/**
 * The paging a request model supports, by the fields it has: a continuation token from the previous answer
 * (`search_after_token`), limit/offset that turns to `offset_token` past the offset cap, or limit/offset alone.
 */
function pagingOf(fields) {
  if (fields.search_after_token && fields.limit) return 'search_after_token';
  if (fields.offset_token && fields.limit && fields.offset) return 'limit_offset_token';
  if (fields.limit && fields.offset) return 'limit_offset';
  return null;
}

// ---- the whole ---------------------------------------------------------------------------------------------------

export function generate(dir = clientDir()) {
  const pkg = JSON.parse(readFileSync(path.join(dir, '..', '..', 'package.json'), 'utf8'));
  const source = `${pkg.name} ${pkg.version}`;
  const models = {};
  const want = [];
  const addModel = (name) => { if (!(name in models)) { models[name] = null; want.push(name); } };
  const resultModelOf = (response) => {
    const task = modelFields(dir, response)?.fields.find((f) => f.name === 'tasks')?.type.replace(/\[\]$/, '');
    const result = task ? modelFields(dir, task)?.fields.find((f) => f.name === 'result')?.type : undefined;
    return result ?? null;
  };

  const families = {};
  const seen = new Set();
  for (const op of clientOperations(dir)) {
    const key = `${op.method} ${op.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const segments = op.path.split('/').filter(Boolean);
    const family = segments[1];
    const { kind, variant } = kindOf(segments.slice(2), op.method);
    const result = op.response ? resultModelOf(op.response) : null;
    const entry = { id: idOf(op.path), method: op.method, path: op.path, kind, ...(variant ? { variant } : {}), client: op.client, response: op.response };
    if (result) {
      entry.result = result;
      refs(result).forEach(addModel);
    }
    if (op.request) {
      const req = modelFields(dir, op.request);
      entry.request = op.request;
      entry.fields = Object.fromEntries((req?.fields ?? []).map((f) => [f.name, fieldRule(f)]));
      const cross = crossRules(req?.fields ?? []);
      if (cross.length) entry.cross = cross;
      const paging = pagingOf(entry.fields);
      if (paging) entry.paging = paging;
    }
    (families[family] ??= []).push(entry);
  }
  while (want.length) {
    const name = want.shift();
    const m = modelFields(dir, name);
    if (!m) { delete models[name]; continue; }
    const poly = variantsOf(dir, name);
    const variants = poly?.variants;
    if (variants) for (const v of Object.values(variants)) if (!declaredIn.has(v)) declaredIn.set(v, declaredIn.get(name) ?? name);
    models[name] = {
      ...(m.base ? { extends: m.base } : {}),
      fields: Object.fromEntries(m.fields.map((f) => [f.name, columnType(name, f)])),
      ...(variants ? { ...(poly.by !== 'type' ? { discriminator: poly.by } : {}), variants } : {}),
    };
    if (m.base) addModel(m.base);
    m.fields.forEach((f) => refs(f.type).forEach(addModel));
    if (variants) Object.values(variants).forEach(addModel);
  }
  const files = {};
  for (const [family, operations] of Object.entries(families).sort(([a], [b]) => a.localeCompare(b))) {
    operations.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    files[`${family}.json`] = stringify({ source, family, operations });
  }
  const sorted = Object.fromEntries(Object.keys(models).sort().map((k) => [k, models[k]]));
  files['models.json'] = stringify({ source, models: sorted });
  return files;
}

// ---- the SERP catalog's models ------------------------------------------------------------------------------
// The hand-declared SERP family (src/families/serp/) builds its request rules and item tables on these: each SERP
// request model's fields with its depth caps, and every class its results can hold with the item types of each
// polymorphic base. Written to src/families/serp/models.generated.ts.

/** Where each interface is declared: most in their own file, some beside the base class that maps them. */
let serpDeclaredIn;
let MODELS;
function fileOf(name) {
  if (!serpDeclaredIn) {
    serpDeclaredIn = new Map();
    for (const f of readdirSync(MODELS).filter((x) => x.endsWith('.d.ts'))) {
      for (const m of readFileSync(path.join(MODELS, f), 'utf8').matchAll(/export interface I(\w+)/g)) if (!serpDeclaredIn.has(m[1]) || f === `${m[1]}.d.ts`) serpDeclaredIn.set(m[1], f);
    }
  }
  return serpDeclaredIn.get(name);
}

/** The fields of interface I<name> (and what it extends), each with its TypeScript type and doc comment. */
function serpFieldsOf(name) {
  const file = fileOf(name);
  if (!file) throw new Error(`${name}: no interface I${name} in the models`);
  const text = readFileSync(path.join(MODELS, file), 'utf8');
  const head = new RegExp(`export interface I${name}(?: extends I(\\w+))? \\{`).exec(text);
  if (!head) throw new Error(`${name}: no interface I${name}`);
  const out = new Map(head[1] ? serpFieldsOf(head[1]) : []);
  const body = braceBody(text, head.index + head[0].length);
  for (const m of body.matchAll(/(?:\/\*\*(.*?)\*\/\s*)?^\s*(\w+)\?: (.+?) \| undefined;/gms)) out.set(m[2], { type: m[3].trim(), doc: (m[1] ?? '').trim() });
  return out;
}

const docNum = (doc, re) => { const m = re.exec(doc); return m ? Number(m[1]) : undefined; };

/** The SERP request models of the catalog's types. */
const serpRequests = () => readdirSync(MODELS)
  .map((f) => /^(Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|Bing(?:Organic|LocalPack)|Yahoo(?:Organic)|Baidu(?:Organic))(?:TaskPost|Live(?:Regular|Advanced|Html))RequestInfo)\.d\.ts$/.exec(f)?.[1])
  .filter(Boolean)
  .sort();

function requestEntry(name) {
  const fields = serpFieldsOf(name);
  const depthDoc = fields.get('depth')?.doc ?? '';
  return {
    fields: Object.fromEntries([...fields].map(([k, v]) => [k, v.type])),
    depth: { default: docNum(depthDoc, /default value:\**\s*`(\d+)`/), max: docNum(depthDoc, /max value:\**\s*`(\d+)`/) },
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
  return Object.fromEntries([...serpFieldsOf(cls)].map(([k, v]) => [k, v.type]));
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
const serpResults = () => readdirSync(MODELS)
  .map((f) => /^(Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|BingOrganic|YahooOrganic|BaiduOrganic)(?:TaskGet|Live)(?:Regular|Advanced|Html)ResultInfo|Serp(?:Google(?:Organic|News|Images|Maps|AiMode)|BingOrganic|YahooOrganic|BaiduOrganic)TasksReadyResultInfo)\.d\.ts$/.exec(f)?.[1])
  .filter(Boolean)
  .sort();

/** The text of src/families/serp/models.generated.ts, from the models in `dir`. */
export function generateSerpModels(dir = clientDir()) {
  MODELS = path.join(dir, 'models');
  serpDeclaredIn = undefined;
  const requests = Object.fromEntries(serpRequests().map((n) => [n, requestEntry(n)]));
  const { classes, bases } = reachable(serpResults());
  const sortedBases = Object.fromEntries(Object.keys(bases).sort().map((b) => [b, bases[b]]));
  const fields = Object.fromEntries(classes.map((c) => [c, itemEntry(c)]));
  // The column types the client's own types leave out (columnType): integers and times, by class and field.
  const refined = Object.fromEntries(classes.map((c) => [c, Object.fromEntries([...serpFieldsOf(c)]
    .map(([name, v]) => [name, v.type, v.type === 'number' && DOUBLES[c]?.includes(name) ? 'double' : columnType(c, { name, type: v.type, note: v.doc })])
    .filter(([, raw, typed]) => typed !== raw && (raw === 'number' || raw === 'string'))
    .map(([name, , typed]) => [name, typed]))]).filter(([, f]) => Object.keys(f).length));
  return [
    '// Generated by scripts/generate-declarations.mjs (make declarations) from npm dataforseo-client\'s models; do not edit by hand.',
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
    '/** The scalar fields a column types more closely than the client: `integer` or `double` (the specification\'s) or `time` (a note\'s format). */',
    `export const SERP_FIELD_TYPES: Readonly<Record<string, Readonly<Record<string, 'integer' | 'double' | 'time'>>>> = ${JSON.stringify(refined, null, 2)};`,
    '',
  ].join('\n');
}

/** One operation or model per line group, two-space indents: a change of the API is a readable diff. */
function stringify(value) {
  return `${JSON.stringify(value, null, 1)}\n`;
}

function main() {
  const check = process.argv.includes('--check');
  const outAt = process.argv.indexOf('--out');
  const OUT = outAt > 0 ? path.resolve(process.argv[outAt + 1]) : DEFAULT_OUT;
  const serpAt = process.argv.indexOf('--serp-out');
  const SERP_OUT = serpAt > 0 ? path.resolve(process.argv[serpAt + 1]) : DEFAULT_SERP_OUT;
  const files = generate();
  const stale = [];
  if (!check) mkdirSync(OUT, { recursive: true });
  const targets = [...Object.entries(files).map(([name, text]) => [path.join(OUT, name), name, text]), [SERP_OUT, path.relative(ROOT, SERP_OUT), generateSerpModels()]];
  for (const [file, name, text] of targets) {
    const old = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (old === text) continue;
    stale.push(name);
    if (!check) writeFileSync(file, text);
  }
  const ops = Object.entries(files).filter(([n]) => n !== 'models.json').reduce((a, [, t]) => a + JSON.parse(t).operations.length, 0);
  if (check) {
    if (stale.length) {
      console.error(`the declarations differ from the installed client in: ${stale.join(', ')} (run make declarations)`);
      process.exit(1);
    }
    console.log(`src/families/generated and ${path.relative(ROOT, SERP_OUT)} match the installed client (${ops} operations)`);
  } else console.log(`wrote ${stale.length} of ${targets.length} files (src/families/generated, ${path.relative(ROOT, SERP_OUT)}; ${ops} operations)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
