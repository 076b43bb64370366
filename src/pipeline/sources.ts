/**
 * Reading enumeration sources: text files (one value a line), CSV files (a named column, or whole rows) and SQL
 * queries over the warehouse. Every value keeps where it came from, so a rule it breaks can name its line.
 */
import { readFileSync } from 'node:fs';
import type { EndpointDef, FieldRule } from '../catalog/endpoint.js';
import { formatTimestamp } from '../api/envelope.js';
import type { PositionedIssue } from '../config/yaml.js';
import { CsvSyntaxError, parseCsv } from './csv.js';
import { dayOfRunId } from './key.js';
import { lit } from '../catalog/quote.js';
import type { Axis, EnumeratedValue, Place, SourceSpec } from './types.js';

/** Runs SQL against the warehouse; the orchestrator passes one bound to its connection. */
export type QueryFn = (sql: string) => Promise<Record<string, unknown>[]>;

export interface SourceContext {
  def?: EndpointDef;
  /** Where the source is written in the pipeline, and its key path, for issues about the source itself. */
  at: Place;
  keyPath: string;
}

type Issues = PositionedIssue[];

/**
 * Values from a file or a database come as text or database types; the catalog says what the parameter takes.
 * A value that does not convert is left as it is, so the parameter rule reports it with its place.
 */
export function coerce(value: unknown, rule: FieldRule | undefined): unknown {
  if (typeof value === 'bigint') value = Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) value = formatTimestamp(value);
  if (!rule) return value;
  switch (rule.type) {
    case 'integer':
    case 'number':
      if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) return Number(value);
      return value;
    case 'boolean':
      if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
      return value;
    case 'string':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return value;
    default:
      return value;
  }
}

function readText(file: string, display: string, ctx: SourceContext, issues: Issues): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    issues.push({ ...ctx.at, key: ctx.keyPath, rule: `cannot read ${display}: ${code === 'ENOENT' ? 'no such file (paths are relative to the pipeline file)' : (err as Error).message}` });
    return undefined;
  }
}

function readCsvRecords(text: string, display: string, ctx: SourceContext, issues: Issues) {
  try {
    const records = parseCsv(text);
    if (records.length === 0) {
      issues.push({ ...ctx.at, key: ctx.keyPath, rule: `${display} is empty; a CSV source needs a header row` });
      return undefined;
    }
    return { header: records[0].fields.map((h) => h.trim()), records: records.slice(1) };
  } catch (err) {
    if (err instanceof CsvSyntaxError) {
      issues.push({ file: display, line: err.line, column: err.column, key: ctx.keyPath, rule: `CSV syntax: ${err.message}` });
      return undefined;
    }
    throw err;
  }
}

/** The values of one parameter from a list, a text file or a CSV column (SQL sources: see queryValues). */
/** What a values axis reads without a query (its list or file), or undefined for an SQL source. */
export function readAxisValues(axis: Extract<Axis, { kind: 'values' }>, ctx: SourceContext, issues: Issues): EnumeratedValue[] | undefined {
  return axis.source.type === 'sql' ? undefined : readValues(axis.source, axis.param, ctx, issues);
}

/** What a rows axis reads without a query (its file), or undefined for an SQL source. */
export function readAxisRows(axis: Extract<Axis, { kind: 'rows' }>, ctx: SourceContext, issues: Issues): Record<string, EnumeratedValue>[] | undefined {
  return axis.source.type === 'file' ? readRows(axis.source, axis.columns, ctx, issues) : undefined;
}

export function readValues(source: SourceSpec, param: string, ctx: SourceContext, issues: Issues): EnumeratedValue[] | undefined {
  const rule = ctx.def?.fields?.[param];
  const itemRule: FieldRule | undefined = rule?.type === 'string_array' ? { type: 'string' } : rule;
  if (source.type === 'list') return source.items;
  if (source.type === 'sql') return undefined;
  const text = readText(source.path, source.display, ctx, issues);
  if (text === undefined) return undefined;
  const out: EnumeratedValue[] = [];
  if (source.path.toLowerCase().endsWith('.csv')) {
    const csv = readCsvRecords(text, source.display, ctx, issues);
    if (!csv) return undefined;
    let col = 0;
    if (source.column !== undefined) {
      col = csv.header.indexOf(source.column);
      if (col < 0) {
        issues.push({ ...ctx.at, key: `${ctx.keyPath}.column`, rule: `${source.display} has no column "${source.column}"; its columns: ${csv.header.join(', ')}` });
        return undefined;
      }
    } else if (csv.header.length > 1) {
      issues.push({ ...ctx.at, key: `${ctx.keyPath}.column`, rule: `${source.display} has ${csv.header.length} columns (${csv.header.join(', ')}); name one with column:` });
      return undefined;
    }
    for (const rec of csv.records) {
      const raw = rec.fields[col];
      if (raw === undefined || raw.trim() === '') continue;
      out.push({ value: coerce(raw.trim(), itemRule), origin: { file: source.display, line: rec.line, column: rec.columns[col] } });
      if (source.limit !== undefined && out.length >= source.limit) break;
    }
  } else {
    if (source.column !== undefined) issues.push({ ...ctx.at, key: `${ctx.keyPath}.column`, rule: `${source.display} is a text file (one value a line); column: is for .csv files` });
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i];
      const value = raw.trim();
      if (value === '' || value.startsWith('#')) continue;
      out.push({ value: coerce(value, itemRule), origin: { file: source.display, line: i + 1, column: raw.indexOf(value) + 1 } });
      if (source.limit !== undefined && out.length >= source.limit) break;
    }
  }
  if (out.length === 0) issues.push({ ...ctx.at, key: ctx.keyPath, rule: `${source.display} holds no values` });
  return out;
}

/** Whole rows of a CSV file, each column bound to the parameter of the same name (or as `columns` maps them). */
export function readRows(source: Extract<SourceSpec, { type: 'file' }>, columns: Record<string, string> | undefined, ctx: SourceContext, issues: Issues): Record<string, EnumeratedValue>[] | undefined {
  const text = readText(source.path, source.display, ctx, issues);
  if (text === undefined) return undefined;
  const csv = readCsvRecords(text, source.display, ctx, issues);
  if (!csv) return undefined;
  const mapping = columnMapping(csv.header, columns, source.display, ctx, issues);
  if (!mapping) return undefined;
  const rows: Record<string, EnumeratedValue>[] = [];
  for (const rec of csv.records) {
    const row: Record<string, EnumeratedValue> = {};
    for (const [param, col] of mapping) {
      const raw = rec.fields[col];
      // An empty cell leaves the parameter out; it stays bound so a rule it breaks points at this row.
      const empty = raw === undefined || raw.trim() === '';
      row[param] = {
        value: empty ? undefined : coerce(raw.trim(), ctx.def?.fields?.[param]),
        origin: { file: source.display, line: rec.line, column: rec.columns[col] ?? rec.columns[rec.columns.length - 1] },
      };
    }
    rows.push(row);
    if (source.limit !== undefined && rows.length >= source.limit) break;
  }
  if (rows.length === 0) issues.push({ ...ctx.at, key: ctx.keyPath, rule: `${source.display} holds no rows` });
  return rows;
}

function columnMapping(header: string[], columns: Record<string, string> | undefined, display: string, ctx: SourceContext, issues: Issues): [string, number][] | undefined {
  const pairs: [string, string][] = columns ? Object.entries(columns) : header.map((h) => [h, h]);
  const out: [string, number][] = [];
  let ok = true;
  for (const [param, col] of pairs) {
    const idx = header.indexOf(col);
    if (idx < 0) {
      issues.push({ ...ctx.at, key: `${ctx.keyPath}.columns.${param}`, rule: `${display} has no column "${col}"; its columns: ${header.join(', ')}` });
      ok = false;
      continue;
    }
    if (!columns && ctx.def && !ctx.def.fields?.[param]) {
      issues.push({ ...ctx.at, key: ctx.keyPath, rule: `column "${col}" of ${display} is not a parameter of ${ctx.def.id}; pick columns with columns: { parameter: column }` });
      ok = false;
      continue;
    }
    out.push([param, idx]);
  }
  return ok ? out : undefined;
}

/** Replaces {run_id} and {run_date} in a source query with quoted literals. */
export function bindSql(sql: string, vars: { runId: string; runDate?: string }): string {
  return sql.replace(/\{run_id\}/g, lit(vars.runId)).replace(/\{run_date\}/g, lit(vars.runDate ?? dayOfRunId(vars.runId) ?? ''));
}

async function runQuery(source: Extract<SourceSpec, { type: 'sql' }>, query: QueryFn, vars: { runId: string; runDate?: string }, ctx: SourceContext, issues: Issues) {
  try {
    const rows = await query(bindSql(source.sql, vars));
    return source.limit !== undefined ? rows.slice(0, source.limit) : rows;
  } catch (err) {
    issues.push({ ...ctx.at, key: `${ctx.keyPath}.sql`, rule: `the query failed: ${(err as Error).message.split('\n')[0]}` });
    return undefined;
  }
}

const rowNote = (i: number) => `row ${i + 1} of the query`;

/** The values of one parameter from a SQL query: its `column`, or its only column. Null values are skipped. */
export async function queryValues(source: Extract<SourceSpec, { type: 'sql' }>, param: string, query: QueryFn, vars: { runId: string; runDate?: string }, ctx: SourceContext, issues: Issues): Promise<EnumeratedValue[] | undefined> {
  const rows = await runQuery(source, query, vars, ctx, issues);
  if (!rows) return undefined;
  const rule = ctx.def?.fields?.[param];
  const itemRule: FieldRule | undefined = rule?.type === 'string_array' ? { type: 'string' } : rule;
  const out: EnumeratedValue[] = [];
  let column = source.column;
  rows.forEach((row, i) => {
    if (column === undefined) {
      const names = Object.keys(row);
      if (names.length !== 1) {
        if (i === 0) issues.push({ ...ctx.at, key: `${ctx.keyPath}.column`, rule: `the query returns ${names.length} columns (${names.join(', ')}); name one with column:` });
        return;
      }
      column = names[0];
    }
    if (!(column in row)) {
      if (i === 0) issues.push({ ...ctx.at, key: `${ctx.keyPath}.column`, rule: `the query returns no column "${column}"; it returns: ${Object.keys(row).join(', ')}` });
      return;
    }
    const v = row[column];
    if (v === null || v === undefined) return;
    out.push({ value: coerce(v, itemRule), origin: { ...ctx.at, note: rowNote(i) } });
  });
  return out;
}

/** Rows of a SQL query, each column bound to the parameter of the same name (or as `columns` maps them). */
export async function queryRows(source: Extract<SourceSpec, { type: 'sql' }>, columns: Record<string, string> | undefined, query: QueryFn, vars: { runId: string; runDate?: string }, ctx: SourceContext, issues: Issues): Promise<Record<string, EnumeratedValue>[] | undefined> {
  const rows = await runQuery(source, query, vars, ctx, issues);
  if (!rows) return undefined;
  if (rows.length === 0) return [];
  const mapping = columnMapping(Object.keys(rows[0]), columns, 'the query', ctx, issues);
  if (!mapping) return undefined;
  const header = Object.keys(rows[0]);
  return rows.map((row, i) => {
    const out: Record<string, EnumeratedValue> = {};
    for (const [param, idx] of mapping) {
      const v = row[header[idx]];
      out[param] = { value: v === null || v === undefined ? undefined : coerce(v, ctx.def?.fields?.[param]), origin: { ...ctx.at, note: rowNote(i) } };
    }
    return out;
  });
}
