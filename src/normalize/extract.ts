/**
 * The one normalizer: pure functions from a collected task to rows of the catalog tables, for every path (nightly,
 * reprocess, ingest). It handles everything irregular: dynamic maps (technologies, additional_specifications),
 * unknown fields (kept in `extra`), unknown item types, values of an unexpected type, failed tasks.
 */
import type { ApiTask } from '../api/envelope.js';
import { parseSeconds, parseTimestamp, timestampHasZone } from '../api/envelope.js';
import type { ResultKind } from '../catalog/endpoint.js';
import type { Catalog } from '../catalog/catalog.js';
import { CATALOG } from '../families/index.js';
import { isTaskError } from '../api/status.js';
import { keyedParent, columnApplies, EXTRA_COLUMN, type ColumnDef, type TableDef, type DuckType, type RowSource } from '../catalog/table.js';
import { neutralItemType } from './item-type.js';
import { jsonText } from './json-text.js';

export interface CollectedTask {
  /** Catalog endpoint id; an id the catalog does not know sends the results to `unknown_results`. */
  endpointId: string;
  task: ApiTask;
  /** The envelope `version` that answered. */
  version: string;
  /** The run that collected it, when it differs from the load's (reprocess keeps each archive line's run). */
  runId?: string;
  /** The ledger's key of the task, when the collector tracked it (the ledger finds a task faster by key than by id). */
  key?: string;
  /** The size of the answer it came in, when known (see TaskOutcome.bytes): what bounds a load transaction. */
  bytes?: number;
}

export interface NormalizeContext {
  runId: string;
  loadedAt: Date;
  /** Engine path names whose prefix is stripped from item types (config.paths values); the task's `data.se` is added. */
  engines?: readonly string[];
  /** The catalog whose tables the rows are of: the process's (src/families/index.ts) unless given. */
  catalog?: Catalog;
}

export type Row = Record<string, unknown>;

/** What the extractor could not put in a declared column, by `table.path`; a run summary reports it. */
export class NormalizeStats {
  readonly unknownFields = new Map<string, number>();
  readonly unknownItemTypes = new Map<string, number>();
  readonly badValues = new Map<string, number>();
  tasks = 0;
  failedTasks = 0;
  skippedTasks = 0;

  static bump(map: Map<string, number>, key: string, n = 1): void {
    map.set(key, (map.get(key) ?? 0) + n);
  }
  get unknownFieldCount(): number { return sum(this.unknownFields); }
  get unknownItemTypeCount(): number { return sum(this.unknownItemTypes); }
  get badValueCount(): number { return sum(this.badValues); }
  merge(other: NormalizeStats): void {
    for (const [k, v] of other.unknownFields) NormalizeStats.bump(this.unknownFields, k, v);
    for (const [k, v] of other.unknownItemTypes) NormalizeStats.bump(this.unknownItemTypes, k, v);
    for (const [k, v] of other.badValues) NormalizeStats.bump(this.badValues, k, v);
    this.tasks += other.tasks;
    this.failedTasks += other.failedTasks;
    this.skippedTasks += other.skippedTasks;
  }
}
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** The result kind a collected task's results are, or undefined when its endpoint is not in the catalog. */
export function resultKindOf(endpointId: string, catalog: Catalog = CATALOG): ResultKind | undefined {
  return catalog.findEndpoint(endpointId)?.result;
}

/** Tables a collected task writes (Catalog.tablesOf). Pure: which of them a warehouse holds is the warehouse's (src/load/tables-in-use.ts). */
export function tablesOfTask(endpointId: string, catalog: Catalog = CATALOG): readonly string[] {
  return catalog.tablesOf(endpointId);
}

// ---- compiled plans -----------------------------------------------------------------------------------------

interface Trie { leaf: boolean; children: Map<string, Trie> }
const newTrie = (): Trie => ({ leaf: false, children: new Map() });
function trieAdd(t: Trie, path: readonly string[]): void {
  let node = t;
  for (const seg of path) {
    let next = node.children.get(seg);
    if (!next) node.children.set(seg, (next = newTrie()));
    node = next;
  }
  node.leaf = true;
}

/** Adds every path of `from` under `at` in `t`. */
function trieGraft(t: Trie, at: readonly string[], from: Trie): void {
  let node = t;
  for (const seg of at) {
    let next = node.children.get(seg);
    if (!next) node.children.set(seg, (next = newTrie()));
    node = next;
  }
  if (from.leaf) node.leaf = true;
  for (const [seg, sub] of from.children) {
    let next = node.children.get(seg);
    if (!next) node.children.set(seg, (next = newTrie()));
    trieGraft(next, [], sub);
  }
}

interface ColumnPlan {
  def: ColumnDef;
  /** Path segments, or a context name for `$...` columns. */
  segments: readonly string[] | null;
  /** The column's second place (ColumnDef.alt), read when the first holds nothing. */
  alt: readonly string[] | null;
  special: string | null;
}

interface ChildPlan {
  table: TableDef; plan: TablePlan; segments: readonly string[];
  /** An item type's own table (`item` rows): the paths it consumes, at its place in the parent's object. */
  graft?: Trie;
}

interface TablePlan {
  table: TableDef;
  columns: ColumnPlan[];
  children: ChildPlan[];
  /** Paths consumed by columns, ignored paths and children that apply to every item type. */
  consumed: Trie;
  /** Per item type: consumed paths including the children that apply only to some types. */
  consumedByType: Map<string, Trie>;
  known: Set<string> | null;
  /** Children of `item` rows (a table per item type), each chosen by its own object's type field. */
  items: ChildPlan[];
  /** Consumed paths of a row with the given item rows, by item type and the chosen item children. */
  withItems: Map<string, Trie>;
}

/** Each catalog's compiled plans, by table name: a second catalog's tables of the same name compile apart. */
const PLANS = new WeakMap<Catalog, Map<string, TablePlan>>();

export function planOf(name: string, catalog: Catalog = CATALOG): TablePlan {
  let plans = PLANS.get(catalog);
  if (!plans) PLANS.set(catalog, (plans = new Map()));
  let p = plans.get(name);
  if (!p) {
    p = compile(catalog.table(name), catalog);
    plans.set(name, p);
  }
  return p;
}

function compile(t: TableDef, catalog: Catalog): TablePlan {
  const columns: ColumnPlan[] = t.columns.map((def) => def.path.startsWith('$')
    ? { def, segments: null, alt: null, special: def.path }
    : { def, segments: def.path.split('.'), alt: def.alt ? def.alt.split('.') : null, special: null });
  const consumed = newTrie();
  for (const col of columns) {
    if (col.segments) trieAdd(consumed, col.segments);
    if (col.alt) trieAdd(consumed, col.alt);
  }
  for (const ig of t.ignored ?? []) trieAdd(consumed, ig.path.split('.'));
  const children: ChildPlan[] = catalog.childrenOf(t.name).map((ch) => ({ table: ch, plan: planOf(ch.name, catalog), segments: ch.source!.path.split('.') }));
  const items = children.filter((ch) => ch.table.source!.kind === 'item');
  for (const ch of items) {
    // What the type's table consumes, the own fields of item types nested in it included, at its path.
    const at = ch.table.source!.path === '$' ? [] : ch.segments;
    ch.graft = newTrie();
    for (const sub of [ch.plan.consumed, ...ch.plan.consumedByType.values()]) trieGraft(ch.graft, at, sub);
    for (const nested of ch.plan.items) trieGraft(ch.graft, at, nested.graft!);
  }
  const typed = children.filter((ch) => ch.table.onlyForItemTypes && ch.table.source!.kind !== 'item');
  for (const ch of children) if (!ch.table.onlyForItemTypes && ch.table.source!.kind !== 'item') trieAdd(consumed, ch.segments);
  const consumedByType = new Map<string, Trie>();
  for (const ch of typed) {
    for (const type of ch.table.onlyForItemTypes!) {
      if (!consumedByType.has(type)) {
        const tr = newTrie();
        for (const col of columns) {
          if (col.segments) trieAdd(tr, col.segments);
          if (col.alt) trieAdd(tr, col.alt);
        }
        for (const ig of t.ignored ?? []) trieAdd(tr, ig.path.split('.'));
        for (const c2 of children) if (c2.table.source!.kind !== 'item' && (!c2.table.onlyForItemTypes || c2.table.onlyForItemTypes.includes(type))) trieAdd(tr, c2.segments);
        consumedByType.set(type, tr);
      }
    }
  }
  return { table: t, columns, children, consumed, consumedByType, known: t.knownItemTypes ? new Set(t.knownItemTypes) : null, items, withItems: new Map() };
}

// ---- values -------------------------------------------------------------------------------------------------

const NO_VALUE = Symbol('no value');

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function get(obj: unknown, segments: readonly string[]): unknown {
  let v: unknown = obj;
  for (const s of segments) {
    if (!isPlainObject(v)) return undefined;
    v = v[s];
  }
  return v;
}

const DAY = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/;
/** A date the models declare (`yyyy-mm-dd`): its midnight UTC, as DuckDB casts it to TIMESTAMPTZ. */
function parseDay(value: unknown): Date | null {
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 ? d : null;
}

const NUMERIC = /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * A source value as a column value, or NO_VALUE when it cannot be typed (the caller keeps it in `extra`).
 * The rules match what DuckDB's JSON reader does with a typed column.
 */
export function coerce(value: unknown, type: DuckType, convert?: ColumnDef['convert'], engines?: readonly string[]): unknown {
  if (value === undefined || value === null) return null;
  switch (convert) {
    case 'timestamp': { const d = parseTimestamp(value); return d ?? NO_VALUE; }
    case 'zoned_timestamp': { const z = timestampHasZone(value); return z === null ? NO_VALUE : z ? parseTimestamp(value) : null; }
    case 'local_time': { const z = timestampHasZone(value); return z === null ? NO_VALUE : z ? null : (value as string).trim().replace('T', ' '); }
    case 'has_zone': { const z = timestampHasZone(value); return z === null ? NO_VALUE : z; }
    case 'seconds': { const s = parseSeconds(value); return s ?? NO_VALUE; }
    case 'item_type': return typeof value === 'string' ? neutralItemType(value, engines ?? []) : NO_VALUE;
    case 'json': return jsonText(value);
    case 'join_path': return Array.isArray(value) ? value.map(String).join('/') : typeof value === 'string' ? value : NO_VALUE;
    default: break;
  }
  switch (type) {
    case 'VARCHAR':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return NO_VALUE;
    case 'BIGINT':
    case 'INTEGER': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(n) || !Number.isSafeInteger(n)) return NO_VALUE;
      if (type === 'INTEGER' && (n > 2147483647 || n < -2147483648)) return NO_VALUE;
      return n;
    }
    case 'DOUBLE': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
      return Number.isFinite(n) ? n : NO_VALUE;
    }
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : NO_VALUE;
    case 'TIMESTAMPTZ': { const d = parseTimestamp(value) ?? parseDay(value); return d ?? NO_VALUE; }
    case 'JSON':
      return jsonText(value);
  }
}

/** A value for a text column that takes anything: strings as they are, everything else as JSON text. */
function anyAsText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : jsonText(value);
}

// ---- extraction ---------------------------------------------------------------------------------------------

/** Which columns of a plan apply to a result kind, and which that do not are the only place of their path. */
interface KindFit { applies: boolean[]; orphan: boolean[] }
const FITS = new WeakMap<TablePlan, Map<ResultKind | undefined, KindFit>>();

function fitOf(plan: TablePlan, kind: ResultKind | undefined): KindFit {
  let byKind = FITS.get(plan);
  if (!byKind) FITS.set(plan, (byKind = new Map()));
  let fit = byKind.get(kind);
  if (!fit) {
    const applies = plan.columns.map((col) => columnApplies(col.def, kind));
    const orphan = plan.columns.map((col, i) => !applies[i] && col.segments !== null && !plan.columns.some((o, j) => applies[j] && o.def.path === col.def.path));
    byKind.set(kind, (fit = { applies, orphan }));
  }
  return fit;
}

interface TaskScope {
  taskId: string;
  ctx: NormalizeContext;
  special: Record<string, unknown>;
  /** The task's result kind: a column may apply to one kind only. */
  kind: ResultKind | undefined;
  engines: readonly string[];
  emit: RowSink;
  stats: NormalizeStats;
  /** The request fields the task's `data` echoes legitimately (echoedFields). */
  echoed: ReadonlySet<string>;
}

/** Where the extractor hands each row as it is made: a loader appends it at once, so rows die young. */
export type RowSink = (table: string, row: Row) => void;

function push(scope: TaskScope, table: string, row: Row): void {
  scope.emit(table, row);
}

function setPath(target: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = node[segments[i]];
    if (!isPlainObject(next)) node[segments[i]] = {};
    node = node[segments[i]] as Record<string, unknown>;
  }
  node[segments[segments.length - 1]] = value;
}

/**
 * Fields of `obj` that no column, ignored path or child consumes, as a nested object (undefined when none). A
 * field in `declared` (a path) is kept the same way but not counted: the catalog knows it, only no column takes it.
 */
function unknownFields(obj: Record<string, unknown>, trie: Trie, table: string, stats: NormalizeStats, prefix = '', declared?: (path: string) => boolean): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue;
    const node = trie.children.get(key);
    if (!node) {
      (extra ??= {})[key] = value;
      if (!declared?.(`${prefix}${key}`)) NormalizeStats.bump(stats.unknownFields, `${table}.${prefix}${key}`);
    } else if (!node.leaf && isPlainObject(value)) {
      const inner = unknownFields(value, node, table, stats, `${prefix}${key}.`, declared);
      if (inner) (extra ??= {})[key] = inner;
    }
  }
  return extra;
}

/** `parentKey`: `_parent_key`, cut once per parent and child table (childRows); null where the table has none. */
function lineage(scope: TaskScope, id: string, parentId: string | null, parentKey: string | null, listIdx: number | null, t: TableDef): Row {
  const row: Row = { _id: id, _task_id: scope.taskId, _run_id: scope.ctx.runId, _loaded_at: scope.ctx.loadedAt };
  if (t.parent !== null && t.name !== 'tasks') row._parent_id = parentId;
  if (parentKey !== null) row._parent_key = parentKey;
  if (t.name !== 'tasks') row._list_idx = listIdx;
  return row;
}

/** One row from one source object, then its children. */
function objectRow(scope: TaskScope, plan: TablePlan, src: unknown, id: string, parentId: string | null, parentKey: string | null, listIdx: number | null): void {
  const t = plan.table;
  const row = lineage(scope, id, parentId, parentKey, listIdx, t);
  let extra: Record<string, unknown> | undefined;
  const obj = isPlainObject(src) ? src : undefined;
  if (!obj && src !== undefined && src !== null) {
    // An element that is not an object where objects are expected: keep it whole.
    extra = { _value: src };
    NormalizeStats.bump(scope.stats.badValues, `${t.name}.(element)`);
  }
  let itemType: string | null = null;
  const fit = fitOf(plan, scope.kind);
  for (let c = 0; c < plan.columns.length; c++) {
    const col = plan.columns[c];
    if (!fit.applies[c]) {
      row[col.def.name] = null;
      // A value no column of this result kind takes is kept, as an unknown field would be.
      if (fit.orphan[c] && obj) {
        const raw = get(obj, col.segments!);
        if (raw !== undefined && raw !== null) setPath((extra ??= {}), col.segments!, raw);
      }
      continue;
    }
    let raw = col.special ? specialValue(scope, col.special, src) : obj ? get(obj, col.segments!) : undefined;
    if ((raw === undefined || raw === null) && col.alt && obj) raw = get(obj, col.alt);
    const v = coerce(raw, col.def.type, col.def.convert, scope.engines);
    if (v === NO_VALUE) {
      row[col.def.name] = null;
      if (col.segments) {
        setPath((extra ??= {}), col.segments, raw);
        NormalizeStats.bump(scope.stats.badValues, `${t.name}.${col.def.path}`);
      }
    } else row[col.def.name] = v;
    // A type that is not text (NO_VALUE: kept in extra above) names no item type.
    if (col.def.convert === 'item_type' || col.def.itemType) itemType = v === NO_VALUE ? null : (v as string | null);
  }
  if (plan.known && itemType !== null && !plan.known.has(itemType)) NormalizeStats.bump(scope.stats.unknownItemTypes, `${t.name}:${itemType}`);
  if (obj) {
    // Item rows: each polymorphic object's own type picks the table of its own fields.
    const chosen = plan.items.length ? plan.items.filter((ch) => itemOf(obj, ch) !== undefined) : NO_ITEMS;
    // An item type's own row shares its object with the common row, which reports the fields neither knows.
    if (t.source?.kind !== 'item') {
      // A task's `data` echoes its request: a field the endpoint declares (load_async_ai_overview) is not unknown.
      const declared = t.name === 'tasks' ? (p: string) => p.startsWith('data.') && scope.echoed.has(p.slice(5)) : undefined;
      const unknown = unknownFields(obj, knownPaths(plan, itemType, chosen), t.name, scope.stats, '', declared);
      if (unknown) extra = extra ? { ...unknown, ...extra } : unknown;
    }
    for (const ch of plan.children) {
      if (ch.table.source!.kind === 'item') {
        if (chosen.includes(ch)) childRows(scope, ch, itemOf(obj, ch), id);
        continue;
      }
      if (ch.table.onlyForItemTypes && (itemType === null || !ch.table.onlyForItemTypes.includes(itemType))) continue;
      const value = get(obj, ch.segments);
      if (value === undefined || value === null) continue;
      if (!childRows(scope, ch, value, id)) {
        setPath((extra ??= {}), ch.segments, value);
        NormalizeStats.bump(scope.stats.badValues, `${ch.table.name}.(shape)`);
      }
    }
  }
  if (t.extra) row[EXTRA_COLUMN] = extra ? jsonText(extra) : null;
  push(scope, t.name, row);
}

const NO_ITEMS: readonly ChildPlan[] = [];

/** The object an item-type table takes its row from, when its type field names that table's type. */
function itemOf(obj: Record<string, unknown>, ch: ChildPlan): Record<string, unknown> | undefined {
  const src = ch.table.source as Extract<RowSource, { kind: 'item' }>;
  const value = src.path === '$' ? obj : get(obj, ch.segments);
  return isPlainObject(value) && ch.table.onlyForItemTypes!.includes(value[src.by] as string) ? value : undefined;
}

/** The paths a row consumes: its columns and children, for its item type, and the own fields of its item rows. */
function knownPaths(plan: TablePlan, itemType: string | null, chosen: readonly ChildPlan[]): Trie {
  const base = itemType !== null ? plan.consumedByType.get(itemType) ?? plan.consumed : plan.consumed;
  if (!chosen.length) return base;
  const key = `${itemType ?? ''}\u0000${chosen.map((ch) => ch.table.name).join(',')}`;
  let trie = plan.withItems.get(key);
  if (!trie) {
    trie = newTrie();
    trieGraft(trie, [], base);
    for (const ch of chosen) trieGraft(trie, [], ch.graft!);
    plan.withItems.set(key, trie);
  }
  return trie;
}

function specialValue(scope: TaskScope, name: string, src: unknown): unknown {
  if (name === '$') return src;
  return scope.special[name];
}

/** Rows of a child table from the parent's value at the child's path; false when the value has the wrong shape. */
function childRows(scope: TaskScope, ch: ChildPlan, value: unknown, parentId: string): boolean {
  const src = ch.table.source!;
  const plan = ch.plan;
  // A result row's id is `<task_id>:<path>`: the warehouse stores the path and computes `_parent_id` from it.
  const key = keyedParent(ch.table) ? parentId.slice(scope.taskId.length + 1) : null;
  switch (src.kind) {
    case 'objects':
      if (!Array.isArray(value)) return false;
      for (let j = 0; j < value.length; j++) objectRow(scope, plan, value[j], `${parentId}:${j}`, parentId, key, j);
      return true;
    case 'item':
      if (!isPlainObject(value)) return false;
      objectRow(scope, plan, value, parentId, parentId, key, 0);
      return true;
    case 'scalars':
      if (!Array.isArray(value)) return false;
      for (let j = 0; j < value.length; j++) scalarRow(scope, plan, value[j], `${parentId}:${j}`, parentId, key, j);
      return true;
    case 'entries': {
      if (!isPlainObject(value)) return false;
      let j = 0;
      for (const [k, v] of Object.entries(value)) {
        const row = lineage(scope, `${parentId}:${j}`, parentId, key, j, plan.table);
        row[plan.table.columns[0].name] = k;
        row[plan.table.columns[1].name] = anyAsText(v);
        push(scope, plan.table.name, row);
        j++;
      }
      return true;
    }
    case 'technologies': {
      if (!isPlainObject(value)) return false;
      let j = 0;
      const [gCol, cCol, tCol] = plan.table.columns.map((c) => c.name);
      const add = (group: string, category: string | null, tech: unknown) => {
        const row = lineage(scope, `${parentId}:${j}`, parentId, key, j, plan.table);
        row[gCol] = group;
        row[cCol] = category;
        row[tCol] = anyAsText(tech);
        push(scope, plan.table.name, row);
        j++;
      };
      for (const [group, cats] of Object.entries(value)) {
        if (isPlainObject(cats)) {
          for (const [category, names] of Object.entries(cats)) {
            if (Array.isArray(names)) for (const n of names) add(group, category, n);
            else if (names !== null && names !== undefined) add(group, category, names);
          }
        } else if (Array.isArray(cats)) {
          for (const n of cats) add(group, null, n);
        } else if (cats !== null && cats !== undefined) add(group, null, cats);
      }
      return true;
    }
  }
}

function scalarRow(scope: TaskScope, plan: TablePlan, value: unknown, id: string, parentId: string | null, parentKey: string | null, listIdx: number): void {
  const t = plan.table;
  const row = lineage(scope, id, parentId, parentKey, listIdx, t);
  const col = t.columns[0];
  if (col.type === 'VARCHAR') {
    row[col.name] = anyAsText(value);
  } else {
    const v = coerce(value, col.type, col.convert);
    row[col.name] = v === NO_VALUE ? null : v;
    if (v === NO_VALUE) NormalizeStats.bump(scope.stats.badValues, `${t.name}.${col.name}`);
    row[EXTRA_COLUMN] = v === NO_VALUE ? jsonText({ _value: value }) : null;
  }
  push(scope, t.name, row);
}

/**
 * Rows of every catalog table for one collected task, by table name. Pure: the same task and context give the
 * same rows and ids. A failed task (status >= 40000 or no `result`) gives only its `tasks` row; a task_post answer
 * gives nothing (posting is the ledger's business).
 */
export function normalizeTask(collected: CollectedTask, ctx: NormalizeContext, stats: NormalizeStats = new NormalizeStats()): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  normalizeTaskInto(collected, ctx, stats, (table, row) => {
    let rows = out.get(table);
    if (!rows) out.set(table, (rows = []));
    rows.push(row);
  });
  return out;
}

/** normalizeTask handing each row to `emit` as it is made, in the same order, instead of collecting them. */
export function normalizeTaskInto(collected: CollectedTask, ctx: NormalizeContext, stats: NormalizeStats, emit: RowSink): void {
  const { task, endpointId } = collected;
  const catalog = ctx.catalog ?? CATALOG;
  const def = catalog.findEndpoint(endpointId);
  const kind = def?.result;
  if (kind === 'task_created') {
    stats.skippedTasks++;
    return;
  }
  if (!task || typeof task !== 'object' || typeof task.id !== 'string' || !task.id) {
    throw new Error(`normalizeTask: ${endpointId}: task.id: must be a non-empty string`);
  }
  const data = isPlainObject(task.data) ? task.data : {};
  const engines = [...(ctx.engines ?? []), ...(typeof data.se === 'string' ? [data.se] : [])];
  const scope: TaskScope = {
    taskId: task.id, ctx: collected.runId ? { ...ctx, runId: collected.runId } : ctx, engines, emit, stats, kind, echoed: def ? catalog.echoedFields(def) : NO_FIELDS,
    special: {
      $endpoint_id: endpointId,
      $version: collected.version,
      $function: typeof data.function === 'string' ? data.function : def?.fn ?? null,
      $path: Array.isArray(task.path) ? task.path.join('/') : null,
    },
  };
  stats.tasks++;
  objectRow(scope, planOf('tasks', catalog), task, `${task.id}@${endpointId}`, null, null, null);
  const failed = typeof task.status_code !== 'number' || isTaskError(task.status_code) || !Array.isArray(task.result);
  if (failed) {
    stats.failedTasks++;
    return;
  }
  const root = kind ? catalog.rootTableFor(kind) : undefined;
  const plan = planOf(root?.name ?? 'unknown_results', catalog);
  const result = task.result as unknown[];
  if (plan.table.resultShape === 'scalar_lists') {
    let k = 0;
    for (const el of result) {
      const list = Array.isArray(el) ? el : [el];
      for (const v of list) { scalarRow(scope, plan, v, `${task.id}:${k}`, null, null, k); k++; }
    }
  } else if (plan.table.name === 'unknown_results') {
    for (let i = 0; i < result.length; i++) {
      const row = lineage(scope, `${task.id}:${i}`, null, null, i, plan.table);
      row.path = scope.special.$path;
      row.result = jsonText(result[i] ?? null);
      push(scope, plan.table.name, row);
    }
  } else {
    for (let i = 0; i < result.length; i++) objectRow(scope, plan, result[i], `${task.id}:${i}`, null, null, i);
  }
}

const NO_FIELDS: ReadonlySet<string> = new Set();

