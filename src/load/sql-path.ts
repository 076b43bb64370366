/**
 * The SQL fast path for the bulk keyword tables (keyword_data and its children, with their `tasks` rows).
 *
 * Why: on this machine, for 100k keyword results with 12 monthly_searches each, JSON.parse alone takes about as
 * long as DuckDB's typed read_json of the same lines, and flattening + appending 1.4M rows from JS costs several
 * times more; DuckDB parses and unnests in native code on all cores. So these lines are handed to DuckDB:
 * `read_json` with an explicit schema (no sampling pass) derived from the catalog, then INSERT ... SELECT with
 * unnest, with SQL expressions derived from the same catalog columns.
 *
 * Exactness: a typed read ignores keys it does not know and casts loosely, which would lose fields. So a line
 * comes this way only when a byte-level shape check (scan.ts) proves every key is known and every value has the
 * kind its column expects; any other line goes to the JS extractor, which keeps unknowns in `extra`. A test
 * loads the same archive through both paths and compares every table.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TABLES, allColumns, familyOf, table as tableDef, type ColumnDef, type DuckType, type TableDef } from '../normalize/catalog.js';
import { compileShape, shapeEnd, type CompiledShape, type Shape } from './scan.js';
import { q } from './ddl.js';
import { emptySummary, type LoadSummary, type Warehouse } from './warehouse.js';

/** Endpoints whose lines may take the fast path, with the `function` their results carry when `data` has none. */
const FAST_ENDPOINTS: Record<string, string> = {
  'keywords_for_site.task_get': 'keywords_for_site',
  'keywords_for_keywords.task_get': 'keywords_for_keywords',
};
const ROOT = 'keyword_data';

// ---- shapes from the catalog ----------------------------------------------------------------------------------

function scalarShape(col: ColumnDef): Shape {
  if (col.convert === 'timestamp' || col.convert === 'json' || col.convert === 'item_type') return { t: 'null' };
  if (col.convert === 'seconds') return { t: 'str' };
  if (col.convert === 'join_path') return { t: 'arr', item: { t: 'str', strict: true } };
  return shapeOfType(col.type);
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

/** The shape of a table's source object: its columns' paths and its children's lists, nothing else. */
function tableShape(t: TableDef, overrides: Record<string, Shape> = {}): Shape {
  const fields = new Map<string, Shape>();
  for (const col of t.columns) if (!col.path.startsWith('$')) put(fields, col.path.split('.'), scalarShape(col));
  for (const ch of TABLES.filter((x) => x.parent === t.name)) {
    const src = ch.source!;
    const item: Shape = src.kind === 'objects' ? tableShape(ch) : src.kind === 'scalars' ? shapeOfType(ch.columns[0].type) : { t: 'null' };
    put(fields, src.path.split('.'), src.kind === 'objects' || src.kind === 'scalars' ? { t: 'arr', item } : item);
  }
  for (const [k, v] of Object.entries(overrides)) put(fields, k.split('.'), v);
  return { t: 'obj', fields };
}

/** Shape of the `response` of a fast-path line. */
export function fastResponseShape(): Shape {
  const task = tableShape(tableDef('tasks'), { id: { t: 'str' }, result: { t: 'arr', item: tableShape(tableDef(ROOT)) } });
  return { t: 'obj', rest: 'skip', fields: new Map<string, Shape>([['version', { t: 'str' }], ['tasks', { t: 'arr', item: task }]]) };
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** DuckDB type of a shape (fields that can only be null are left out: read_json ignores them). */
function duckTypeOf(s: Shape): string | null {
  switch (s.t) {
    case 'obj': {
      const parts: string[] = [];
      for (const [k, v] of s.fields) {
        const ty = duckTypeOf(v);
        if (ty) parts.push(`${ident(k)} ${ty}`);
      }
      return parts.length ? `STRUCT(${parts.join(', ')})` : null;
    }
    case 'arr': { const inner = duckTypeOf(s.item); return inner ? `${inner}[]` : null; }
    case 'str': return 'VARCHAR';
    case 'int': return s.digits <= 9 ? 'INTEGER' : 'BIGINT';
    case 'num': return 'DOUBLE';
    case 'bool': return 'BOOLEAN';
    default: return null;
  }
}

function hasPath(s: Shape, segments: readonly string[]): boolean {
  let node: Shape | undefined = s;
  for (const seg of segments) {
    if (!node || node.t !== 'obj') return false;
    node = node.fields.get(seg);
  }
  return node !== undefined && duckTypeOf(node) !== null;
}

// ---- SQL from the catalog -------------------------------------------------------------------------------------

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const SECONDS_RE = `'^\\s*(-?\\d+(?:\\.\\d+)?)\\s*(?:sec\\.?|s)?\\s*$'`;

/** The SQL expression of a declared column over the struct `src` (a source object). */
function columnExpr(col: ColumnDef, src: string, srcShape: Shape, ctx: { endpoint: string; version: string; fn: string }): string {
  if (col.path === '$endpoint_id') return ctx.endpoint;
  if (col.path === '$version') return ctx.version;
  if (col.path === '$function') return ctx.fn;
  if (col.path === '$') return src;
  const segs = col.path.split('.');
  if (!hasPath(srcShape, segs)) return `NULL::${col.type}`;
  const access = `${src}.${segs.map(ident).join('.')}`;
  switch (col.convert) {
    case 'seconds': return `TRY_CAST(NULLIF(regexp_extract(${access}, ${SECONDS_RE}, 1), '') AS DOUBLE)`;
    case 'join_path': return `array_to_string(${access}, '/')`;
    default: return `${access}::${col.type}`;
  }
}

/** read_json `columns` for archive lines typed as the fast path reads keyword responses (benchmark baseline). */
export function fastLineColumns(): string {
  return `{run_id: 'VARCHAR', endpoint_id: 'VARCHAR', response: ${lit(duckTypeOf(fastResponseShape())!)}}`;
}

export interface FastPathSql {
  /** read_json columns for the staged file. */
  columns: string;
  /** Statements building temp tables, before the transaction. */
  prepare: string[];
  /** INSERT statements, in the transaction. */
  inserts: { table: string; sql: string }[];
}

/**
 * The statements of the fast path for a staged NDJSON file of `{"o":<ordinal>,"l":<archive line>}` lines.
 * Later lines win for the same (task id, endpoint), as in the JS path.
 */
export function fastPathSql(file: string, loadedAtIso: string, defaultRunId: string, mayRepeat = true): FastPathSql {
  const response = fastResponseShape();
  const responseType = duckTypeOf(response)!;
  const columns = `{o: 'BIGINT', l: ${lit(`STRUCT(run_id VARCHAR, endpoint_id VARCHAR, response ${responseType})`)}}`;
  const taskShape = (response as Extract<Shape, { t: 'obj' }>).fields.get('tasks') as Extract<Shape, { t: 'arr' }>;
  const tShape = taskShape.item;
  const rShape = ((tShape as Extract<Shape, { t: 'obj' }>).fields.get('result') as Extract<Shape, { t: 'arr' }>).item;
  const loadedAt = `${lit(loadedAtIso)}::TIMESTAMPTZ`;
  const fnCase = `COALESCE(t.data."function", CASE endpoint_id ${Object.entries(FAST_ENDPOINTS).map(([e, f]) => `WHEN ${lit(e)} THEN ${lit(f)}`).join(' ')} END)`;
  const ctx = { endpoint: 'endpoint_id', version: 'version', fn: fnCase };
  const prepare: string[] = [
    `CREATE OR REPLACE TEMP TABLE _fp_tasks AS
       SELECT o, ti, CASE WHEN l.run_id IS NULL OR l.run_id = '' THEN ${lit(defaultRunId)} ELSE l.run_id END AS run_id,
              l.endpoint_id AS endpoint_id, l.response.version AS version, t
       FROM (SELECT o, l, unnest(l.response.tasks) AS t, generate_subscripts(l.response.tasks, 1) AS ti
             FROM read_json(${lit(file)}, format = 'newline_delimited', columns = ${columns}, maximum_object_size = 1073741824))
       WHERE t.id IS NOT NULL
       ${mayRepeat ? 'QUALIFY row_number() OVER (PARTITION BY t.id, endpoint_id ORDER BY o DESC, ti DESC) = 1' : ''}`,
    `CREATE OR REPLACE TEMP TABLE _fp_keys AS SELECT t.id AS task_id, t.id || '@' || endpoint_id AS task_row_id FROM _fp_tasks`,
  ];
  const inserts: { table: string; sql: string }[] = [];
  const insert = (t: TableDef, select: string) => {
    const cols = allColumns(t).map((c) => q(c.name)).join(', ');
    inserts.push({ table: t.name, sql: `INSERT INTO ${q(t.name)} (${cols}) ${select}` });
  };
  const exprList = (t: TableDef, src: string, shape: Shape, lineage: string[], extraExpr = 'NULL') =>
    [...lineage, ...t.columns.map((c) => columnExpr(c, src, shape, ctx)), ...(t.extra ? [`${extraExpr}::JSON`] : [])].join(', ');

  // tasks: the only extra a checked line can produce is a `time` that is not "<n> sec.".
  const tasks = tableDef('tasks');
  const timeCol = tasks.columns.find((c) => c.name === 'time_seconds')!;
  const timeExpr = columnExpr(timeCol, 't', tShape, ctx);
  insert(tasks, `SELECT ${exprList(tasks, 't', tShape, [`t.id || '@' || endpoint_id`, 't.id', 'run_id', loadedAt],
    `CASE WHEN t."time" IS NOT NULL AND ${timeExpr} IS NULL THEN json_object('time', t."time") END`)} FROM _fp_tasks`);
  for (const ch of TABLES.filter((x) => x.parent === 'tasks')) {
    const p = ch.source!.path.split('.');
    if (!hasPath(tShape, p)) continue;
    const list = `t.${p.map(ident).join('.')}`;
    insert(ch, `SELECT _pid || ':' || (j - 1), _tid, run_id, ${loadedAt}, _pid, (j - 1)::INTEGER, v${ch.extra ? ', NULL::JSON' : ''}
      FROM (SELECT t.id || '@' || endpoint_id AS _pid, t.id AS _tid, run_id, unnest(${list}) AS v, generate_subscripts(${list}, 1) AS j FROM _fp_tasks)`);
  }

  // keyword_data and its children: one temp table of result rows keeps the struct for the children.
  const root = tableDef(ROOT);
  prepare.push(`CREATE OR REPLACE TEMP TABLE _fp_rows AS
    SELECT t.id || ':' || (i - 1) AS _id, t.id AS _task_id, run_id AS _run_id, (i - 1)::INTEGER AS _list_idx, r, endpoint_id, version, ${fnCase} AS _fn
    FROM (SELECT t, run_id, endpoint_id, version, unnest(t.result) AS r, generate_subscripts(t.result, 1) AS i
          FROM _fp_tasks WHERE t.status_code IS NOT NULL AND t.status_code < 40000 AND t.result IS NOT NULL)`);
  ctx.fn = '_fn';
  insert(root, `SELECT ${exprList(root, 'r', rShape, ['_id', '_task_id', '_run_id', loadedAt, '_list_idx'])} FROM _fp_rows`);
  for (const ch of familyOf(ROOT).filter((t) => t.parent === ROOT)) {
    const p = ch.source!.path.split('.');
    const list = `r.${p.map(ident).join('.')}`;
    const itemShape = ch.source!.kind === 'objects' ? tableShape(ch) : shapeOfType(ch.columns[0].type);
    insert(ch, `SELECT ${exprList(ch, 'e', itemShape, [`_pid || ':' || (j - 1)`, '_task_id', '_run_id', loadedAt, '_pid', '(j - 1)::INTEGER'])}
      FROM (SELECT _id AS _pid, _task_id, _run_id, unnest(${list}) AS e, generate_subscripts(${list}, 1) AS j FROM _fp_rows)`);
  }
  return { columns, prepare, inserts };
}

// ---- the route ------------------------------------------------------------------------------------------------

const HEAD = /^\{"run_id":"(?:[^"\\]|\\.)*","seq":\d+,"endpoint_id":"(keywords_for_site\.task_get|keywords_for_keywords\.task_get)","method":"GET","path":"((?:[^"\\]|\\.)*)","received_at":"[^"\\]*","http_status":\d+,"response":/;

export class SqlRoute {
  private dir: string | null = null;
  private file: string | null = null;
  private fd: number | null = null;
  private ord = 0;
  private bytes = 0;
  private readonly ids = new Set<string>();
  /** Whether a task id came twice (or a line may hold several tasks): then the SQL keeps the last of each. */
  private repeated = false;
  private readonly shape: CompiledShape = compileShape(fastResponseShape());
  private readonly maxBytes: number;

  /**
   * `fallback` loads archive lines through the JS extractor; it takes the staged lines if DuckDB refuses them
   * (a value the shape check let through but the typed read cannot cast), so a load never fails on data.
   */
  constructor(private readonly wh: Warehouse, private readonly opts: { loadedAt: Date; runId?: string; maxBytes?: number; fallback: (lines: Buffer[]) => Promise<LoadSummary> }) {
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
  }

  get pending(): boolean { return this.ord > 0; }
  get full(): boolean { return this.bytes >= this.maxBytes; }
  holds(taskId: string): boolean { return this.ids.has(taskId); }

  /** Takes the line when it qualifies (returns the task id from its path), else null. */
  offer(line: Buffer): string | null {
    if (line[0] !== 0x7b || line[1] !== 0x22 || line[2] !== 0x72) return null;
    const head = HEAD.exec(line.toString('latin1', 0, Math.min(line.length, 2048)));
    if (!head) return null;
    const start = head[0].length;
    const end = shapeEnd(line, start, this.shape);
    if (end !== line.length - 1 || line[end] !== 0x7d) return null;
    const p = head[2];
    const taskId = p.slice(p.lastIndexOf('/') + 1);
    if (this.fd === null) {
      this.dir ??= mkdtempSync(path.join(os.tmpdir(), 'seo-etl-fast-'));
      this.file = path.join(this.dir, 'lines.ndjson');
      this.fd = openSync(this.file, 'w');
    }
    const pre = Buffer.from(`{"o":${this.ord++},"l":`);
    writeSync(this.fd, pre);
    writeSync(this.fd, line);
    writeSync(this.fd, SUFFIX);
    this.bytes += line.length + pre.length + 2;
    if (this.ids.has(taskId)) this.repeated = true;
    this.ids.add(taskId);
    return taskId;
  }

  /** Loads the staged lines (one transaction) and starts a new stage. */
  async flush(): Promise<LoadSummary> {
    const summary = emptySummary();
    if (this.fd === null || !this.ord) return summary;
    closeSync(this.fd);
    this.fd = null;
    const conn = this.wh.connection;
    // Deduplication sorts the nested task structs: skip it when no task id came twice in this stage.
    const sql = fastPathSql(this.file!, this.opts.loadedAt.toISOString(), this.opts.runId ?? 'archive', this.repeated);
    try {
      try {
        for (const [n, s] of sql.prepare.entries()) {
          const t0 = performance.now();
          await conn.run(s);
          if (n === 0 && !this.repeated) {
            // The path's id said no repeats; the tasks themselves have the last word (an envelope may hold several).
            const d = await conn.runAndReadAll('SELECT count(*) - count(DISTINCT (t.id, endpoint_id)) FROM _fp_tasks');
            if (Number(d.getRows()[0][0]) > 0) await conn.run(fastPathSql(this.file!, this.opts.loadedAt.toISOString(), this.opts.runId ?? 'archive', true).prepare[0]);
          }
          if (process.env.SEO_ETL_TRACE) process.stderr.write(`prepare ${(performance.now() - t0).toFixed(0)} ms\n`);
        }
      } catch {
        return await this.opts.fallback(readStagedLines(this.file!));
      }
      const counts = (await conn.runAndReadAll(`SELECT count(*), count(*) FILTER (WHERE t.status_code IS NULL OR t.status_code >= 40000 OR t.result IS NULL) FROM _fp_tasks`)).getRows()[0];
      summary.tasks = Number(counts[0]);
      summary.failedTasks = Number(counts[1]);
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`DELETE FROM tasks WHERE _id IN (SELECT task_row_id FROM _fp_keys)`);
        for (const t of TABLES.filter((x) => x.parent === 'tasks')) await conn.run(`DELETE FROM ${q(t.name)} WHERE _parent_id IN (SELECT task_row_id FROM _fp_keys)`);
        for (const t of familyOf(ROOT)) await conn.run(`DELETE FROM ${q(t.name)} WHERE _task_id IN (SELECT task_id FROM _fp_keys)`);
        for (const ins of sql.inserts) {
          const t0 = performance.now();
          const r = await conn.run(ins.sql);
          if (process.env.SEO_ETL_TRACE) process.stderr.write(`insert ${ins.table} ${(performance.now() - t0).toFixed(0)} ms\n`);
          const n = Number(r.rowsChanged);
          if (n) summary.rows[ins.table] = (summary.rows[ins.table] ?? 0) + n;
        }
        await conn.run('COMMIT');
      } catch (err) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      for (const t of ['_fp_tasks', '_fp_keys', '_fp_rows']) await conn.run(`DROP TABLE IF EXISTS temp.${t}`).catch(() => undefined);
      rmSync(this.file!, { force: true });
      this.ord = 0;
      this.bytes = 0;
      this.ids.clear();
      this.repeated = false;
    }
    return summary;
  }

  async dispose(): Promise<void> {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
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
