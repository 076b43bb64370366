/**
 * The SQL fast path: result families whose lines DuckDB parses and flattens itself (keyword_data, merchant
 * shopping, domain technologies and every other family the catalog can describe to it), with their `tasks` rows.
 *
 * Why: on this machine, for 100k keyword results with 12 monthly_searches each, JSON.parse alone takes about as
 * long as DuckDB's typed read_json of the same lines, and flattening + appending rows from JS costs several
 * times more (a VARCHAR cell costs a native call through the appender); DuckDB parses and unnests in native code
 * on all cores. So these lines are handed to DuckDB: `read_json` with an explicit schema (no sampling pass)
 * derived from the catalog, then INSERT ... SELECT with unnest, with SQL expressions derived from the same
 * catalog columns. Each family has its own schema, so its lines are staged in their own file.
 *
 * Exactness: a typed read ignores keys it does not know and casts loosely, which would lose fields. So a line
 * comes this way only when a byte-level shape check (scan.ts) proves every key is known and every value has the
 * kind its column expects; any other line goes to the JS extractor, which keeps unknowns in `extra`. The
 * irregular parts of the catalog are narrowed the same way: item types must name a type the catalog knows by its
 * suffix (the SQL CASE below is that rule), maps become DuckDB MAPs (key order kept), timestamps must be in the
 * service's form. A test loads the same archive through both paths and compares every table.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writevSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENDPOINTS } from '../api/catalog.js';
import { TABLES, allColumns, childrenOf, familyOf, lineageColumns, rootTableFor, table as tableDef, type ColumnDef, type DuckType, type TableDef } from '../normalize/catalog.js';
import { KNOWN_ITEM_TYPES, knownItemType } from '../normalize/item-type.js';
import { compileShape, shapeEnd, type CompiledShape, type Shape } from './scan.js';
import { q } from './ddl.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { emptySummary, mergeSummary, type LoadSummary, type Warehouse } from './warehouse.js';

/** A catalog feature this path cannot reproduce exactly: its family stays with the JS extractor. */
class Unsupported extends Error {}

// ---- shapes from the catalog ----------------------------------------------------------------------------------

function scalarShape(col: ColumnDef): Shape {
  switch (col.convert) {
    case 'json': return { t: 'null' };
    case 'timestamp': return { t: 'ts' };
    // The typed wrapper (objectShape) classifies the value; here it is the raw `type` string.
    case 'item_type': return { t: 'str' };
    case 'seconds': return { t: 'str' };
    case 'join_path': return { t: 'arr', item: { t: 'str', strict: true } };
    default: return shapeOfType(col.type);
  }
}

function shapeOfType(type: DuckType): Shape {
  switch (type) {
    case 'VARCHAR': return { t: 'str' };
    case 'BIGINT': return { t: 'int', digits: 15 };
    case 'INTEGER': return { t: 'int', digits: 9 };
    case 'DOUBLE': return { t: 'num' };
    case 'BOOLEAN': return { t: 'bool' };
    default: return { t: 'null' };
  }
}

function put(fields: Map<string, Shape>, segments: readonly string[], shape: Shape): void {
  if (segments.length === 1) {
    fields.set(segments[0], shape);
    return;
  }
  let inner = fields.get(segments[0]);
  if (!inner || inner.t !== 'obj') fields.set(segments[0], (inner = { t: 'obj', fields: new Map() }));
  put(inner.fields, segments.slice(1), shape);
}

/** Children of `t` that an item of (engine-neutral) type `type` has; null: an item without a type. */
function childrenFor(t: TableDef, type: string | null): TableDef[] {
  return childrenOf(t.name).filter((ch) => !ch.onlyForItemTypes || (type !== null && ch.onlyForItemTypes.includes(type)));
}

/** The shape of the value at a child table's source path. */
function childShape(ch: TableDef): Shape {
  const src = ch.source!;
  switch (src.kind) {
    case 'objects': return { t: 'arr', item: objectShape(ch) };
    // A text column takes strings as they are; numbers and objects would become text in JS: refused here.
    case 'scalars': return { t: 'arr', item: shapeOfType(ch.columns[0].type) };
    case 'entries': return { t: 'map', value: { t: 'str' } };
    case 'technologies': return { t: 'map', value: { t: 'map', value: { t: 'arr', item: { t: 'str' } } } };
  }
}

/** An object with the table's column paths, ignored paths and the given children's lists, nothing else. */
function plainShape(t: TableDef, children: readonly TableDef[], overrides: Record<string, Shape> = {}): Shape {
  const fields = new Map<string, Shape>();
  for (const col of t.columns) if (!col.path.startsWith('$')) put(fields, col.path.split('.'), scalarShape(col));
  for (const ig of t.ignored ?? []) put(fields, ig.path.split('.'), { t: 'open' });
  for (const ch of children) put(fields, ch.source!.path.split('.'), childShape(ch));
  for (const [k, v] of Object.entries(overrides)) put(fields, k.split('.'), v);
  return { t: 'obj', fields };
}

/** The shape of a table's source object; typed per item type when the table has an `item_type` column. */
function objectShape(t: TableDef): Shape {
  const typeCol = t.columns.find((c) => c.convert === 'item_type');
  if (!typeCol) return plainShape(t, childrenOf(t.name));
  if (typeCol.path.includes('.')) throw new Unsupported(`${t.name}: item type below the top level`);
  const names = t.knownItemTypes ?? KNOWN_ITEM_TYPES;
  const variants = new Map(names.map((n) => [n, plainShape(t, childrenFor(t, n))] as const));
  // A type the table does not know is counted by the JS extractor (unknown item types): refused here.
  const classify = (raw: string) => {
    const n = knownItemType(raw);
    return n !== null && variants.has(n) ? n : null;
  };
  return { t: 'typed', key: typeCol.path, classify, variants, untyped: plainShape(t, childrenFor(t, null)) };
}

function responseShape(root: TableDef): Shape {
  const task = plainShape(tableDef('tasks'), childrenOf('tasks'), { id: { t: 'str', capture: true }, result: { t: 'arr', item: objectShape(root) } });
  return { t: 'obj', rest: 'skip', fields: new Map<string, Shape>([['version', { t: 'str' }], ['tasks', { t: 'arr', item: task }]]) };
}

// ---- DuckDB types of shapes -------------------------------------------------------------------------------------

type DType =
  | { k: 'struct'; fields: Map<string, DType> }
  | { k: 'list'; item: DType }
  | { k: 'map'; value: DType }
  | { k: 'scalar'; sql: string };

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

function render(d: DType): string {
  switch (d.k) {
    case 'struct': return `STRUCT(${[...d.fields].map(([k, v]) => `${ident(k)} ${render(v)}`).join(', ')})`;
    case 'list': return `${render(d.item)}[]`;
    case 'map': return `MAP(VARCHAR, ${render(d.value)})`;
    case 'scalar': return d.sql;
  }
}

/**
 * Two variants' types of one field. Structs merge field by field; a field typed differently by two item types
 * (a merchant item's `items`: carousel elements or related keywords) is read as JSON and typed per variant.
 */
function merge(a: DType, b: DType): DType {
  if (a.k === 'struct' && b.k === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, v] of b.fields) fields.set(k, fields.has(k) ? merge(fields.get(k)!, v) : v);
    return { k: 'struct', fields };
  }
  return render(a) === render(b) ? a : { k: 'scalar', sql: 'JSON' };
}

/** The DuckDB type read for a shape; null for values that can only be null (read_json leaves them out). */
function dtypeOf(s: Shape): DType | null {
  switch (s.t) {
    case 'obj': {
      const fields = new Map<string, DType>();
      for (const [k, v] of s.fields) {
        const d = dtypeOf(v);
        if (d) fields.set(k, d);
      }
      return fields.size ? { k: 'struct', fields } : null;
    }
    case 'typed': {
      let acc: DType | null = dtypeOf(s.untyped);
      for (const v of s.variants.values()) {
        const d = dtypeOf(v);
        if (d) acc = acc ? merge(acc, d) : d;
      }
      return acc;
    }
    case 'arr': { const item = dtypeOf(s.item); return item ? { k: 'list', item } : null; }
    case 'map': { const value = dtypeOf(s.value); return value ? { k: 'map', value } : null; }
    case 'str': case 'ts': return { k: 'scalar', sql: 'VARCHAR' };
    case 'int': return { k: 'scalar', sql: s.digits <= 9 ? 'INTEGER' : 'BIGINT' };
    case 'num': return { k: 'scalar', sql: 'DOUBLE' };
    case 'bool': return { k: 'scalar', sql: 'BOOLEAN' };
    default: return null;
  }
}

/**
 * The SQL expression of the value at `segments` under `src` (typed `d`), typed as `want`; `NULL` when the path is
 * not read (its shape only allows null). A path read as JSON is typed with json_transform.
 */
function access(src: string, d: DType | null, segments: readonly string[], want: DType | null): string | null {
  let expr = src;
  let node = d;
  for (const seg of segments) {
    if (!node) return null;
    if (node.k === 'scalar' && node.sql === 'JSON') throw new Unsupported(`${segments.join('.')}: below a field read as JSON`);
    if (node.k !== 'struct') return null;
    node = node.fields.get(seg) ?? null;
    expr = `${expr}.${ident(seg)}`;
  }
  if (!node || !want) return null;
  if (node.k === 'scalar' && node.sql === 'JSON' && render(want) !== 'JSON') return `json_transform(${expr}, ${lit(JSON.stringify(render(want)))})`;
  return expr;
}

// ---- SQL from the catalog -------------------------------------------------------------------------------------

const SECONDS_RE = `'^\\s*(-?\\d+(?:\\.\\d+)?)\\s*(?:sec\\.?|s)?\\s*$'`;

/** knownItemType in SQL: the catalog type named by the suffix, longest first (the checker let no other through). */
function itemTypeExpr(raw: string): string {
  return `CASE ${KNOWN_ITEM_TYPES.map((k) => `WHEN ${raw} = ${lit(k)} OR ends_with(${raw}, ${lit(`_${k}`)}) THEN ${lit(k)}`).join(' ')} END`;
}

/** The SQL expression of a declared column over the source value `src` (typed `d`). */
function columnExpr(col: ColumnDef, src: string, d: DType | null, specials: Record<string, string>): string {
  if (col.path.startsWith('$')) {
    const s = specials[col.path];
    if (s === undefined) throw new Unsupported(`${col.name}: ${col.path}`);
    return `${s}::${col.type}`;
  }
  const segs = col.path.split('.');
  const want = dtypeOf(scalarShape(col));
  const a = access(src, d, segs, want);
  if (a === null) return `NULL::${col.type}`;
  switch (col.convert) {
    case 'seconds': return `TRY_CAST(NULLIF(regexp_extract(${a}, ${SECONDS_RE}, 1), '') AS DOUBLE)`;
    case 'join_path': return `array_to_string(${a}, '/')`;
    case 'timestamp': return `strptime(${a}, '%Y-%m-%d %H:%M:%S %z')`;
    case 'item_type': return itemTypeExpr(a);
    default: return `${a}::${col.type}`;
  }
}

export interface FastPathSql {
  /** read_json columns for the staged file. */
  columns: string;
  /** Statements building temp tables, before the transaction. */
  prepare: string[];
  /** INSERT statements, in the transaction. */
  inserts: { table: string; sql: string }[];
  /** Temp tables the statements create (dropped after the load). */
  temps: string[];
  /** Over `_fp_tasks`: whether a task has a value the JS extractor counts as bad (a `time` it cannot read). */
  badValue: string;
}

/** A result family the fast path loads: its root table, its endpoints and what is derived from them. */
interface Family {
  root: TableDef;
  /** Endpoint id -> the `function` its results carry when `data` has none. */
  endpoints: Map<string, string>;
  shape: Shape;
  compiled: CompiledShape;
  responseType: string;
  taskType: DType;
  rootType: DType | null;
}

function compileFamily(root: TableDef): Family {
  if (root.resultShape === 'scalar_lists') throw new Unsupported(`${root.name}: scalar lists`);
  const shape = responseShape(root);
  const responseD = dtypeOf(shape)!;
  const taskType = ((responseD as Extract<DType, { k: 'struct' }>).fields.get('tasks') as Extract<DType, { k: 'list' }>).item;
  const resultD = (taskType as Extract<DType, { k: 'struct' }>).fields.get('result');
  const fam: Family = {
    root,
    endpoints: new Map(ENDPOINTS.filter((e) => e.kind !== 'task_post' && rootTableFor(e.result)?.name === root.name).map((e) => [e.id, e.fn])),
    shape, compiled: compileShape(shape), responseType: render(responseD), taskType,
    rootType: resultD && resultD.k === 'list' ? resultD.item : null,
  };
  // Generate once with placeholders: a family whose statements cannot be derived is left to the JS extractor.
  familySql(fam, 'x', '2000-01-01T00:00:00Z', 'x', true);
  return fam;
}

/** Families the fast path takes, by root table; endpoints to their family. */
const FAMILIES = new Map<string, Family>();
const FAMILY_OF_ENDPOINT = new Map<string, Family>();
for (const t of TABLES) {
  if (!t.resultKind || t.parent !== null) continue;
  if (t.resultKind === 'merchant_shopping' || t.resultKind === 'events_serp') continue; // issue 17: columns with a second path and zone-aware times are the JS extractor's alone
  try {
    const fam = compileFamily(t);
    if (!fam.endpoints.size) continue;
    FAMILIES.set(t.name, fam);
    for (const e of fam.endpoints.keys()) FAMILY_OF_ENDPOINT.set(e, fam);
  } catch (err) {
    if (!(err instanceof Unsupported)) throw err;
  }
}

function familyNamed(root: string): Family {
  const fam = FAMILIES.get(root);
  if (!fam) throw new Error(`sql fast path: no family '${root}'`);
  return fam;
}

/** Endpoints whose lines may take the fast path. */
export function fastEndpoints(): string[] {
  return [...FAMILY_OF_ENDPOINT.keys()];
}

/** Shape of the `response` of a fast-path line of the family (keyword_data by default). */
export function fastResponseShape(root = 'keyword_data'): Shape {
  return familyNamed(root).shape;
}

/** read_json `columns` for archive lines typed as the fast path reads a family's responses (benchmark baseline). */
export function fastLineColumns(root = 'keyword_data'): string {
  return `{run_id: 'VARCHAR', endpoint_id: 'VARCHAR', response: ${lit(familyNamed(root).responseType)}}`;
}

/**
 * The statements of the fast path for a staged NDJSON file of `{"o":<ordinal>,"l":<archive line>}` lines of one
 * family. Later lines win for the same (task id, endpoint), as in the JS path.
 */
export function fastPathSql(file: string, loadedAtIso: string, defaultRunId: string, mayRepeat = true, root = 'keyword_data', longestLine = 1 << 30): FastPathSql {
  return familySql(familyNamed(root), file, loadedAtIso, defaultRunId, mayRepeat, longestLine);
}

/**
 * read_json's `maximum_object_size` for a file whose longest line is `longest` bytes: DuckDB sizes its read
 * buffers from it, and a needlessly large one costs (measured: 1 GiB made the keyword stage's read ~30% slower
 * than 1 MiB), while a line longer than it is an error.
 */
function objectSizeFor(longest: number): number {
  let size = 1 << 20;
  while (size < 2 * longest + 1024) size *= 2;
  return size;
}

function familySql(fam: Family, file: string, loadedAtIso: string, defaultRunId: string, mayRepeat: boolean, longestLine = 1 << 30): FastPathSql {
  const columns = `{o: 'BIGINT', l: ${lit(`STRUCT(run_id VARCHAR, endpoint_id VARCHAR, response ${fam.responseType})`)}}`;
  const loadedAt = `${lit(loadedAtIso)}::TIMESTAMPTZ`;
  const fnCase = `COALESCE(${access('t', fam.taskType, ['data', 'function'], { k: 'scalar', sql: 'VARCHAR' }) ?? 'NULL'}, CASE endpoint_id ${[...fam.endpoints].map(([e, f]) => `WHEN ${lit(e)} THEN ${lit(f)}`).join(' ')} END)`;
  const temps = ['_fp_tasks', '_fp_keys'];
  const prepare: string[] = [
    `CREATE OR REPLACE TEMP TABLE _fp_tasks AS
       SELECT o, ti, CASE WHEN l.run_id IS NULL OR l.run_id = '' THEN ${lit(defaultRunId)} ELSE l.run_id END AS run_id,
              l.endpoint_id AS endpoint_id, COALESCE(l.response.version, '') AS version, t
       FROM (SELECT o, l, unnest(l.response.tasks) AS t, generate_subscripts(l.response.tasks, 1) AS ti
             FROM read_json(${lit(file)}, format = 'newline_delimited', columns = ${columns}, maximum_object_size = ${objectSizeFor(longestLine)}))
       WHERE t.id IS NOT NULL
       ${mayRepeat ? 'QUALIFY row_number() OVER (PARTITION BY t.id, endpoint_id ORDER BY o DESC, ti DESC) = 1' : ''}`,
    `CREATE OR REPLACE TEMP TABLE _fp_keys AS SELECT t.id AS task_id, t.id || '@' || endpoint_id AS task_row_id FROM _fp_tasks`,
  ];
  const inserts: { table: string; sql: string }[] = [];
  const insert = (t: TableDef, select: string) => {
    const cols = allColumns(t).map((c) => q(c.name)).join(', ');
    inserts.push({ table: t.name, sql: `INSERT INTO ${q(t.name)} (${cols}) ${select}` });
  };

  // tasks: the only extra a checked line can produce is a `time` that is not "<n> sec.".
  const tasks = tableDef('tasks');
  const taskSpecials = { $endpoint_id: 'endpoint_id', $version: 'version', $function: fnCase };
  const taskCols = tasks.columns.map((c) => columnExpr(c, 't', fam.taskType, taskSpecials));
  const timeExpr = columnExpr(tasks.columns.find((c) => c.name === 'time_seconds')!, 't', fam.taskType, taskSpecials);
  const timeRaw = access('t', fam.taskType, ['time'], { k: 'scalar', sql: 'VARCHAR' });
  const badTime = timeRaw ? `(${timeRaw} IS NOT NULL AND ${timeExpr} IS NULL)` : 'false';
  insert(tasks, `SELECT t.id || '@' || endpoint_id, t.id, run_id, ${loadedAt}, ${taskCols.join(', ')},
    CASE WHEN ${badTime} THEN json_object('time', ${timeRaw ?? 'NULL'}) END::JSON FROM _fp_tasks`);
  for (const ch of childrenOf('tasks')) {
    const list = access('t', fam.taskType, ch.source!.path.split('.'), dtypeOf(childShape(ch)));
    if (!list) continue;
    insert(ch, `SELECT _pid || ':' || (j - 1), _tid, run_id, ${loadedAt}, _pid, (j - 1)::INTEGER, v::${ch.columns[0].type}${ch.extra ? ', NULL::JSON' : ''}
      FROM (SELECT t.id || '@' || endpoint_id AS _pid, t.id AS _tid, run_id, unnest(${list}) AS v, generate_subscripts(${list}, 1) AS j FROM _fp_tasks)`);
  }

  // The family: each object table with children keeps its rows (with the source struct `e`) in a temp table,
  // from which its children are unnested; other tables are unnested straight into their INSERT.
  const root = fam.root;
  const rootTemp = '_fp_0';
  temps.push(rootTemp);
  const rootTyped = root.columns.find((c) => c.convert === 'item_type');
  prepare.push(`CREATE OR REPLACE TEMP TABLE ${rootTemp} AS
    SELECT t.id || ':' || (i - 1) AS _id, t.id AS _task_id, run_id AS _run_id, NULL::VARCHAR AS _parent_id, (i - 1)::INTEGER AS _list_idx, e,
           endpoint_id AS _ep, version AS _ver, ${fnCase} AS _fn${rootTyped ? `, ${columnExpr(rootTyped, 'e', fam.rootType, {})} AS _itype` : ''}
    FROM (SELECT t, run_id, endpoint_id, version, unnest(t.result) AS e, generate_subscripts(t.result, 1) AS i
          FROM _fp_tasks WHERE t.status_code IS NOT NULL AND t.status_code < 40000 AND t.result IS NOT NULL)`);
  const lineage = (t: TableDef) => lineageColumns(t).map((c) => (c.name === '_loaded_at' ? loadedAt : c.name));
  const extra = (t: TableDef) => (t.extra ? ['NULL::JSON'] : []);
  insert(root, `SELECT ${[...lineage(root), ...root.columns.map((c) => columnExpr(c, 'e', fam.rootType, { $function: '_fn', $endpoint_id: '_ep', $version: '_ver' })), ...extra(root)].join(', ')} FROM ${rootTemp}`);

  const walk = (parent: TableDef, parentTemp: string, parentType: DType | null) => {
    for (const ch of childrenOf(parent.name)) {
      const src = ch.source!;
      const listType = dtypeOf(childShape(ch));
      let list = access('e', parentType, src.path.split('.'), listType);
      if (list === null) continue; // never read: the checker only lets null through
      if (src.kind === 'entries') list = `map_entries(${list})`;
      if (src.kind === 'technologies') {
        list = `flatten(list_transform(map_entries(${list}), lambda g: flatten(list_transform(map_entries(g.value), lambda c: list_transform(c.value, lambda n: {'g': g.key, 'c': c.key, 'n': n})))))`;
      }
      const where = ch.onlyForItemTypes ? `WHERE _itype IN (${ch.onlyForItemTypes.map(lit).join(', ')})` : '';
      const rows = `(SELECT _pid || ':' || (j - 1) AS _id, _task_id, _run_id, _pid AS _parent_id, (j - 1)::INTEGER AS _list_idx, e
        FROM (SELECT _id AS _pid, _task_id, _run_id, unnest(L) AS e, generate_subscripts(L, 1) AS j
              FROM (SELECT _id, _task_id, _run_id, ${list} AS L FROM ${parentTemp} ${where})))`;
      let values: string[];
      switch (src.kind) {
        case 'objects': {
          const elemType = listType && listType.k === 'list' ? listType.item : null;
          values = ch.columns.map((c) => columnExpr(c, 'e', elemType, {}));
          const grandChildren = childrenOf(ch.name).length > 0;
          if (grandChildren) {
            const temp = `_fp_${temps.length - 2}`;
            temps.push(temp);
            const typed = ch.columns.find((c) => c.convert === 'item_type');
            prepare.push(`CREATE OR REPLACE TEMP TABLE ${temp} AS SELECT *${typed ? `, ${columnExpr(typed, 'e', elemType, {})} AS _itype` : ''} FROM ${rows}`);
            insert(ch, `SELECT ${[...lineage(ch), ...values, ...extra(ch)].join(', ')} FROM ${temp}`);
            walk(ch, temp, elemType);
            continue;
          }
          break;
        }
        case 'scalars': values = [`e::${ch.columns[0].type}`]; break;
        case 'entries': values = [`e.key::${ch.columns[0].type}`, `e.value::${ch.columns[1].type}`]; break;
        case 'technologies': values = ch.columns.map((c) => `e.${c.path === '$group' ? 'g' : c.path === '$category' ? 'c' : 'n'}::${c.type}`); break;
      }
      insert(ch, `SELECT ${[...lineage(ch), ...values, ...extra(ch)].join(', ')} FROM ${rows}`);
    }
  };
  walk(root, rootTemp, fam.rootType);
  return { columns, prepare, inserts, temps, badValue: badTime };
}

// ---- the route ------------------------------------------------------------------------------------------------

const HEAD = /^\{"run_id":"(?:[^"\\]|\\.)*","seq":\d+,"endpoint_id":"([A-Za-z0-9_.]+)","method":"(?:GET|POST)","path":"(?:[^"\\]|\\.)*","received_at":"[^"\\]*","http_status":\d+,"response":/;

/** The lines of one family waiting to be loaded. */
interface Stage {
  fam: Family;
  file: string;
  fd: number;
  ord: number;
  ids: Set<string>;
  /** Whether a task id came twice: then the SQL keeps the last of each. */
  repeated: boolean;
  bytes: number;
  /** The longest staged line, bytes. */
  longest: number;
  /** Pieces not written yet (written a megabyte at a time: one write call per line costs more than the line). */
  pending: Buffer[];
  pendingBytes: number;
}

/** A stage closed for loading: its file, the ids of its tasks and its size. */
export interface ClosedStage {
  readonly file: string;
  readonly ids: ReadonlySet<string>;
  readonly bytes: number;
}

function writePending(stage: Stage): void {
  if (stage.pending.length) {
    const n = writevSync(stage.fd, stage.pending);
    if (n !== stage.pendingBytes) throw new Error(`sql fast path: ${stage.file}: wrote ${n} of ${stage.pendingBytes} bytes`);
  }
  stage.pending = [];
  stage.pendingBytes = 0;
}

export class SqlRoute {
  private dir: string | null = null;
  private readonly stages = new Map<Family, Stage>();
  private files = 0;
  private readonly maxBytes: number;

  /**
   * `fallback` loads archive lines through the JS extractor; it takes the staged lines if DuckDB refuses them
   * (a value the shape check let through but the typed read cannot cast), so a load never fails on data.
   */
  constructor(private readonly wh: Warehouse, private readonly opts: { loadedAt: Date; runId?: string; maxBytes?: number; fallback: (lines: Buffer[], conn: DuckDBConnection) => Promise<LoadSummary> }) {
    this.maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  }

  get pending(): boolean { return this.stages.size > 0; }
  /** Whether a family's stage reached the size at which it is loaded. */
  get full(): boolean {
    for (const s of this.stages.values()) if (s.bytes >= this.maxBytes) return true;
    return false;
  }
  holds(taskId: string): boolean {
    for (const s of this.stages.values()) if (s.ids.has(taskId)) return true;
    return false;
  }

  /** Takes the line when it qualifies (returns the ids of its tasks), else null. */
  offer(line: Buffer): string[] | null {
    if (line[0] !== 0x7b || line[1] !== 0x22 || line[2] !== 0x72) return null;
    const head = HEAD.exec(line.toString('latin1', 0, Math.min(line.length, 2048)));
    if (!head) return null;
    const fam = FAMILY_OF_ENDPOINT.get(head[1]);
    if (!fam) return null;
    const start = head[0].length;
    const ids: string[] = [];
    const end = shapeEnd(line, start, fam.compiled, ids);
    if (end !== line.length - 1 || line[end] !== 0x7d) return null;
    let stage = this.stages.get(fam);
    if (!stage) {
      this.dir ??= mkdtempSync(path.join(os.tmpdir(), 'seo-etl-fast-'));
      const file = path.join(this.dir, `${fam.root.name}-${this.files++}.ndjson`);
      stage = { fam, file, fd: openSync(file, 'w'), ord: 0, ids: new Set(), repeated: false, bytes: 0, longest: 0, pending: [], pendingBytes: 0 };
      this.stages.set(fam, stage);
    }
    const pre = Buffer.from(`{"o":${stage.ord++},"l":`);
    stage.pending.push(pre, line, SUFFIX);
    stage.pendingBytes += line.length + pre.length + 2;
    stage.bytes += line.length + pre.length + 2;
    stage.longest = Math.max(stage.longest, line.length + pre.length + 2);
    if (stage.pendingBytes >= 1 << 20 || stage.pending.length > 900) writePending(stage);
    for (const id of ids) {
      if (stage.ids.has(id)) stage.repeated = true;
      stage.ids.add(id);
    }
    return ids;
  }

  /**
   * Closes the stages to load (all, or with `onlyFull` those that reached the size at which they are loaded) and
   * starts new ones. A family's stage is loaded when it is full, so a small family is loaded once rather than at
   * every load of a big one (each load has a fixed cost of some twenty statements).
   */
  take(onlyFull = false): ClosedStage[] {
    const stages = [...this.stages.values()].filter((s) => !onlyFull || s.bytes >= this.maxBytes);
    for (const s of stages) {
      this.stages.delete(s.fam);
      try {
        writePending(s);
      } finally {
        closeSync(s.fd);
        s.fd = -1;
      }
    }
    return stages;
  }

  /** Loads the staged lines (one transaction per family) and starts new stages. */
  async flush(onlyFull = false): Promise<LoadSummary> {
    const summary = emptySummary();
    const stages = this.take(onlyFull);
    try {
      for (const stage of stages) mergeSummary(summary, (await this.load(stage)).summary);
    } finally {
      for (const stage of stages) rmSync(stage.file, { force: true });
    }
    return summary;
  }

  /**
   * Loads one closed stage in one transaction on `conn` (default: the warehouse's connection), then removes its
   * file. `fallback` tells whether DuckDB refused the lines and the JS extractor loaded them.
   */
  async load(closed: ClosedStage, conn: DuckDBConnection = this.wh.connection): Promise<{ summary: LoadSummary; fallback: boolean }> {
    try {
      return await this.loadStage(closed as Stage, conn);
    } finally {
      rmSync(closed.file, { force: true });
    }
  }

  private async loadStage(stage: Stage, conn: DuckDBConnection): Promise<{ summary: LoadSummary; fallback: boolean }> {
    const summary = emptySummary();
    const fam = stage.fam;
    // Deduplication sorts the nested task structs: skip it when no task id came twice in this stage.
    const sql = familySql(fam, stage.file, this.opts.loadedAt.toISOString(), this.opts.runId ?? 'archive', stage.repeated, stage.longest);
    const trace = process.env.SEO_ETL_TRACE ? (what: string, t0: number) => process.stderr.write(`@${performance.now().toFixed(0)} ${fam.root.name} ${what} ${(performance.now() - t0).toFixed(0)} ms cpu ${(process.cpuUsage().user / 1000).toFixed(0)}\n`) : null;
    try {
      try {
        for (const s of sql.prepare) {
          const t0 = performance.now();
          await conn.run(s);
          trace?.(`prepare ${s.slice(0, 40).replace(/\s+/g, ' ')}`, t0);
        }
      } catch {
        return { summary: await this.opts.fallback(readStagedLines(stage.file), conn), fallback: true };
      }
      const counts = (await conn.runAndReadAll(`SELECT count(*), count(*) FILTER (WHERE t.status_code IS NULL OR t.status_code >= 40000 OR t.result IS NULL),
        count(*) FILTER (WHERE ${sql.badValue}) FROM _fp_tasks`)).getRows()[0];
      summary.tasks = Number(counts[0]);
      summary.failedTasks = Number(counts[1]);
      summary.badValues = Number(counts[2]);
      await conn.run('BEGIN TRANSACTION');
      try {
        const t0 = performance.now();
        // A task's rows in any table were written with its `tasks` row, so a task without one has nothing to
        // replace: the deletes (each a scan of a whole table) are skipped when no task of the stage was loaded before.
        const seen = await conn.runAndReadAll(`SELECT count(*) FROM _fp_keys WHERE task_id IN (SELECT _task_id FROM tasks)`);
        if (Number(seen.getRows()[0][0]) > 0) {
          await conn.run(`DELETE FROM tasks WHERE _id IN (SELECT task_row_id FROM _fp_keys)`);
          for (const t of childrenOf('tasks')) await conn.run(`DELETE FROM ${q(t.name)} WHERE _parent_id IN (SELECT task_row_id FROM _fp_keys)`);
          for (const t of familyOf(fam.root.name)) await conn.run(`DELETE FROM ${q(t.name)} WHERE _task_id IN (SELECT task_id FROM _fp_keys)`);
        }
        trace?.('deletes', t0);
        for (const ins of sql.inserts) {
          const t0 = performance.now();
          const r = await conn.run(ins.sql);
          trace?.(`insert ${ins.table}`, t0);
          const n = Number(r.rowsChanged);
          if (n) summary.rows[ins.table] = (summary.rows[ins.table] ?? 0) + n;
        }
        const c0 = performance.now();
        await conn.run('COMMIT');
        trace?.('commit', c0);
      } catch (err) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      const t0 = performance.now();
      for (const t of sql.temps) await conn.run(`DROP TABLE IF EXISTS temp.${t}`).catch(() => undefined);
      trace?.('drop temps', t0);
    }
    return { summary, fallback: false };
  }

  async dispose(): Promise<void> {
    for (const s of this.stages.values()) if (s.fd >= 0) closeSync(s.fd);
    this.stages.clear();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

const SUFFIX = Buffer.from('}\n');

/** The archive lines of a staged file (each staged line is `{"o":n,"l":<line>}`). */
function readStagedLines(file: string): Buffer[] {
  const text = readFileSync(file);
  const out: Buffer[] = [];
  let start = 0;
  for (let nl = text.indexOf(10); nl >= 0; start = nl + 1, nl = text.indexOf(10, start)) {
    const line = text.subarray(start, nl);
    const lStart = line.indexOf(',"l":') + 5;
    out.push(line.subarray(lStart, line.length - 1));
  }
  return out;
}
