/**
 * Archive lines made ready to append, with no DuckDB call, so it runs on a worker thread (prepare-pool.ts) while
 * the main thread appends the lines before: the lines parsed into collected tasks, what they replace planned,
 * normalized, and every table's rows encoded in DuckDB's vector layout (column-encode.ts) in one arena that is
 * handed over without a copy. Warehouse.loadPrepared appends it; a line's tasks get the same rows as loadTasks gives.
 */
import type { Engines } from '../config/index.js';
import { readArchiveLine } from '../archive/records.js';
import { allColumns } from '../catalog/table.js';
import { table as tableDef } from '../normalize/catalog.js';
import { normalizeTaskInto, NormalizeStats, type CollectedTask, type Row } from '../normalize/extract.js';
import { Arena, ChunkBuilder, encodeColumn, kindOfTypeName, type ColumnKind, type EncodedColumn } from './column-encode.js';
import { planLoad } from './plan.js';

/** A table's stored columns in the file's order, with their DuckDB type names. */
export interface Layout {
  columns: string[];
  types: string[];
}

export interface PrepareOptions {
  engines: Engines | null;
  /** Run id for lines that carry none (bare envelopes). */
  runId?: string;
  loadedAt: Date;
  /** The warehouse's tables as the file has them; a table not named is laid out as the catalog creates it. */
  layouts: Record<string, Layout>;
}

export interface PreparedTable {
  name: string;
  columns: string[];
  types: string[];
  chunks: { rows: number; columns: EncodedColumn[] }[];
}

/** A line or task refused: `at` is the line's index among the text's lines (the caller knows its file and number). */
export interface PreparedProblem { at: number; task: string | null; reason: string }

export interface PreparedLoad {
  /** Every encoded column's bytes; the offsets in `tables` point into it. */
  arena: Uint8Array;
  /** The lines and tasks refused (readArchiveLine's rule, or rows that could not be made), none of them loaded. */
  problems: PreparedProblem[];
  /** The endpoints of the tasks (their tables are put in use before the load). */
  endpoints: string[];
  /** One per task loaded (its id and endpoint): two loads naming the same task may not share a transaction. */
  taskKeys: string[];
  /** What the load replaces (LoadPlan). */
  taskRowIds: string[];
  replace: [string, string[]][];
  tables: PreparedTable[];
  stats: { unknownFields: [string, number][]; unknownItemTypes: [string, number][]; badValues: [string, number][]; tasks: number; failedTasks: number; skippedTasks: number };
}

/** Splits `text` at newlines and prepares its lines in order (see the module's comment). */
export function prepareLines(text: Uint8Array, o: PrepareOptions): PreparedLoad {
  const { tasks, at, problems } = readText(text, o);
  let plan = planLoad(tasks);
  const arena = new Arena(1 << 20);
  const builders = new Map<string, { b: ChunkBuilder; t: PreparedTable }>();
  const builderOf = (name: string) => {
    let e = builders.get(name);
    if (e) return e;
    const layout = o.layouts[name] ?? catalogLayout(name);
    const kinds: ColumnKind[] = layout.types.map(kindOfTypeName);
    const t: PreparedTable = { name, columns: layout.columns, types: layout.types, chunks: [] };
    const b = new ChunkBuilder(layout.columns, (values, count) => {
      t.chunks.push({ rows: count, columns: values.map((v, c) => encodeColumn(arena, kinds[c], v, count)) });
    });
    builders.set(name, (e = { b, t }));
    return e;
  };
  const stats = new NormalizeStats();
  const ctx = { runId: o.runId ?? 'archive', loadedAt: o.loadedAt, engines: o.engines ? Object.values(o.engines) : [] };
  // A task's rows (and what it counts) are made whole before any is kept: one that throws half-way leaves none,
  // and is named instead.
  const refused = new Set<CollectedTask>();
  const rows: [string, Row][] = [];
  for (const t of plan.tasks) {
    rows.length = 0;
    const own = new NormalizeStats();
    try {
      normalizeTaskInto(t, ctx, own, (name, row) => { rows.push([name, row]); });
      stats.merge(own);
    } catch (err) {
      refused.add(t);
      problems.push({ at: at[tasks.indexOf(t)], task: typeof t.task?.id === 'string' ? t.task.id : null, reason: `its rows could not be made (${(err as Error).message})` });
      continue;
    }
    for (const [name, row] of rows) builderOf(name).b.add(row);
  }
  if (refused.size) plan = planLoad(plan.tasks.filter((t) => !refused.has(t)));
  for (const { b } of builders.values()) b.flush();
  return {
    arena: arena.bytes.subarray(0, arena.used),
    problems,
    endpoints: [...new Set(plan.tasks.map((t) => t.endpointId))],
    taskKeys: plan.tasks.map((t) => `${t.task?.id}\u0000${t.endpointId}`),
    taskRowIds: [...plan.taskRowIds],
    replace: [...plan.replace].map(([name, ids]) => [name, [...ids]]),
    tables: [...builders.values()].map((e) => e.t),
    stats: { unknownFields: [...stats.unknownFields], unknownItemTypes: [...stats.unknownItemTypes], badValues: [...stats.badValues], tasks: stats.tasks, failedTasks: stats.failedTasks, skippedTasks: stats.skippedTasks },
  };
}

/** The stored columns of a table as the catalog creates it (a derived column is computed by DuckDB). */
function catalogLayout(name: string): Layout {
  const cols = allColumns(tableDef(name)).filter((c) => !c.derived);
  return { columns: cols.map((c) => c.name), types: cols.map((c) => c.type) };
}

/** The NormalizeStats a prepared load counted. */
export function statsOf(p: PreparedLoad): NormalizeStats {
  const s = new NormalizeStats();
  for (const [k, v] of p.stats.unknownFields) s.unknownFields.set(k, v);
  for (const [k, v] of p.stats.unknownItemTypes) s.unknownItemTypes.set(k, v);
  for (const [k, v] of p.stats.badValues) s.badValues.set(k, v);
  s.tasks = p.stats.tasks;
  s.failedTasks = p.stats.failedTasks;
  s.skippedTasks = p.stats.skippedTasks;
  return s;
}

/** The tasks of the text's lines, each with its line's index, and the lines and tasks the rule refuses. */
function readText(text: Uint8Array, o: PrepareOptions): { tasks: CollectedTask[]; at: number[]; problems: PreparedProblem[] } {
  const out = { tasks: [] as CollectedTask[], at: [] as number[], problems: [] as PreparedProblem[] };
  const buf = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  let line = 0;
  for (let start = 0; start < buf.length;) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (end > start) {
      const r = readArchiveLine(buf.toString('utf8', start, end), o.engines, o.runId);
      for (const t of r.tasks) {
        out.tasks.push(t);
        out.at.push(line);
      }
      for (const p of r.problems) out.problems.push({ at: line, ...p });
      line++;
    }
    start = end + 1;
  }
  return out;
}
