/**
 * A family declared from the generated declarations (src/families/generated/, `make declarations`): its endpoints
 * with their request rules, and the tables its results land in, derived from the result models by the catalog's
 * rules - nested objects become `parent__child` columns, lists of objects child tables, lists of scalars one row
 * per value, maps with dynamic keys key/value rows, and a polymorphic list one table of the common fields and
 * `item_type`, with one table per item type of that type's own fields, keyed by the common row's `_id`.
 */
import type { CrossRule, EndpointDef, EndpointKind, FieldRule } from '../catalog/endpoint.js';
import type { ColumnDef, DuckType, TableDef } from '../catalog/table.js';
import { RENAMED_FIELDS } from '../catalog/renamed.js';
import type { FamilyDef } from '../catalog/family.js';
import MODELS_FILE from './generated/models.json' with { type: 'json' };

export interface GeneratedRule {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string_array' | 'filters' | 'order_by' | 'any';
  /** `integer` only: a string of its digits is taken too (a code the models declare as a string). */
  digits?: boolean;
  required?: boolean; maxLength?: number; enum?: string[]; min?: number; max?: number; default?: number;
  maxItems?: number; itemMaxLength?: number; itemMaxWords?: number; maxConditions?: number; operators?: string[]; maxRules?: number; of?: string;
}
export interface GeneratedOperation {
  id: string; method: 'GET' | 'POST'; path: string; kind: EndpointKind; variant?: string; client: string;
  response?: string; result?: string; request?: string;
  fields?: Record<string, GeneratedRule>; cross?: CrossRule[];
  /** The paging its request model supports (from its `limit`, `offset`, `offset_token`, `search_after_token` fields). */
  paging?: NonNullable<EndpointDef['paging']>;
}
export interface GeneratedFile { source: string; family: string; operations: GeneratedOperation[] }
/** A model: its fields, and for a polymorphic one its item types, chosen by `discriminator` (default `type`). */
export interface Model { extends?: string; fields: Record<string, string>; variants?: Record<string, string>; discriminator?: string }

export const MODELS: Readonly<Record<string, Model>> = (MODELS_FILE as unknown as { models: Record<string, Model> }).models;

export interface GeneratedFamilyOptions {
  /** Table name prefix (`labs` for dataforseo_labs): names stay short. */
  prefix: string;
  /** The `version` the sandbox answers with. */
  version: string;
  /** Rules the models do not state, by endpoint id (documented in docs/api-live.md). */
  fields?: Readonly<Record<string, Readonly<Record<string, FieldRule>>>>;
  /** Result kinds (root table names) renamed, by the derived name. */
  rename?: Readonly<Record<string, string>>;
  /** How the service bills an operation where its kind does not say (a POST list billed per page), by endpoint id (docs/api-live.md). */
  billing?: Readonly<Record<string, EndpointDef['billing']>>;
  /** Paths another declaration of the family already serves (hand-written endpoints win). */
  skipPaths?: ReadonlySet<string>;
}

const KIND_WORDS = new Set(['task_post', 'tasks_ready', 'tasks_fixed', 'task_get', 'live']);

function ruleOf(g: GeneratedRule): FieldRule {
  const req = g.required ? { required: true as const } : {};
  switch (g.type) {
    case 'string': return { type: 'string', ...req, ...(g.maxLength ? { maxLength: g.maxLength } : {}), ...(g.enum ? { enum: g.enum } : {}) };
    case 'integer': return { type: 'integer', ...req, ...(g.digits ? { digits: true } : {}) };
    case 'number': return { type: 'number', ...req, ...(g.min !== undefined ? { min: g.min } : {}), ...(g.max !== undefined ? { max: g.max } : {}), ...(g.default !== undefined ? { default: g.default } : {}) };
    case 'boolean': return { type: 'boolean', ...req };
    case 'string_array': return { type: 'string_array', ...req, ...(g.maxItems ? { maxItems: g.maxItems } : {}), ...(g.itemMaxLength ? { itemMaxLength: g.itemMaxLength } : {}), ...(g.itemMaxWords ? { itemMaxWords: g.itemMaxWords } : {}) };
    case 'filters': return { type: 'filters', maxConditions: g.maxConditions ?? 8, operators: g.operators ?? [] };
    case 'order_by': return { type: 'order_by', maxRules: g.maxRules ?? 3 };
    default: return { type: 'any', ...req, ...(g.of ? { of: g.of } : {}) };
  }
}

/** The result kind (and root table name) of an operation: prefix, then its path without the family, `google` and kind words. */
export function resultKindName(op: GeneratedOperation, prefix: string): string {
  const segs = op.path.split('/').slice(3).filter((s) => !s.startsWith('{') && !KIND_WORDS.has(s));
  const rest = segs.length > 1 ? segs.filter((s) => s !== 'google') : segs;
  return [prefix, ...rest].join('_').replace(/[^a-z0-9_]/gi, '_').toLowerCase();
}

/** The result element model of an operation (`X[]` -> X), or null for scalars and `any`. */
export function resultModel(op: GeneratedOperation): string | null {
  const t = op.result?.replace(/\[\]$/, '');
  return t && MODELS[t] ? t : null;
}

/**
 * The siblings of a task's endpoints (`readyId`, `getId`, `postId`), derived the same way for every family from
 * its ids: an id is `<base>.<kind>[.<variant>]` (`serp.google.organic.task_get.advanced`), and the task_post,
 * tasks_ready, tasks_fixed and task_get of one task share the base. A task_post collects with the base's
 * tasks_ready and its task_get (advanced first where there are variants); never written by hand.
 */
export function taskSiblings(id: string, kind: EndpointKind, ids: ReadonlySet<string>): Pick<EndpointDef, 'readyId' | 'getId' | 'postId'> {
  const segs = id.split('.');
  const at = segs.findIndex((s) => KIND_WORDS.has(s));
  if (at < 0) return {};
  const base = segs.slice(0, at).join('.');
  const getId = [`${base}.task_get`, `${base}.task_get.advanced`, `${base}.task_get.regular`, `${base}.task_get.html`].find((x) => ids.has(x));
  if (kind === 'task_post') return { ...(ids.has(`${base}.tasks_ready`) ? { readyId: `${base}.tasks_ready` } : {}), ...(getId ? { getId } : {}) };
  if (kind === 'tasks_ready' || kind === 'tasks_fixed') return { postId: `${base}.task_post`, ...(getId ? { getId } : {}) };
  if (kind === 'task_get') return { postId: `${base}.task_post` };
  return {};
}

export function generatedEndpoints(file: GeneratedFile, opts: GeneratedFamilyOptions): EndpointDef[] {
  const ops = file.operations.filter((o) => !opts.skipPaths?.has(o.path));
  const ids = new Set(ops.map((o) => o.id));
  return ops.map((op): EndpointDef => {
    const segs = op.path.split('/').slice(3);
    const at = segs.findIndex((s) => KIND_WORDS.has(s));
    const fn = at > 0 ? segs[at - 1] : segs.filter((s) => !s.startsWith('{')).at(-1) ?? file.family;
    const kindResult = op.kind === 'task_post' ? 'task_created' : op.kind === 'tasks_ready' ? 'ready_list' : op.kind === 'tasks_fixed' ? 'fixed_tasks' : null;
    const derived = resultKindName(op, opts.prefix);
    const result = kindResult ?? opts.rename?.[derived] ?? derived;
    const fields = op.fields ? { ...Object.fromEntries(Object.entries(op.fields).map(([k, g]) => [k, ruleOf(g)])), ...opts.fields?.[op.id] } : undefined;
    const def: EndpointDef = {
      id: op.id, ref: 'client', method: op.method, path: op.path.replace(/\{\w+\}/g, '{id}'), kind: op.kind,
      api: file.family, fn: op.kind === 'tasks_ready' || op.kind === 'tasks_fixed' ? op.kind : fn, result, version: opts.version,
      description: `${op.kind.replace('_', ' ')} ${op.path} (${op.client.replace('.', '.')}).`,
      ...(fields ? { fields } : {}), ...(op.cross ? { cross: op.cross } : {}),
      billing: opts.billing?.[op.id] ?? (op.kind === 'task_post' ? 'post' : op.kind === 'live' ? 'request' : 'free'),
      model: { client: op.client, result: op.result ?? 'any', ...(op.request ? { request: op.request } : {}) },
    };
    if (op.kind === 'task_post') Object.assign(def, { maxTasksPerPost: 100, overflowCode: 40006 });
    if (op.kind === 'live' || (op.kind === 'list' && op.method === 'POST')) Object.assign(def, { maxTasksPerPost: 1, overflowCode: 40000 });
    Object.assign(def, taskSiblings(op.id, op.kind, ids));
    if (op.paging) def.paging = op.paging;
    return def;
  });
}

// ---- tables -------------------------------------------------------------------------------------------------

/** Every field of a model, its bases' first. */
export function modelFields(name: string): [string, string][] {
  const m = MODELS[name];
  if (!m) return [];
  return [...(m.extends ? modelFields(m.extends) : []), ...Object.entries(m.fields)];
}

/** A polymorphic model's own fields and those of its item types that the common ones leave out, with the types having them. */
function polymorphicFields(name: string): { field: string; type: string; only?: string[] }[] {
  const m = MODELS[name];
  const common = modelFields(name);
  const out = common.map(([field, type]) => ({ field, type }));
  if (!m?.variants) return out;
  // By field and type: a field the item types declare with different types becomes one column (text, when the
  // scalar types differ) or one child table per type, each for the item types that have it.
  const extra = new Map<string, { field: string; type: string; only: string[] }>();
  for (const [itemType, variant] of Object.entries(m.variants)) {
    for (const [field, type] of modelFields(variant)) {
      if (common.some(([f]) => f === field)) continue;
      const scalar = SCALAR[type] !== undefined;
      const sameScalar = scalar ? [...extra.values()].find((e) => e.field === field && SCALAR[e.type] !== undefined) : undefined;
      if (sameScalar) {
        if (sameScalar.type !== type) sameScalar.type = widerScalar(sameScalar.type, type);
        sameScalar.only.push(itemType);
        continue;
      }
      const key = `${field}|${type}`;
      const e = extra.get(key);
      if (e) e.only.push(itemType); else extra.set(key, { field, type, only: [itemType] });
    }
  }
  return [...out, ...[...extra.values()].map((e) => ({ field: e.field, type: e.type, only: e.only }))];
}

/**
 * A model type's column type: `integer` and `time` are the generator's refinements of the client's `number` and
 * `string` (scripts/generate-declarations.mjs, columnType): the specification's integers, the notes' time formats.
 */
const SCALAR: Record<string, DuckType> = { string: 'VARCHAR', number: 'DOUBLE', integer: 'BIGINT', time: 'TIMESTAMPTZ', boolean: 'BOOLEAN', Date: 'TIMESTAMPTZ' };

/** One column for a field two item types declare with different scalar types: a number for numbers, else text. */
function widerScalar(a: string, b: string): string {
  const numbers = new Set(['integer', 'number']);
  return numbers.has(a) && numbers.has(b) ? 'number' : 'string';
}
const MAX_DEPTH = 4;
const MAX_OBJECT_DEPTH = 8;

interface Builder { tables: TableDef[]; names: Set<string> }

function childName(b: Builder, parent: string, field: string, longName: string): string {
  for (const n of [`${parent}__${field}`, `${parent}__${longName}`]) if (!b.names.has(n)) return n;
  let i = 2;
  while (b.names.has(`${parent}__${longName}_${i}`)) i++;
  return `${parent}__${longName}_${i}`;
}

/** The table of an item type's own fields: beside the common row, with its `_id` (the catalog's `item` rows). */
function itemTypeTables(b: Builder, table: string, model: string, pathPrefix: string, depth: number, first: boolean): TableDef[] {
  const m = MODELS[model]!;
  const common = new Set(modelFields(model).map(([f]) => f));
  const out: TableDef[] = [];
  // The row's first polymorphic object names its tables by type alone; another one by its field, then the type.
  const prefix = first ? '' : `${pathPrefix.split('.').at(-1)}__`;
  for (const [itemType, variant] of Object.entries(m.variants ?? {})) {
    const short = `${prefix}${itemType.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}`;
    const name = childName(b, table, short, `${short}_type`);
    b.names.add(name);
    // A table of its own: nesting counts from the common table, not from the object's place in it.
    const built = columnsOf(b, name, variant, '', '', depth - (pathPrefix ? pathPrefix.split('.').length : 0) + 1, undefined, { set: false }, common);
    const seen = new Set<string>();
    out.push({
      name, parent: table, extra: true, source: { kind: 'item', path: pathPrefix || '$', by: m.discriminator ?? 'type' }, onlyForItemTypes: [itemType],
      description: `The own fields of \`${itemType}\` items (${variant}) of \`${table}\`${pathPrefix ? ` (\`${pathPrefix}\`)` : ''}: one row per such row there, with its \`_id\`; the common fields are in \`${table}\`.`,
      columns: built.columns.filter((c) => !seen.has(c.name) && seen.add(c.name)),
    }, ...built.children);
  }
  return out;
}

/**
 * A field's value column, its keys in the order a spread of `value` gave them: the spread, megamorphic over the
 * catalog's thousands of columns, was most of the catalog's derivation in every process's start-up.
 */
function valueColumn(value: { name: string; formerly?: string }, type: DuckType, path: string, description: string, convert?: 'json'): ColumnDef {
  if (value.formerly !== undefined) return convert ? { name: value.name, formerly: value.formerly, type, path, convert, description } : { name: value.name, formerly: value.formerly, type, path, description };
  return convert ? { name: value.name, type, path, convert, description } : { name: value.name, type, path, description };
}

/** Columns of one table from a model (flattening nested models), adding its child tables to the builder. */
function columnsOf(b: Builder, table: string, model: string, colPrefix: string, pathPrefix: string, depth: number, only?: string[], itemTypeCol?: { set: boolean }, skip?: ReadonlySet<string>): { columns: ColumnDef[]; children: TableDef[] } {
  const columns: ColumnDef[] = [];
  const children: TableDef[] = [];
  const m = MODELS[model];
  // A polymorphic object puts its types' own fields in tables of their own (chosen by its own type field); the
  // row's first one also gives the row its `item_type`. One whose type field is not common keeps every type here.
  const carrier = Boolean(m?.variants && modelFields(model).some(([f]) => f === (m.discriminator ?? 'type')));
  const first = carrier && Boolean(itemTypeCol && !itemTypeCol.set);
  const fields = m?.variants && !carrier ? polymorphicFields(model) : modelFields(model).filter(([f]) => !skip?.has(f)).map(([field, type]) => ({ field, type, only: undefined as string[] | undefined }));
  const polymorphic = Boolean(m?.variants);
  const taken = new Set<string>();
  for (const { field, type, only: fieldOnly } of fields) {
    // A field named like the catalog's own `extra` column keeps its value under another name.
    const name = colPrefix ? `${colPrefix}__${field}` : field === 'extra' ? 'extra_value' : field;
    // A value column named as SQL reserves (`table`) too; nested columns and child tables keep the field's name.
    const renamed = colPrefix ? undefined : RENAMED_FIELDS[field];
    const value = renamed?.formerly ? { name: renamed.column, formerly: renamed.formerly } : { name };
    // A nested object two item types declare with different models: the columns of both (a name once).
    taken.add(name);
    const path = pathPrefix ? `${pathPrefix}.${field}` : field;
    const desc = `\`${path}\` (${model}.${field}: ${type})${fieldOnly ? `; item types ${fieldOnly.join(', ')} only` : ''}.`;
    const restrict = fieldOnly ?? only;
    if (first && field === (m!.discriminator ?? 'type')) {
      itemTypeCol!.set = true;
      columns.push({ name: 'item_type', type: 'VARCHAR', path, description: `\`${path}\`: the item type (${Object.keys(m!.variants!).join(', ')}); each type's own fields are in \`${table}__<type>\`.`, itemType: true });
      continue;
    }
    const scalar = SCALAR[type];
    if (scalar) { columns.push(valueColumn(value, scalar, path, desc)); continue; }
    // Past the depth of child tables, a nested object still flattens into named columns (as SERP's do), up to a
    // bound that also stops a model that contains itself; a list or a polymorphic object there stays JSON.
    const tooDeep = depth >= MAX_DEPTH && !(MODELS[type] && !MODELS[type].variants && depth < MAX_OBJECT_DEPTH);
    if (type === 'any' || type.endsWith('[][]') || tooDeep) { columns.push(valueColumn(value, 'JSON', path, `${desc} As JSON.`, 'json')); continue; }
    const map = /^map<(.+)>$/.exec(type);
    if (map) {
      const child = childName(b, table, field, name);
      b.names.add(child);
      children.push({
        name: child, parent: table, extra: SCALAR[map[1]] !== undefined && SCALAR[map[1]] !== 'VARCHAR', source: { kind: 'entries', path }, ...(restrict ? { onlyForItemTypes: restrict } : {}),
        description: `${desc} One row per key.`,
        // A map to scalars keeps their type (link counts per TLD are BIGINT); to anything else, JSON text.
        columns: [{ name: 'key', type: 'VARCHAR', path: '$key', description: 'Key.' }, { name: 'value', type: SCALAR[map[1]] ?? 'VARCHAR', path: '$', description: `Value (${map[1]}${SCALAR[map[1]] ? '' : '; JSON text'}).` }],
      });
      continue;
    }
    const list = /^(.+)\[\]$/.exec(type);
    if (list) {
      const el = list[1];
      const child = childName(b, table, field, name);
      if (SCALAR[el] || el === 'any') {
        b.names.add(child);
        const t: DuckType = SCALAR[el] ?? 'VARCHAR';
        children.push({ name: child, parent: table, extra: t !== 'VARCHAR', source: { kind: 'scalars', path }, ...(restrict ? { onlyForItemTypes: restrict } : {}), description: `${desc} One row per value.`, columns: [{ name: 'value', type: t, path: '$', description: 'Value.' }] });
      } else if (MODELS[el]) {
        b.names.add(child);
        children.push(...tableOf(b, child, table, el, { kind: 'objects', path }, depth + 1, restrict, desc));
      } else columns.push(valueColumn(value, 'JSON', path, `${desc} As JSON.`, 'json'));
      continue;
    }
    if (MODELS[type]) {
      const nested = columnsOf(b, table, type, name, path, depth + 1, restrict, itemTypeCol);
      columns.push(...nested.columns);
      children.push(...nested.children);
      continue;
    }
    columns.push(valueColumn(value, 'JSON', path, `${desc} As JSON.`, 'json'));
  }
  if (carrier) children.push(...itemTypeTables(b, table, model, pathPrefix, depth, first));
  return { columns, children };
}

function tableOf(b: Builder, name: string, parent: string | null, model: string, source: TableDef['source'] | undefined, depth: number, only: string[] | undefined, desc: string, resultKind?: string): TableDef[] {
  const itemTypeCol = { set: false };
  const built = columnsOf(b, name, model, '', '', depth, undefined, itemTypeCol);
  const children = built.children;
  // A name two item types give different shapes keeps its first declaration.
  const seen = new Set<string>();
  const columns = built.columns.filter((c) => !seen.has(c.name) && seen.add(c.name));
  const m = MODELS[model];
  const t: TableDef = {
    name, parent, extra: true, description: desc, columns,
    ...(source ? { source } : {}), ...(resultKind ? { resultKind } : {}), ...(only ? { onlyForItemTypes: only } : {}),
    ...(m?.variants ? { knownItemTypes: Object.keys(m.variants) } : {}),
  };
  return [t, ...children];
}

/**
 * The item-type tables of a hand-declared table of polymorphic items (model `model`): each type's own fields that
 * the hand-declared columns (`declared`, by path) leave out, by the rules above, so no field a model declares is
 * left to `extra`. A type whose own fields the hand-declared columns all take gets no table.
 */
export function ownFieldTables(table: string, model: string, declared: readonly ColumnDef[], taken: ReadonlySet<string> = new Set()): TableDef[] {
  const b: Builder = { tables: [], names: new Set([...taken, table]) };
  const paths = declared.flatMap((c) => [c.path, ...(c.alt ? [c.alt] : [])]);
  const covered = (p: string) => paths.some((d) => d === p || p.startsWith(`${d}.`));
  const all = itemTypeTables(b, table, model, '', 1, true);
  const own = new Set(all.filter((t) => t.parent === table).map((t) => t.name));
  // The hand-declared columns read the type's object itself: a path they take is not repeated, nor a list below it.
  let kept = all
    .map((t) => (own.has(t.name) ? { ...t, columns: t.columns.filter((c) => !covered(c.path)) } : t))
    .filter((t) => !(t.parent && own.has(t.parent) && covered(t.source!.path)));
  for (let n = -1; n !== kept.length;) {
    n = kept.length;
    const names = new Set([table, ...kept.map((t) => t.name)]);
    const parents = new Set(kept.map((t) => t.parent));
    kept = kept.filter((t) => names.has(t.parent!) && (!own.has(t.name) || t.columns.length > 0 || parents.has(t.name)));
  }
  return kept;
}

/** The tables of a result kind: one root table of the result model and its children; results without a model keep their JSON. */
export function deriveTables(kind: string, op: GeneratedOperation, taken: ReadonlySet<string>): TableDef[] {
  const b: Builder = { tables: [], names: new Set([...taken, kind]) };
  const model = resultModel(op);
  const what = `Results of ${op.path.replace(/\/\{\w+\}$/, '')} (${op.result ?? 'any'}), one row per element of a task's \`result\`.`;
  if (!model) {
    return [{ name: kind, parent: null, resultKind: kind, extra: false, description: what, columns: [{ name: 'result', type: 'JSON', path: '$', convert: 'json', description: 'The result element as JSON.' }] }];
  }
  return tableOf(b, kind, null, model, undefined, 0, undefined, what, kind);
}

/**
 * A hand-declared family completed from the generated declarations: every operation its own endpoints do not
 * already serve (same id, or one of `livePaths`: the live paths of its endpoints with other ids), with its tables.
 */
export function completeFamily(own: readonly EndpointDef[], ownTables: readonly TableDef[], file: GeneratedFile, opts: GeneratedFamilyOptions & { livePaths?: readonly string[] }): { endpoints: EndpointDef[]; onDemandTables: TableDef[] } {
  const ids = new Set(own.map((e) => e.id));
  const skip = new Set([...(opts.livePaths ?? []), ...file.operations.filter((o) => ids.has(o.id)).map((o) => o.path)]);
  const generated = generatedEndpoints(file, { ...opts, skipPaths: skip });
  // A hand-declared endpoint keeps its own answers and learns the models the client reads them with.
  const byId = new Map(file.operations.map((o) => [o.id, o]));
  const byPath = new Map(file.operations.map((o) => [`${o.method} ${o.path}`, o]));
  // Its task siblings derived as the generated endpoints' are (taskSiblings), over every id of the family.
  const allIds = new Set([...own.map((e) => e.id), ...generated.map((e) => e.id)]);
  const withModels = own.map((e, i): EndpointDef => {
    const op = byId.get(e.id) ?? (opts.livePaths ? byPath.get(`${e.method} ${opts.livePaths[i]}`) : undefined);
    const linked = { ...e, ...taskSiblings(e.id, e.kind, allIds) };
    return op && !e.model ? { ...linked, model: { client: op.client, result: op.result ?? 'any', ...(op.request ? { request: op.request } : {}) } } : linked;
  });
  return { endpoints: [...withModels, ...generated], onDemandTables: generatedTables(file, generated, new Set(ownTables.map((t) => t.name))) };
}

/** A path template of a hand-declared endpoint with its path tokens as the live service names them. */
export function livePath(def: EndpointDef, segments: Readonly<Record<string, string>>): string {
  return def.path.replace(/\{(\w+)\}/g, (all, token: string) => (token === 'id' ? all : segments[token] ?? all));
}

/** Every table of a generated family: one family of tables per result kind, in the order of the operations. */
export function generatedTables(file: GeneratedFile, endpoints: readonly EndpointDef[], taken: ReadonlySet<string> = new Set()): TableDef[] {
  const out: TableDef[] = [];
  const names = new Set(taken);
  const byId = new Map(file.operations.map((o) => [o.id, o]));
  for (const e of endpoints) {
    if (e.kind === 'task_post' || e.kind === 'tasks_ready' || e.kind === 'tasks_fixed' || names.has(e.result)) continue;
    const op = byId.get(e.id);
    if (!op) continue;
    const tables = deriveTables(e.result, op, names);
    for (const t of tables) names.add(t.name);
    out.push(...tables);
  }
  return out;
}

/** What a family declared wholly from its generated file says beyond it (docs/architecture.md, "Add a family"). */
export interface GeneratedFamilyDef extends Omit<GeneratedFamilyOptions, 'version'> {
  description: string;
  /** The `version` the sandbox answers with (the live service's for these families). */
  version?: string;
  inFlight?: number;
}

/**
 * A family declared wholly from its generated file (`make declarations`): its endpoints and on-demand tables
 * derived, answered by the sandbox from the models. Registered in one line of registry.ts, with no folder.
 */
export function generatedFamily(json: unknown, def: GeneratedFamilyDef): FamilyDef {
  const file = json as GeneratedFile;
  const { description, inFlight, version = '0.1.20240801', ...opts } = def;
  const endpoints = generatedEndpoints(file, { ...opts, version });
  return {
    name: file.family, description, endpoints, onDemandTables: generatedTables(file, endpoints),
    ...(inFlight ? { inFlight } : {}),
  };
}
